// SPDX-License-Identifier: GPL-2.0
/*
 * blk_mq_tag_set->map[], a map of CPUs to hardware queues per queue type
 * (default, read, poll): v5.0, "blk-mq: abstract out queue map".  Before,
 * the queue's one map, q->mq_map.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

unsigned int iolat_feature(const struct blk_mq_tag_set *set, unsigned int cpu);
unsigned int iolat_feature(const struct blk_mq_tag_set *set, unsigned int cpu)
{
	return set->nr_maps ? set->map[0].mq_map[cpu] : 0;
}
