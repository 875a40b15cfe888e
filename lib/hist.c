// SPDX-License-Identifier: GPL-2.0
/*
 * Log-linear latency histogram; see hist.h.
 */
#include "hist.h"

/**
 * iolat_hist_bin() - bin index of a value
 * @v: value, in nanoseconds
 *
 * Return: the bin holding @v, or IOLAT_HIST_NR_BINS if @v overflows.
 */
unsigned int iolat_hist_bin(__u64 v)
{
	return __iolat_hist_bin(v);
}

/**
 * iolat_hist_bin_lo() - smallest value of a bin
 * @bin: bin index, below IOLAT_HIST_NR_BINS
 */
__u64 iolat_hist_bin_lo(unsigned int bin)
{
	return iolat_loglin_lo(bin, IOLAT_HIST_SUB_BITS);
}

/**
 * iolat_hist_bin_hi() - one past the largest value of a bin
 * @bin: bin index, below IOLAT_HIST_NR_BINS
 */
__u64 iolat_hist_bin_hi(unsigned int bin)
{
	unsigned int group = bin / IOLAT_HIST_SUB;

	return iolat_hist_bin_lo(bin) + (group ? 1ULL << (group - 1) : 1);
}

/* Empty histogram @h, a struct iolat_hist or iolat_agg_hist, of @nr bins. */
#define __iolat_hist_reset(h, nr)					\
	do {								\
		unsigned int __i;					\
									\
		(h)->count = 0;						\
		(h)->sum = 0;						\
		(h)->min = ~0ULL;					\
		(h)->max = 0;						\
		(h)->overflow = 0;					\
		(h)->sumsq_lo = 0;					\
		(h)->sumsq_hi = 0;					\
		for (__i = 0; __i < (nr); __i++)			\
			(h)->bins[__i] = 0;				\
	} while (0)

void iolat_hist_init(struct iolat_hist *h)
{
	__iolat_hist_reset(h, IOLAT_HIST_NR_BINS);
}

void iolat_agg_hist_init(struct iolat_agg_hist *h)
{
	__iolat_hist_reset(h, IOLAT_AGG_HIST_NR_BINS);
}

/* smallest value of coarse bin @bin of 2^@sub per power of two, @fold */
static __u64 iolat_coarse_lo(unsigned int bin, unsigned int sub,
			     unsigned int fold)
{
	return bin ? iolat_loglin_lo(bin + fold - 1, sub) : 0;
}

/* one past its largest value */
static __u64 iolat_coarse_hi(unsigned int bin, unsigned int sub,
			     unsigned int fold)
{
	unsigned int group = (bin + fold - 1) >> sub;

	if (!bin)
		return 1ULL << IOLAT_AGG_HIST_MIN_SHIFT;
	return iolat_coarse_lo(bin, sub, fold) + (1ULL << (group - 1));
}

/* where its count goes in a struct iolat_hist: the fine bin of its midpoint */
static unsigned int iolat_coarse_fine_bin(unsigned int bin, unsigned int sub,
					  unsigned int fold)
{
	__u64 lo = iolat_coarse_lo(bin, sub, fold);

	return iolat_hist_bin(lo + (iolat_coarse_hi(bin, sub, fold) - lo) / 2);
}

/**
 * iolat_agg_hist_bin_lo() - smallest value of a coarse bin
 * @bin: bin index, below IOLAT_AGG_HIST_NR_BINS
 */
__u64 iolat_agg_hist_bin_lo(unsigned int bin)
{
	return iolat_coarse_lo(bin, IOLAT_AGG_HIST_SUB_BITS,
			       IOLAT_AGG_HIST_FOLD);
}

/**
 * iolat_agg_hist_bin_hi() - one past the largest value of a coarse bin
 * @bin: bin index, below IOLAT_AGG_HIST_NR_BINS
 */
__u64 iolat_agg_hist_bin_hi(unsigned int bin)
{
	return iolat_coarse_hi(bin, IOLAT_AGG_HIST_SUB_BITS,
			       IOLAT_AGG_HIST_FOLD);
}

/**
 * iolat_agg_hist_fine_bin() - where a coarse bin's count goes in a
 *	struct iolat_hist: the fine bin of its midpoint
 * @bin: bin index, below IOLAT_AGG_HIST_NR_BINS
 */
unsigned int iolat_agg_hist_fine_bin(unsigned int bin)
{
	return iolat_coarse_fine_bin(bin, IOLAT_AGG_HIST_SUB_BITS,
				     IOLAT_AGG_HIST_FOLD);
}

