// SPDX-License-Identifier: GPL-2.0
/*
 * bio_blkcg_css(), exported, the way to a bio's blkcg once struct
 * blkcg_gq is the block layer's own: v5.19, "blk-cgroup: replace
 * bio_blkcg with bio_blkcg_css" (and "blk-cgroup: move struct blkcg to
 * block/blk-cgroup.h").
 */
#include <linux/bio.h>
#include <linux/blk-cgroup.h>

struct cgroup_subsys_state *iolat_feature(struct bio *bio);
struct cgroup_subsys_state *iolat_feature(struct bio *bio)
{
	return bio_blkcg_css(bio);
}
