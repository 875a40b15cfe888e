// SPDX-License-Identifier: GPL-2.0
/*
 * bio->bi_issue, the time a bio was issued, from ktime_get_ns() in its
 * low BIO_ISSUE_TIME_MASK bits: with CONFIG_BLK_CGROUP, for blk-throttle
 * and blk-iolatency.  Whether the kernel stamps every bio before
 * block_bio_queue (v5.0, "blkcg: consolidate bio_issue_init() to be a
 * part of core") is not in the headers: the module checks it as it runs
 * (probe_bio.c).
 */
#include <linux/blk_types.h>

#ifndef CONFIG_BLK_CGROUP
#error "no bio->bi_issue without CONFIG_BLK_CGROUP"
#endif

u64 iolat_feature(const struct bio *bio);
u64 iolat_feature(const struct bio *bio)
{
	return bio->bi_issue.value & BIO_ISSUE_TIME_MASK;
}