/* The same for a cgroup slot's bins, below IOLAT_CG_HIST_NR_BINS. */
__u64 iolat_cg_hist_bin_lo(unsigned int bin)
{
	return iolat_coarse_lo(bin, IOLAT_CG_HIST_SUB_BITS, IOLAT_CG_HIST_FOLD);
}

__u64 iolat_cg_hist_bin_hi(unsigned int bin)
{
	return iolat_coarse_hi(bin, IOLAT_CG_HIST_SUB_BITS, IOLAT_CG_HIST_FOLD);
}

unsigned int iolat_cg_hist_fine_bin(unsigned int bin)
{
	return iolat_coarse_fine_bin(bin, IOLAT_CG_HIST_SUB_BITS,
				     IOLAT_CG_HIST_FOLD);
}

void iolat_hist_merge(struct iolat_hist *dst, const struct iolat_hist *src)
{
	unsigned int i;

	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->overflow += src->overflow;
	iolat_add128(&dst->sumsq_hi, &dst->sumsq_lo, src->sumsq_hi,
		     src->sumsq_lo);
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++)
		dst->bins[i] += src->bins[i];
}

/**
 * iolat_hist_diff() - the values added to a histogram between two readings
 * @d: set to @now minus @before
 * @now: the later reading of a histogram that only grows
 * @before: the earlier reading
 *
 * Counts, sums and bins are exact.  The minimum is exact if it was set
 * between the readings, else it is the lower edge of the first bin that
 * grew (the maximum likewise, with the upper edge of the last), within
 * @now's own minimum and maximum: off by at most a bin's width.
 */
void iolat_hist_diff(struct iolat_hist *d, const struct iolat_hist *now,
		     const struct iolat_hist *before)
{
	unsigned int i, first = IOLAT_HIST_NR_BINS, last = 0;

	iolat_hist_init(d);
	d->count = now->count - before->count;
	d->sum = now->sum - before->sum;
	d->overflow = now->overflow - before->overflow;
	d->sumsq_lo = now->sumsq_lo - before->sumsq_lo;
	d->sumsq_hi = now->sumsq_hi - before->sumsq_hi -
		      (now->sumsq_lo < before->sumsq_lo);
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++) {
		d->bins[i] = now->bins[i] - before->bins[i];
		if (d->bins[i]) {
			if (first == IOLAT_HIST_NR_BINS)
				first = i;
			last = i;
		}
	}
	if (!d->count)
		return;
	if (now->min < before->min || first == IOLAT_HIST_NR_BINS)
		d->min = now->min;
	else
		d->min = iolat_hist_bin_lo(first) > now->min ?
			 iolat_hist_bin_lo(first) : now->min;
	if (now->max > before->max || d->overflow)
		d->max = now->max;
	else
		d->max = iolat_hist_bin_hi(last) - 1 < now->max ?
			 iolat_hist_bin_hi(last) - 1 : now->max;
}

/**
 * iolat_hist_percentile() - value at a percentile
 * @h: histogram
 * @ppm: percentile in parts per million (p99.9 is 999000)
 *
 * The value of rank ceil(count * ppm / 10^6) (at least rank 1) in sorted
 * order, estimated as the midpoint of its bin and kept within the
 * observed [min, max].  A rank that falls among the overflowed values
 * returns max, which is exact for the largest one.
 *
 * Return: the value, or 0 for an empty histogram.
 */
__u64 iolat_hist_percentile(const struct iolat_hist *h, __u32 ppm)
{
	__u64 rank, seen = 0, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (ppm > 1000000)
		ppm = 1000000;
	/* count < 2^44 keeps count * ppm below 2^64 */
	rank = (h->count * ppm + 999999) / 1000000;
	if (!rank)
		rank = 1;
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++) {
		seen += h->bins[i];
		if (seen >= rank)
			break;
	}
	if (i == IOLAT_HIST_NR_BINS)
		return h->max;
	v = iolat_hist_bin_lo(i) +
	    (iolat_hist_bin_hi(i) - iolat_hist_bin_lo(i)) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

#ifndef __KERNEL__
#include <math.h>

double iolat_hist_mean(const struct iolat_hist *h)
{
	return h->count ? (double)h->sum / h->count : 0;
}

/* Population standard deviation, from the exact sums. */
double iolat_hist_stddev(const struct iolat_hist *h)
{
	long double n = h->count, sq, mean, var;

	if (!h->count)
		return 0;
	sq = ldexpl(h->sumsq_hi, 64) + h->sumsq_lo;
	mean = h->sum / n;
	var = sq / n - mean * mean;
	return var > 0 ? sqrtl(var) : 0;
}
#endif
