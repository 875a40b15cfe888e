// SPDX-License-Identifier: GPL-2.0
/*
 * iolat_kunit.ko: the KUnit suites of kmod/tests/, in data-path order,
 * loaded on the debug kernel by `make check` (tests/check.sh).  They test
 * the ring, the stash and the accounting as built into iolat.ko (reached
 * through EXPORT_SYMBOL_IF_KUNIT), and the pure logic of lib/, compiled
 * in here, once, from the same sources the module and the CLI use.
 */
#include <linux/module.h>
#include "../iolat.h"
#include "../../lib/hist.c"
#include "../../lib/record.c"
#include "../../lib/busy.c"
#include "../../lib/nvme_names.c"
#include "suites.h"

IOLAT_KUNIT_IMPORT_NS();

kunit_test_suites(&iolat_hist_suite, &iolat_record_suite, &iolat_ring_suite,
		  &iolat_stash_suite, &iolat_upper_suite, &iolat_busy_suite,
		  &iolat_devmap_suite, &iolat_budget_suite,
		  &iolat_inflight_suite, &iolat_cgstat_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for iolat");
