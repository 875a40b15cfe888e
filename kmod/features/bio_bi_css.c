// SPDX-License-Identifier: GPL-2.0
/*
 * bio->bi_css, the bio's blkcg before it was its blkg's: gone in v5.0,
 * "blkcg: remove bio->bi_css and instead use bio->bi_blkg".
 */
#include <linux/blk_types.h>

struct cgroup_subsys_state *iolat_feature(struct bio *bio);
struct cgroup_subsys_state *iolat_feature(struct bio *bio)
{
	return bio->bi_css;
}
