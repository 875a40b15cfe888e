/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histogram, shared by the module, the KUnit suite and
 * the CLI (no kernel or libc dependencies beyond <linux/types.h>).
 *
 * Values below 2^IOLAT_HIST_SUB_BITS have a bin each.  Above that, every
 * power of two [2^k, 2^(k+1)) is split into 2^IOLAT_HIST_SUB_BITS equal
 * bins, so a bin is at most 1/128 of its lower bound wide and its midpoint
 * is within 0.39% of any value in it.  Values of 2^IOLAT_HIST_MAX_SHIFT ns
 * (68.7 s) and above are counted in 'overflow', never clamped into a bin.
 * Histograms merge exactly by adding bins.  The sum of the squares is
 * kept exactly in 128 bits for the standard deviation.  One histogram
 * is 56 + 8 * IOLAT_HIST_NR_BINS = 30 776 bytes.  The module's own
 * per-CPU histograms are coarser (struct iolat_agg_hist, below).
 */
#ifndef _IOLAT_LIB_HIST_H
#define _IOLAT_LIB_HIST_H

#include <linux/types.h>
#include "loglin.h"

#define IOLAT_HIST_SUB_BITS	7
#define IOLAT_HIST_SUB		(1U << IOLAT_HIST_SUB_BITS)
#define IOLAT_HIST_MAX_SHIFT	36
#define IOLAT_HIST_NR_BINS \
	((IOLAT_HIST_MAX_SHIFT - IOLAT_HIST_SUB_BITS + 1) * IOLAT_HIST_SUB)

struct iolat_hist {
	__u64 count;		/* all values, overflow included */
	__u64 sum;
	__u64 min;
	__u64 max;
	__u64 overflow;		/* values >= 2^IOLAT_HIST_MAX_SHIFT */
	__u64 sumsq_lo;		/* sum of the squares, 128 bits */
	__u64 sumsq_hi;
	__u64 bins[IOLAT_HIST_NR_BINS];
};

unsigned int iolat_hist_bin(__u64 v);
__u64 iolat_hist_bin_lo(unsigned int bin);
__u64 iolat_hist_bin_hi(unsigned int bin);

void iolat_hist_init(struct iolat_hist *h);

/* the bin of @v, or IOLAT_HIST_NR_BINS if it overflows */
static inline unsigned int __iolat_hist_bin(__u64 v)
{
	if (v >= 1ULL << IOLAT_HIST_MAX_SHIFT)
		return IOLAT_HIST_NR_BINS;
	return iolat_loglin_bin(v, IOLAT_HIST_SUB_BITS);
}

/* (*hi, *lo) += (ahi, alo), 128 bits */
static inline void iolat_add128(__u64 *hi, __u64 *lo, __u64 ahi, __u64 alo)
{
	*lo += alo;
	*hi += ahi + (*lo < alo);
}

/* *@hi:*@lo += @v squared, 128 bits */
static inline void iolat_add_square(__u64 *hi, __u64 *lo, __u64 v)
{
#ifdef __SIZEOF_INT128__
	__uint128_t sq = (__uint128_t)v * v;

	iolat_add128(hi, lo, (__u64)(sq >> 64), (__u64)sq);
#else
	__u64 a = v >> 32, b = v & 0xffffffffULL;

	/* v^2 = a^2 << 64 + 2ab << 32 + b^2 */
	iolat_add128(hi, lo, a * a, b * b);
	iolat_add128(hi, lo, (a * b) >> 31, (a * b) << 33);
#endif
}

/*
 * Add @v to histogram @h, a struct iolat_hist or struct iolat_agg_hist:
 * the sums, and @bin's count (@bin: an expression of @v's bin, evaluated
 * only below 2^@max_shift) or the overflow.  The overflow is tested once,
 * not in a bin function and again before the count: four instructions
 * of some thirty, six times a record in the CLI.
 */
#define __iolat_hist_account(h, v, max_shift, bin)			\
	do {								\
		iolat_add_square(&(h)->sumsq_hi, &(h)->sumsq_lo, (v));	\
		(h)->count++;						\
		(h)->sum += (v);					\
		if ((v) < (h)->min)					\
			(h)->min = (v);					\
		if ((v) > (h)->max)					\
			(h)->max = (v);					\
		if (__builtin_expect((v) < 1ULL << (max_shift), 1))	\
			(h)->bins[bin]++;				\
		else							\
			(h)->overflow++;				\
	} while (0)

