/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear bins, the layout of both the latency histogram (hist.h) and
 * the queue-depth histogram (kmod/acct.h): with 2^@sub bins per group,
 * values below 2^(@sub + 1) have a bin each, and above that each power
 * of two [2^k, 2^(k+1)) is split into 2^@sub equal bins.  Bin b of group
 * g >= 1 starts at (2^@sub + b % 2^@sub) << (g - 1).
 */
#ifndef _IOLAT_LIB_LOGLIN_H
#define _IOLAT_LIB_LOGLIN_H

#include <linux/types.h>

static inline unsigned int iolat_loglin_bin(__u64 v, unsigned int sub)
{
	unsigned int msb;

	if (v < (1ULL << sub))
		return v;
	msb = 63 - __builtin_clzll(v);
	return (msb - sub + 1) * (1U << sub) +
	       ((v >> (msb - sub)) & ((1U << sub) - 1));
}

static inline __u64 iolat_loglin_lo(unsigned int bin, unsigned int sub)
{
	unsigned int group = bin >> sub;
	__u64 off = bin & ((1U << sub) - 1);

	if (!group)
		return off;
	return ((1ULL << sub) + off) << (group - 1);
}

#endif /* _IOLAT_LIB_LOGLIN_H */
