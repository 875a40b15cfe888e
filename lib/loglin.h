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

/*
 * With s = msb(v) - @sub, v's group is s + 1 and its offset in it the
 * @sub bits below its top bit: (s + 1) * 2^@sub + (v >> s) - 2^@sub,
 * that is (s << @sub) + (v >> s).  Values below 2^@sub take s = 0 by
 * the bit or'ed in: no branch, some seven instructions (the module's
 * histograms at each completion, the CLI's six a record).
 */
static inline unsigned int iolat_loglin_bin(__u64 v, unsigned int sub)
{
	unsigned int s = (63 ^ __builtin_clzll(v | (1ULL << sub))) - sub;

	return (s << sub) + (unsigned int)(v >> s);
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
