// SPDX-License-Identifier: GPL-2.0
/*
 * Log-linear latency histogram; see hist.h.
 */
#include "hist.h"

static unsigned int iolat_fls64(__u64 v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/**
 * iolat_hist_bin() - bin index of a value
 * @v: value, in nanoseconds
 *
 * Return: the bin holding @v, or IOLAT_HIST_NR_BINS if @v overflows.
 */
unsigned int iolat_hist_bin(__u64 v)
{
	unsigned int msb, group;

	if (v < IOLAT_HIST_SUB)
		return v;
	msb = iolat_fls64(v) - 1;
	if (msb >= IOLAT_HIST_MAX_SHIFT)
		return IOLAT_HIST_NR_BINS;
	group = msb - IOLAT_HIST_SUB_BITS + 1;
	return group * IOLAT_HIST_SUB +
	       ((v >> (msb - IOLAT_HIST_SUB_BITS)) & (IOLAT_HIST_SUB - 1));
}

/**
 * iolat_hist_bin_lo() - smallest value of a bin
 * @bin: bin index, below IOLAT_HIST_NR_BINS
 */
__u64 iolat_hist_bin_lo(unsigned int bin)
{
	unsigned int group = bin / IOLAT_HIST_SUB;
	__u64 sub = bin % IOLAT_HIST_SUB;

	if (!group)
		return sub;
	return (IOLAT_HIST_SUB + sub) << (group - 1);
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

void iolat_hist_init(struct iolat_hist *h)
{
	unsigned int i;

	h->count = 0;
	h->sum = 0;
	h->min = ~0ULL;
	h->max = 0;
	h->overflow = 0;
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++)
		h->bins[i] = 0;
}

void iolat_hist_add(struct iolat_hist *h, __u64 v)
{
	unsigned int bin = iolat_hist_bin(v);

	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (bin < IOLAT_HIST_NR_BINS)
		h->bins[bin]++;
	else
		h->overflow++;
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
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++)
		dst->bins[i] += src->bins[i];
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
