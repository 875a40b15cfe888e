// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition's buckets (expo.h) from iolat's log-linear bins: the
 * classic ones' bounds, and the native ones.
 *
 * Native bucket i of schema s holds the values in (2^((i-1)/2^s), 2^(i/2^s)]
 * seconds.  iolat's bins split each power of two linearly, the native
 * buckets logarithmically, so their edges do not meet: each bin goes
 * whole to the bucket of its midpoint, the value that iolat's own
 * percentiles give for it, and a quantile Prometheus computes falls in
 * the same bucket as iolat's: they differ by at most that bucket's
 * width.
 */
#include <math.h>
#include <stdlib.h>
#include "out/expo.h"

/* The k-th bound of the classic buckets (out_prom.c): a bin's edge. */
uint64_t iolat_prom_bound(unsigned int k)
{
	unsigned int e = IOLAT_PROM_FIRST_EXP + k / 4;

	return (1ULL << e) + (k % 4) * (1ULL << (e - 2));
}

/**
 * iolat_prom_classic() - the classic buckets of a histogram
 * @h: the histogram, of nanoseconds
 * @step: every @step-th bound
 * @below: set to each bound's count of values below it, IOLAT_PROM_NR_BOUNDS at most
 *
 * Return: how many bounds.
 */
unsigned int iolat_prom_classic(const struct iolat_hist *h, unsigned int step,
				uint64_t below[])
{
	unsigned int bin = 0, k, n = 0;
	uint64_t sum = 0;

	for (k = 0; k < IOLAT_PROM_NR_BOUNDS; k += step) {
		uint64_t b = iolat_prom_bound(k);

		while (bin < IOLAT_HIST_NR_BINS && iolat_hist_bin_lo(bin) < b)
			sum += h->bins[bin++];
		below[n++] = sum;
	}
	return n;
}

const struct iolat_native_opts iolat_native_records = {
	.schema = IOLAT_HIST_SUB_BITS,
	.zero_ns = 2,
};

const struct iolat_native_opts iolat_native_module = {
	.schema = IOLAT_AGG_HIST_SUB_BITS,
	.zero_ns = 1ULL << IOLAT_AGG_HIST_MIN_SHIFT,
};

/* The upper edge of bucket @index of @schema, in seconds. */
double iolat_native_upper(int index, int schema)
{
	return exp2((double)index / (1 << schema));
}

/* The bucket of @v seconds (> 0): the least i with v <= upper(i). */
int iolat_native_index(double v, int schema)
{
	int e, i;
	double frac = frexp(v, &e);	/* v = frac * 2^e, frac in [0.5, 1) */

	i = (int)ceil(log2(frac) * (1 << schema)) + e * (1 << schema);
	/* log2()'s rounding, at an edge */
	while (v > iolat_native_upper(i, schema))
		i++;
	while (v <= iolat_native_upper(i - 1, schema))
		i--;
	return i;
}

static void add_bucket(struct iolat_native *n, int *last, int index,
		       int64_t *counts, uint64_t count)
{
	if (n->nr_buckets && index == *last) {
		counts[n->nr_buckets - 1] += count;
		return;
	}
	if (n->nr_buckets && index == *last + 1) {
		n->span_length[n->nr_spans - 1]++;
	} else {
		n->span_offset[n->nr_spans] = n->nr_buckets ?
					      index - *last - 1 : index;
		n->span_length[n->nr_spans++] = 1;
	}
	counts[n->nr_buckets++] = count;
	*last = index;
}

/**
 * iolat_native_from() - the native buckets of a histogram
 * @n: filled; iolat_native_free() frees it
 * @h: the histogram, of nanoseconds
 * @o: the schema and the zero bucket
 *
 * Return: 0, or -1 out of memory.
 */
int iolat_native_from(struct iolat_native *n, const struct iolat_hist *h,
		      const struct iolat_native_opts *o)
{
	unsigned int bin, max = IOLAT_HIST_NR_BINS + 1;
	int last = 0;

	*n = (struct iolat_native){ 0 };
	n->span_offset = calloc(max, sizeof(*n->span_offset));
	n->span_length = calloc(max, sizeof(*n->span_length));
	n->delta = calloc(max, sizeof(*n->delta));
	if (!n->span_offset || !n->span_length || !n->delta) {
		iolat_native_free(n);
		return -1;
	}
	for (bin = 0; bin < IOLAT_HIST_NR_BINS; bin++) {
		uint64_t lo = iolat_hist_bin_lo(bin), hi;

		if (!h->bins[bin])
			continue;
		if (lo < o->zero_ns) {
			n->zero_count += h->bins[bin];
			continue;
		}
		hi = iolat_hist_bin_hi(bin);
		add_bucket(n, &last,
			   iolat_native_index((lo + (hi - lo) / 2) / 1e9,
					      o->schema),
			   n->delta, h->bins[bin]);
	}
	if (h->overflow)
		add_bucket(n, &last,
			   iolat_native_index((1ULL << IOLAT_HIST_MAX_SHIFT) / 1e9,
					      o->schema),
			   n->delta, h->overflow);
	/* the counts as deltas, each from the one before, from the last */
	for (bin = n->nr_buckets; bin-- > 1;)
		n->delta[bin] -= n->delta[bin - 1];
	return 0;
}

void iolat_native_free(struct iolat_native *n)
{
	free(n->span_offset);
	free(n->span_length);
	free(n->delta);
	*n = (struct iolat_native){ 0 };
}
