/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Clock test: is a clock monotonic across CPUs, and what does a read
 * cost?  See clocktest.c.
 */
#ifndef _IOLAT_CLOCKTEST_H
#define _IOLAT_CLOCKTEST_H

#include <net/genetlink.h>

#define IOLAT_CLOCK_LOOPS_MIN		1000
#define IOLAT_CLOCK_LOOPS_MAX		1000000
#define IOLAT_CLOCK_LOOPS_DEFAULT	20000
#define IOLAT_CLOCK_LOOPS_LOAD		2000	/* the check at module load */

int iolat_clocktest_init(void);
u64 iolat_clock_inversions(void);
int iolat_clocktest_reply(struct genl_info *info, struct genl_family *family,
			  u32 loops);

#endif /* _IOLAT_CLOCKTEST_H */
