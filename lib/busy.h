/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Busy-time and queue-depth arithmetic shared by the module, the KUnit
 * suite and the CLI (no kernel or libc dependencies beyond
 * <linux/types.h>).  docs/design.md explains the design.
 *
 * Busy time.  A span (a hardware queue, or a whole device) is busy while
 * at least one request is in it.  Its busy time is kept in one signed
 * 64-bit word that a period's opener and closer change with one atomic
 * add each, so that a reader gets a consistent value from one load:
 *
 *   opening at t:  word -= t + IOLAT_BUSY_K
 *   closing at t:  word += t + IOLAT_BUSY_K
 *
 * With times relative to the session's base, word = R - n * K, where n is
 * the number of periods open (1 or 0; 2 or -1 for the instant in which
 * one CPU's close and another's open are applied out of order) and
 * R = closed busy time - start of the open period, |R| < K / 2.  So
 * n and R come back out of the word, and busy(now) = R + n * now.
 *
 * Queue depth at issue: exact below 16, then eight buckets per power of
 * two (lib/loglin.h), IOLAT_QD_BUCKETS in all, up to 2^14 (the last
 * takes everything above).
 */
#ifndef _IOLAT_LIB_BUSY_H
#define _IOLAT_LIB_BUSY_H

#include <linux/types.h>
#include "loglin.h"

#define IOLAT_BUSY_SHIFT	60
#define IOLAT_BUSY_K		((__s64)1 << IOLAT_BUSY_SHIFT)	/* 36 years */

static inline __s64 iolat_busy_open_delta(__s64 t)
{
	return -(t + IOLAT_BUSY_K);
}

static inline __s64 iolat_busy_close_delta(__s64 t)
{
	return t + IOLAT_BUSY_K;
}

__s64 iolat_busy_open_periods(__s64 word);
__u64 iolat_busy_read(__s64 word, __s64 now);
__u64 iolat_integral_read(__u64 sum, __u64 n, __u64 now);

#define IOLAT_QD_SUB_BITS	3
#define IOLAT_QD_PER_POW2	(1U << IOLAT_QD_SUB_BITS)
#define IOLAT_QD_EXACT		(2 * IOLAT_QD_PER_POW2)
#define IOLAT_QD_BUCKETS	((14 - IOLAT_QD_SUB_BITS + 1) * IOLAT_QD_PER_POW2)

/**
 * iolat_qd_bucket() - histogram bucket of a queue depth
 * @qd: the depth
 *
 * Return: @qd itself below IOLAT_QD_EXACT; above, IOLAT_QD_PER_POW2
 * buckets per power of two (lib/loglin.h), the last bucket taking all
 * that is beyond.
 */
static inline unsigned int iolat_qd_bucket(__u32 qd)
{
	unsigned int b = iolat_loglin_bin(qd, IOLAT_QD_SUB_BITS);

	return b < IOLAT_QD_BUCKETS ? b : IOLAT_QD_BUCKETS - 1;
}

__u32 iolat_qd_bucket_low(unsigned int bucket);

#endif /* _IOLAT_LIB_BUSY_H */