/*
 * Add @v to @h.  Inline: the module's completion probe adds each
 * request to two histograms (Q2C, D2C), and a call each cost it about
 * eight instructions of its own.
 */
static inline void iolat_hist_add(struct iolat_hist *h, __u64 v)
{
	__iolat_hist_account(h, v, IOLAT_HIST_MAX_SHIFT,
			     iolat_loglin_bin(v, IOLAT_HIST_SUB_BITS));
}

#ifndef __KERNEL__
/*
 * Add the @n values at @v to @h, as @n calls of iolat_hist_add() would:
 * the CLI's analysis of a run of records (analyze.c), one histogram at a
 * time, its sums, extremes and squares in registers for the whole run.
 */
static inline void iolat_hist_add_many(struct iolat_hist *h, const __u64 *v,
				       unsigned int n)
{
	__u64 sum = h->sum, min = h->min, max = h->max, over = 0;
	__u64 hi = h->sumsq_hi, lo = h->sumsq_lo;
	unsigned int i;
#ifdef __SIZEOF_INT128__
	/* the squares' sum in one 128-bit register pair: mul, add, adc */
	__uint128_t sq = (__uint128_t)hi << 64 | lo;
#endif

	for (i = 0; i < n; i++) {
		__u64 x = v[i];

#ifdef __SIZEOF_INT128__
		sq += (__uint128_t)x * x;
#else
		iolat_add_square(&hi, &lo, x);
#endif
		sum += x;
		min = x < min ? x : min;
		max = x > max ? x : max;
		if (__builtin_expect(x < 1ULL << IOLAT_HIST_MAX_SHIFT, 1))
			h->bins[iolat_loglin_bin(x, IOLAT_HIST_SUB_BITS)]++;
		else
			over++;
	}
#ifdef __SIZEOF_INT128__
	hi = (__u64)(sq >> 64);
	lo = (__u64)sq;
#endif
	h->count += n;
	h->sum = sum;
	h->min = min;
	h->max = max;
	h->overflow += over;
	h->sumsq_hi = hi;
	h->sumsq_lo = lo;
}
#endif

/*
 * The module's per-CPU histograms (kmod/agg.c) are coarser, so that a
 * CPU's twelve of a device (six ops, two stages) and its counters take
 * less than 24 KiB: 8 bins per power of two from 1.02 us (2^10 ns) to
 * 34.4 s (2^35 ns), each at most 1/8 of its lower edge wide, one bin
 * below; 201 bins, 1664 bytes a histogram.  Values of 2^35 ns and more
 * are counted in overflow.  The module sums them into a struct iolat_hist
 * for the reader, each bin's count in the bin above of its midpoint,
 * which is within 1/16 = 6.25% of every value in it; the count, sum,
 * min, max, overflow and squares stay exact.
 */
#define IOLAT_AGG_HIST_SUB_BITS		3
#define IOLAT_AGG_HIST_MIN_SHIFT	10
#define IOLAT_AGG_HIST_MAX_SHIFT	35
/* iolat_loglin_bin()'s bins below 2^IOLAT_AGG_HIST_MIN_SHIFT: bin 0 */
#define IOLAT_AGG_HIST_FOLD \
	((IOLAT_AGG_HIST_MIN_SHIFT - IOLAT_AGG_HIST_SUB_BITS + 1) << \
	 IOLAT_AGG_HIST_SUB_BITS)
#define IOLAT_AGG_HIST_NR_BINS \
	((IOLAT_AGG_HIST_MAX_SHIFT - IOLAT_AGG_HIST_SUB_BITS + 1) * \
	 (1U << IOLAT_AGG_HIST_SUB_BITS) - IOLAT_AGG_HIST_FOLD + 1)

struct iolat_agg_hist {
	__u64 count;		/* as struct iolat_hist's */
	__u64 sum;
	__u64 min;
	__u64 max;
	__u64 overflow;
	__u64 sumsq_lo;
	__u64 sumsq_hi;
	__u64 bins[IOLAT_AGG_HIST_NR_BINS];
};

