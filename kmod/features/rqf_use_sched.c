// SPDX-License-Identifier: GPL-2.0
/*
 * RQF_USE_SCHED, a request that goes through the I/O scheduler (a
 * passthrough one on a queue with a scheduler does not): v6.5's rework
 * of passthrough requests and the elevator (Debian's 6.12 has it, 6.1
 * not).  Before, the queue's elevator said it for every request.
 */
#include <linux/blk-mq.h>

unsigned int iolat_feature(void);
unsigned int iolat_feature(void)
{
	return (__force unsigned int)RQF_USE_SCHED;
}
