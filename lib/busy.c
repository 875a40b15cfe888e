// SPDX-License-Identifier: GPL-2.0
/*
 * Busy-time and queue-depth arithmetic; see busy.h.
 */
#include "busy.h"
#include "loglin.h"

/**
 * iolat_busy_open_periods() - how many busy periods a word has open
 * @word: the busy word
 *
 * Return: n, with word = R - n * IOLAT_BUSY_K and |R| < IOLAT_BUSY_K / 2
 * (the arithmetic shift floors).
 */
__s64 iolat_busy_open_periods(__s64 word)
{
	return (IOLAT_BUSY_K / 2 - word) >> IOLAT_BUSY_SHIFT;
}

/**
 * iolat_busy_read() - busy time of a span
 * @word: its busy word
 * @now: the time of the reading, on the word's base
 *
 * Return: the nanoseconds the span has been busy up to @now.
 */
__u64 iolat_busy_read(__s64 word, __s64 now)
{
	__s64 n = iolat_busy_open_periods(word);
	__s64 busy = word + n * IOLAT_BUSY_K + n * now;

	return busy > 0 ? busy : 0;
}

/**
 * iolat_integral_read() - sum of the durations of a set of intervals
 * @sum: sum of the ends of those ended minus the starts of all, modulo 2^64
 * @n: number begun minus number ended, modulo 2^64
 * @now: the time of the reading, on the same clock as the starts and ends
 *
 * Intervals still open count up to @now.  The modular sums cancel: the
 * result is exact as long as it fits in 63 bits.
 *
 * Return: the sum in nanoseconds.
 */
__u64 iolat_integral_read(__u64 sum, __u64 n, __u64 now)
{
	__s64 v = (__s64)(sum + n * now);

	return v > 0 ? v : 0;
}

/**
 * iolat_qd_bucket_low() - the smallest depth in a bucket
 * @bucket: the bucket, < IOLAT_QD_BUCKETS
 *
 * Return: the depth; iolat_qd_bucket() of it is @bucket.
 */
__u32 iolat_qd_bucket_low(unsigned int bucket)
{
	return iolat_loglin_lo(bucket, IOLAT_QD_SUB_BITS);
}