/*
 * The coarse bin of @v with 2^@sub bins per power of two from
 * 2^IOLAT_AGG_HIST_MIN_SHIFT ns (one below, @fold of iolat_loglin_bin()'s
 * folded into it) to 2^IOLAT_AGG_HIST_MAX_SHIFT ns, for @v below 2^IOLAT_AGG_HIST_MAX_SHIFT only.
 */
static inline unsigned int iolat_coarse_bin_in(__u64 v, unsigned int sub,
					       unsigned int fold)
{
	unsigned int bin = iolat_loglin_bin(v, sub);

	return bin < fold ? 0 : bin - fold + 1;
}

/* The same, or @nr if @v overflows. */
static inline unsigned int iolat_coarse_bin(__u64 v, unsigned int sub,
					    unsigned int fold, unsigned int nr)
{
	if (v >= 1ULL << IOLAT_AGG_HIST_MAX_SHIFT)
		return nr;
	return iolat_coarse_bin_in(v, sub, fold);
}

/* the coarse bin of @v, or IOLAT_AGG_HIST_NR_BINS if it overflows */
static inline unsigned int iolat_agg_hist_bin(__u64 v)
{
	return iolat_coarse_bin(v, IOLAT_AGG_HIST_SUB_BITS,
				IOLAT_AGG_HIST_FOLD, IOLAT_AGG_HIST_NR_BINS);
}

/*
 * A cgroup slot's histogram (kmod/cgstat.c): one per CPU, device and
 * cgroup, so smaller still: 4 bins per power of two over the same range
 * (the Prometheus buckets' edges, prom_buckets.c), 101 bins, and only
 * the sum beside them; its count is the bins' and the overflow's.
 */
#define IOLAT_CG_HIST_SUB_BITS	2
#define IOLAT_CG_HIST_FOLD \
	((IOLAT_AGG_HIST_MIN_SHIFT - IOLAT_CG_HIST_SUB_BITS + 1) << \
	 IOLAT_CG_HIST_SUB_BITS)
#define IOLAT_CG_HIST_NR_BINS \
	((IOLAT_AGG_HIST_MAX_SHIFT - IOLAT_CG_HIST_SUB_BITS + 1) * \
	 (1U << IOLAT_CG_HIST_SUB_BITS) - IOLAT_CG_HIST_FOLD + 1)

struct iolat_cg_hist {
	__u64 sum;
	__u64 overflow;
	__u64 bins[IOLAT_CG_HIST_NR_BINS];
};

static inline void iolat_cg_hist_add(struct iolat_cg_hist *h, __u64 v)
{
	h->sum += v;
	if (__builtin_expect(v < 1ULL << IOLAT_AGG_HIST_MAX_SHIFT, 1))
		h->bins[iolat_coarse_bin_in(v, IOLAT_CG_HIST_SUB_BITS,
					    IOLAT_CG_HIST_FOLD)]++;
	else
		h->overflow++;
}

static inline void iolat_agg_hist_add(struct iolat_agg_hist *h, __u64 v)
{
	__iolat_hist_account(h, v, IOLAT_AGG_HIST_MAX_SHIFT,
			     iolat_coarse_bin_in(v, IOLAT_AGG_HIST_SUB_BITS,
						 IOLAT_AGG_HIST_FOLD));
}

void iolat_agg_hist_init(struct iolat_agg_hist *h);
__u64 iolat_agg_hist_bin_lo(unsigned int bin);
__u64 iolat_agg_hist_bin_hi(unsigned int bin);
unsigned int iolat_agg_hist_fine_bin(unsigned int bin);
__u64 iolat_cg_hist_bin_lo(unsigned int bin);
__u64 iolat_cg_hist_bin_hi(unsigned int bin);
unsigned int iolat_cg_hist_fine_bin(unsigned int bin);

void iolat_hist_merge(struct iolat_hist *dst, const struct iolat_hist *src);
void iolat_hist_diff(struct iolat_hist *d, const struct iolat_hist *now,
		     const struct iolat_hist *before);
__u64 iolat_hist_percentile(const struct iolat_hist *h, __u32 ppm);
#ifndef __KERNEL__
/* floating point: user space only */
double iolat_hist_mean(const struct iolat_hist *h);
double iolat_hist_stddev(const struct iolat_hist *h);
#endif

#endif /* _IOLAT_LIB_HIST_H */
