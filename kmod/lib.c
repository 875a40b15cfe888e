// SPDX-License-Identifier: GPL-2.0
/*
 * lib/ is the pure logic shared by the module, the KUnit suite and the
 * CLI; it has no kernel dependencies, so its exports to the KUnit suite
 * are declared here.
 */
#include <linux/module.h>
#include "compat.h"
#include "../lib/hist.h"
#include "../lib/record.h"

EXPORT_SYMBOL_IF_KUNIT(iolat_hist_bin);
EXPORT_SYMBOL_IF_KUNIT(iolat_hist_bin_lo);
EXPORT_SYMBOL_IF_KUNIT(iolat_hist_bin_hi);
EXPORT_SYMBOL_IF_KUNIT(iolat_hist_init);
EXPORT_SYMBOL_IF_KUNIT(iolat_hist_add);
EXPORT_SYMBOL_IF_KUNIT(iolat_hist_merge);
EXPORT_SYMBOL_IF_KUNIT(iolat_hist_percentile);
EXPORT_SYMBOL_IF_KUNIT(iolat_op_name);
EXPORT_SYMBOL_IF_KUNIT(iolat_record_latency);
EXPORT_SYMBOL_IF_KUNIT(iolat_record_decode);
