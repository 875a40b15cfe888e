// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of lib/hist.c (the histogram the module and the CLI
 * share), on kselftest_harness.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../lib/hist.h"
#include "kselftest_harness.h"

#define N_SAMPLES 1000000

static uint64_t rng_state = 88172645463325252ULL;

static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

enum dist { LOGNORMAL, BIMODAL, HEAVY_TAIL };

/* Latencies in ns: ~100 us log-normal; 20 us / 2 ms modes; Pareto to 30 s. */
static uint64_t sample(enum dist d)
{
	double x;

	switch (d) {
	case LOGNORMAL:
		x = exp(log(100e3) + 0.8 * normal());
		break;
	case BIMODAL:
		x = uniform() < 0.7 ? exp(log(20e3) + 0.2 * normal()) :
				      exp(log(2e6) + 0.3 * normal());
		break;
	default:
		x = 50e3 / pow(uniform(), 1 / 1.1);
		if (x > 30e9)
			x = 30e9;
		break;
	}
	return (uint64_t)x + 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

FIXTURE(accuracy) {
	uint64_t *v;
	struct iolat_hist *h;
};

FIXTURE_VARIANT(accuracy) {
	enum dist dist;
};

FIXTURE_VARIANT_ADD(accuracy, lognormal) { .dist = LOGNORMAL };
FIXTURE_VARIANT_ADD(accuracy, bimodal) { .dist = BIMODAL };
FIXTURE_VARIANT_ADD(accuracy, heavy_tail_to_30s) { .dist = HEAVY_TAIL };

FIXTURE_SETUP(accuracy)
{
	size_t i;

	self->v = malloc(N_SAMPLES * sizeof(*self->v));
	self->h = malloc(sizeof(*self->h));
	ASSERT_TRUE(self->v && self->h);
	iolat_hist_init(self->h);
	for (i = 0; i < N_SAMPLES; i++) {
		self->v[i] = sample(variant->dist);
		iolat_hist_add(self->h, self->v[i]);
	}
	qsort(self->v, N_SAMPLES, sizeof(*self->v), cmp_u64);
}

FIXTURE_TEARDOWN(accuracy)
{
	free(self->v);
	free(self->h);
}

/* Every percentile within 0.4% of the exact sorted-sample value. */
TEST_F(accuracy, percentiles_within_0_4_percent)
{
	static const uint32_t ppm[] = { 1, 10000, 100000, 250000, 500000,
					750000, 900000, 990000, 999000, 999900,
					999990, 1000000 };
	size_t i;

	EXPECT_EQ(N_SAMPLES, self->h->count);
	EXPECT_EQ(self->v[0], self->h->min);
	EXPECT_EQ(self->v[N_SAMPLES - 1], self->h->max);
	for (i = 0; i < sizeof(ppm) / sizeof(ppm[0]); i++) {
		uint64_t rank = ((uint64_t)N_SAMPLES * ppm[i] + 999999) / 1000000;
		uint64_t exact = self->v[(rank ? rank : 1) - 1];
		uint64_t got = iolat_hist_percentile(self->h, ppm[i]);
		double err = fabs((double)got - (double)exact) / exact;

		EXPECT_LE(err, 0.004)
			TH_LOG("ppm %u: got %llu, exact %llu, error %.4f%%",
			       ppm[i], (unsigned long long)got,
			       (unsigned long long)exact, err * 100);
	}
}

/*
 * The module's coarse histogram (struct iolat_agg_hist) of the same
 * samples, each bin's count put in the fine bin of its midpoint as the
 * module's sum does (kmod/agg.c): every percentile within 6.25% (the
 * samples are all above its first bin's 1.02 us), and every Prometheus
 * bucket (four bounds per power of two from 2^10 ns, user/out/out_prom.c)
 * the same as the fine histogram's, bound for bound.
 */
TEST_F(accuracy, module_bins_within_6_25_percent_and_buckets_exact)
{
	static const uint32_t ppm[] = { 1, 10000, 500000, 900000, 990000,
					999000, 999990, 1000000 };
	struct iolat_agg_hist *c = malloc(sizeof(*c));
	struct iolat_hist *f = malloc(sizeof(*f));
	uint64_t below_fine, below_folded, b;
	unsigned int i, e, j, fb;
	size_t k;

	ASSERT_TRUE(c && f);
	iolat_agg_hist_init(c);
	iolat_hist_init(f);
	for (k = 0; k < N_SAMPLES; k++)
		iolat_agg_hist_add(c, self->v[k]);
	for (i = 0; i < IOLAT_AGG_HIST_NR_BINS; i++)
		f->bins[iolat_agg_hist_fine_bin(i)] += c->bins[i];
	f->count = c->count;
	f->sum = c->sum;
	f->min = c->min;
	f->max = c->max;
	f->overflow = c->overflow;
	EXPECT_EQ(self->h->count, f->count);
	EXPECT_EQ(self->h->sum, f->sum);
	for (i = 0; i < sizeof(ppm) / sizeof(ppm[0]); i++) {
		uint64_t rank = ((uint64_t)N_SAMPLES * ppm[i] + 999999) / 1000000;
		uint64_t exact = self->v[(rank ? rank : 1) - 1];
		uint64_t got = iolat_hist_percentile(f, ppm[i]);
		double err = fabs((double)got - (double)exact) / exact;

		EXPECT_LE(err, 0.0625)
			TH_LOG("ppm %u: got %llu, exact %llu, error %.2f%%",
			       ppm[i], (unsigned long long)got,
			       (unsigned long long)exact, err * 100);
	}
	for (e = IOLAT_AGG_HIST_MIN_SHIFT; e < IOLAT_AGG_HIST_MAX_SHIFT; e++) {
		for (j = 0; j < 4; j++) {
			b = (1ULL << e) + ((uint64_t)j << (e - 2));
			below_fine = 0;
			below_folded = 0;
			for (fb = 0; fb < IOLAT_HIST_NR_BINS &&
				     iolat_hist_bin_lo(fb) < b; fb++) {
				below_fine += self->h->bins[fb];
				below_folded += f->bins[fb];
			}
			ASSERT_EQ(below_fine, below_folded)
				TH_LOG("bound %llu ns", (unsigned long long)b);
		}
	}
	free(c);
	free(f);
}

/* Mean and standard deviation from the exact sums, as two passes give. */
TEST_F(accuracy, mean_and_stddev_exact)
{
	long double sum = 0, dev = 0, mean, sd;
	size_t i;

	for (i = 0; i < N_SAMPLES; i++)
		sum += self->v[i];
	mean = sum / N_SAMPLES;
	for (i = 0; i < N_SAMPLES; i++)
		dev += (self->v[i] - mean) * (self->v[i] - mean);
	sd = sqrtl(dev / N_SAMPLES);
	EXPECT_GE(1e-9, fabsl(iolat_hist_mean(self->h) - mean) / mean);
	EXPECT_GE(1e-6, fabsl(iolat_hist_stddev(self->h) - sd) / sd)
		TH_LOG("stddev %.3f, two passes %.3Lf", iolat_hist_stddev(self->h),
		       sd);
}

/* A narrow spread far from zero: the sums keep it. */
TEST(stddev_narrow_spread)
{
	struct iolat_hist *h = malloc(sizeof(*h));
	unsigned int i;

	ASSERT_NE(NULL, h);
	iolat_hist_init(h);
	for (i = 0; i < 1000; i++)
		iolat_hist_add(h, 10000000000ULL + (i % 2 ? 100 : -100));
	EXPECT_GE(1e-6, fabs(iolat_hist_stddev(h) - 100) / 100)
		TH_LOG("stddev %.6f", iolat_hist_stddev(h));
	free(h);
}

/* Per-CPU histograms merged equal the histogram of all samples. */
TEST_F(accuracy, merge_equals_whole)
{
	struct iolat_hist *cpu = calloc(4, sizeof(*cpu)), *sum = malloc(sizeof(*sum));
	size_t i;

	ASSERT_TRUE(cpu && sum);
	for (i = 0; i < 4; i++)
		iolat_hist_init(&cpu[i]);
	iolat_hist_init(sum);
	for (i = 0; i < N_SAMPLES; i++)
		iolat_hist_add(&cpu[(self->v[i] * 2654435761u >> 7) % 4],
			       self->v[i]);
	for (i = 0; i < 4; i++)
		iolat_hist_merge(sum, &cpu[i]);
	EXPECT_EQ(0, memcmp(sum, self->h, sizeof(*sum)));
	free(cpu);
	free(sum);
}

/*
 * An interval's histogram from two cumulative readings (what the CLI does
 * with an aggregating session's histograms) equals the histogram of the
 * interval's own samples: counts, sums and bins exactly, min and max to
 * within their bin.
 */
TEST_F(accuracy, diff_of_readings_equals_interval)
{
	struct iolat_hist *before = malloc(sizeof(*before));
	struct iolat_hist *now = malloc(sizeof(*now));
	struct iolat_hist *ival = malloc(sizeof(*ival));
	struct iolat_hist *d = malloc(sizeof(*d));
	size_t i;

	ASSERT_TRUE(before && now && ival && d);
	iolat_hist_init(before);
	iolat_hist_init(ival);
	for (i = 0; i < N_SAMPLES; i++)
		if ((self->v[i] * 2654435761u >> 9) % 3 == 0)
			iolat_hist_add(before, self->v[i]);
	memcpy(now, before, sizeof(*now));
	for (i = 0; i < N_SAMPLES; i++) {
		if ((self->v[i] * 2654435761u >> 9) % 3 != 0) {
			iolat_hist_add(now, self->v[i]);
			iolat_hist_add(ival, self->v[i]);
		}
	}
	iolat_hist_diff(d, now, before);
	EXPECT_EQ(ival->count, d->count);
	EXPECT_EQ(ival->sum, d->sum);
	EXPECT_EQ(ival->overflow, d->overflow);
	EXPECT_EQ(ival->sumsq_lo, d->sumsq_lo);
	EXPECT_EQ(ival->sumsq_hi, d->sumsq_hi);
	EXPECT_EQ(0, memcmp(ival->bins, d->bins, sizeof(d->bins)));
	EXPECT_EQ(iolat_hist_bin(ival->min), iolat_hist_bin(d->min));
	EXPECT_EQ(iolat_hist_bin(ival->max), iolat_hist_bin(d->max));
	/* nothing added: an empty interval */
	iolat_hist_diff(d, now, now);
	EXPECT_EQ(0, d->count);
	EXPECT_EQ(0, iolat_hist_percentile(d, 500000));
	free(before);
	free(now);
	free(ival);
	free(d);
}

/* Values past the range are counted, never clamped into a bin. */
TEST(overflow_is_counted)
{
	struct iolat_hist *h = malloc(sizeof(*h));
	uint64_t in_bins = 0;
	unsigned int i;

	ASSERT_NE(NULL, h);
	iolat_hist_init(h);
	iolat_hist_add(h, 1000);
	iolat_hist_add(h, 60ULL * 1000000000);		/* 60 s: in range */
	iolat_hist_add(h, 1ULL << 36);			/* 68.7 s: overflow */
	iolat_hist_add(h, 3600ULL * 1000000000);	/* 1 h: overflow */
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++)
		in_bins += h->bins[i];
	EXPECT_EQ(2, in_bins);
	EXPECT_EQ(2, h->overflow);
	EXPECT_EQ(4, h->count);
	EXPECT_EQ(3600ULL * 1000000000, iolat_hist_percentile(h, 1000000));
	/* the midpoint of 1000's bin, [1000, 1004) */
	EXPECT_EQ(1002, iolat_hist_percentile(h, 250000));
	free(h);
}

TEST_HARNESS_MAIN
