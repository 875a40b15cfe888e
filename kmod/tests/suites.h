/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KUnit suites of iolat_kunit.ko, one per file of kmod/tests/, each
 * named after the part of the data path it tests; suites.c registers them.
 */
#ifndef IOLAT_KUNIT_SUITES_H
#define IOLAT_KUNIT_SUITES_H

#include <kunit/test.h>

extern struct kunit_suite iolat_hist_suite;
extern struct kunit_suite iolat_record_suite;
extern struct kunit_suite iolat_ring_suite;
extern struct kunit_suite iolat_stash_suite;
extern struct kunit_suite iolat_upper_suite;
extern struct kunit_suite iolat_busy_suite;
extern struct kunit_suite iolat_devmap_suite;
extern struct kunit_suite iolat_budget_suite;
extern struct kunit_suite iolat_inflight_suite;
extern struct kunit_suite iolat_cgstat_suite;

#endif /* IOLAT_KUNIT_SUITES_H */
