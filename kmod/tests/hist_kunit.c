// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "iolat_hist": lib/hist.c's log-linear bins, their bounds,
 * percentiles and merges, compiled into the KUnit module from the sources
 * the module and the CLI use (suites.c).
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include "../../lib/hist.h"
#include "suites.h"

/* iolat_hist_bin(): one row per edge of the bin layout. */
struct hist_bin_case {
	const char *desc;
	u64 value;
	unsigned int bin;
};

static const struct hist_bin_case hist_bin_cases[] = {
	{ "zero", 0, 0 },
	{ "one", 1, 1 },
	{ "last exact bin", 127, 127 },
	{ "first log-linear value", 128, 128 },
	{ "end of the first group", 255, 255 },
	{ "2^8 starts group 2", 256, 256 },
	{ "2^8+1 shares a width-2 bin", 257, 256 },
	{ "2^8+2 is the next bin", 258, 257 },
	{ "1 ms: group 13, sub-bin 116", 1000000, 13 * 128 + 116 },
	{ "2^35 starts the last group", 1ULL << 35, 29 * 128 },
	{ "largest value in range", (1ULL << 36) - 1, IOLAT_HIST_NR_BINS - 1 },
	{ "2^36 overflows", 1ULL << 36, IOLAT_HIST_NR_BINS },
	{ "U64_MAX overflows", U64_MAX, IOLAT_HIST_NR_BINS },
};

static void hist_bin_case_desc(const struct hist_bin_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hist_bin, hist_bin_cases, hist_bin_case_desc);

static void iolat_hist_bin_test(struct kunit *test)
{
	const struct hist_bin_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, iolat_hist_bin(c->value), c->bin);
}

/* Every bin: contiguous with the next, its bounds map back to it, and no
 * wider than 1/128 of its lower bound.
 */
static void iolat_hist_bounds_test(struct kunit *test)
{
	unsigned int b;

	for (b = 0; b < IOLAT_HIST_NR_BINS; b++) {
		u64 lo = iolat_hist_bin_lo(b), hi = iolat_hist_bin_hi(b);

		KUNIT_ASSERT_LT(test, lo, hi);
		KUNIT_ASSERT_EQ(test, iolat_hist_bin(lo), b);
		KUNIT_ASSERT_EQ(test, iolat_hist_bin(hi - 1), b);
		if (b + 1 < IOLAT_HIST_NR_BINS)
			KUNIT_ASSERT_EQ(test, hi, iolat_hist_bin_lo(b + 1));
		if (lo >= IOLAT_HIST_SUB)
			KUNIT_ASSERT_LE(test, (hi - lo) * IOLAT_HIST_SUB, lo);
	}
	KUNIT_EXPECT_EQ(test, iolat_hist_bin_hi(IOLAT_HIST_NR_BINS - 1),
			1ULL << IOLAT_HIST_MAX_SHIFT);
}

/* Percentiles of 1..100000 ns: within 0.4% of the exact rank value. */
static void iolat_hist_percentile_test(struct kunit *test)
{
	static const u32 ppms[] = { 1, 500000, 900000, 990000, 999000,
				    999900, 1000000 };
	struct iolat_hist *h;
	unsigned int i;
	u64 v;

	h = vmalloc(sizeof(*h));
	KUNIT_ASSERT_NOT_NULL(test, h);
	iolat_hist_init(h);
	KUNIT_EXPECT_EQ(test, iolat_hist_percentile(h, 500000), 0ULL);
	for (v = 1; v <= 100000; v++)
		iolat_hist_add(h, v);
	KUNIT_EXPECT_EQ(test, h->count, 100000ULL);
	KUNIT_EXPECT_EQ(test, h->min, 1ULL);
	KUNIT_EXPECT_EQ(test, h->max, 100000ULL);
	KUNIT_EXPECT_EQ(test, h->overflow, 0ULL);
	for (i = 0; i < ARRAY_SIZE(ppms); i++) {
		u64 exact = DIV_ROUND_UP_ULL(100000ULL * ppms[i], 1000000);
		u64 got = iolat_hist_percentile(h, ppms[i]);
		u64 diff = got > exact ? got - exact : exact - got;

		KUNIT_EXPECT_LE_MSG(test, diff * 1000, exact * 4,
				    "ppm %u: got %llu, exact %llu", ppms[i],
				    got, exact);
	}
	vfree(h);
}

/* Merging two histograms equals adding all values to one. */
static void iolat_hist_merge_test(struct kunit *test)
{
	struct iolat_hist *a, *b, *all;
	u64 v;

	a = vmalloc(sizeof(*a));
	b = vmalloc(sizeof(*b));
	all = vmalloc(sizeof(*all));
	KUNIT_ASSERT_TRUE(test, a && b && all);
	iolat_hist_init(a);
	iolat_hist_init(b);
	iolat_hist_init(all);
	for (v = 0; v < 5000; v++) {
		u64 x = v * v * 7919 + (v << 37) * (v % 3 == 0);

		iolat_hist_add(v & 1 ? a : b, x);
		iolat_hist_add(all, x);
	}
	iolat_hist_merge(a, b);
	KUNIT_EXPECT_EQ(test, a->count, all->count);
	KUNIT_EXPECT_EQ(test, a->sum, all->sum);
	KUNIT_EXPECT_EQ(test, a->min, all->min);
	KUNIT_EXPECT_EQ(test, a->max, all->max);
	KUNIT_EXPECT_EQ(test, a->overflow, all->overflow);
	KUNIT_EXPECT_GT(test, all->overflow, 0ULL);
	KUNIT_EXPECT_EQ(test, memcmp(a->bins, all->bins, sizeof(a->bins)), 0);
	vfree(a);
	vfree(b);
	vfree(all);
}

/*
 * The module's coarse bins: contiguous, 201 of them from 0 to 2^35 ns,
 * each at most 1/8 of its lower edge wide above 1024 ns (one below), so
 * that the fine bin their count goes to is within 6.25% of every value
 * in them; twelve of a CPU's and its counters within 24 KiB, in pages.
 */
static void iolat_agg_hist_test(struct kunit *test)
{
	struct iolat_agg_hist *h;
	unsigned int b, f;
	u64 lo, hi, mid;

	KUNIT_EXPECT_EQ(test, IOLAT_AGG_HIST_NR_BINS, 201U);
	KUNIT_EXPECT_LE(test, PAGE_ALIGN(12 * sizeof(struct iolat_agg_hist) +
					 96) + 2048, (size_t)24 * 1024);
	KUNIT_EXPECT_EQ(test, iolat_agg_hist_bin(0), 0U);
	KUNIT_EXPECT_EQ(test, iolat_agg_hist_bin(1023), 0U);
	KUNIT_EXPECT_EQ(test, iolat_agg_hist_bin(1024), 1U);
	KUNIT_EXPECT_EQ(test, iolat_agg_hist_bin(1151), 1U);
	KUNIT_EXPECT_EQ(test, iolat_agg_hist_bin(1152), 2U);
	KUNIT_EXPECT_EQ(test, iolat_agg_hist_bin((1ULL << 35) - 1), 200U);
	KUNIT_EXPECT_EQ(test, iolat_agg_hist_bin(1ULL << 35), 201U);
	for (b = 0; b < IOLAT_AGG_HIST_NR_BINS; b++) {
		lo = iolat_agg_hist_bin_lo(b);
		hi = iolat_agg_hist_bin_hi(b);
		KUNIT_ASSERT_LT(test, lo, hi);
		KUNIT_ASSERT_EQ(test, iolat_agg_hist_bin(lo), b);
		KUNIT_ASSERT_EQ(test, iolat_agg_hist_bin(hi - 1), b);
		if (b + 1 < IOLAT_AGG_HIST_NR_BINS)
			KUNIT_ASSERT_EQ(test, hi, iolat_agg_hist_bin_lo(b + 1));
		if (b)
			KUNIT_ASSERT_LE(test, (hi - lo) * 8, lo);
		/* the fine bin of its count: inside it, its midpoint near */
		f = iolat_agg_hist_fine_bin(b);
		mid = (iolat_hist_bin_lo(f) + iolat_hist_bin_hi(f)) / 2;
		KUNIT_ASSERT_GE(test, iolat_hist_bin_lo(f), lo);
		KUNIT_ASSERT_LE(test, iolat_hist_bin_hi(f), hi);
		if (b) {
			KUNIT_ASSERT_LE(test, (mid - lo) * 16, lo + lo / 8);
			KUNIT_ASSERT_LE(test, (hi - 1 - mid) * 16, hi - 1);
		}
	}
	KUNIT_EXPECT_EQ(test, iolat_agg_hist_bin_hi(IOLAT_AGG_HIST_NR_BINS - 1),
			1ULL << IOLAT_AGG_HIST_MAX_SHIFT);
	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	iolat_agg_hist_init(h);
	iolat_agg_hist_add(h, 100000);
	iolat_agg_hist_add(h, 1ULL << 35);
	KUNIT_EXPECT_EQ(test, h->count, 2ULL);
	KUNIT_EXPECT_EQ(test, h->overflow, 1ULL);
	KUNIT_EXPECT_EQ(test, h->min, 100000ULL);
	KUNIT_EXPECT_EQ(test, h->max, 1ULL << 35);
	KUNIT_EXPECT_EQ(test, h->bins[iolat_agg_hist_bin(100000)], 1ULL);
}

static struct kunit_case iolat_hist_cases[] = {
	KUNIT_CASE_PARAM(iolat_hist_bin_test, hist_bin_gen_params),
	KUNIT_CASE(iolat_hist_bounds_test),
	KUNIT_CASE(iolat_hist_percentile_test),
	KUNIT_CASE(iolat_hist_merge_test),
	KUNIT_CASE(iolat_agg_hist_test),
	{}
};

struct kunit_suite iolat_hist_suite = {
	.name = "iolat_hist",
	.test_cases = iolat_hist_cases,
};
