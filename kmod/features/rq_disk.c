// SPDX-License-Identifier: GPL-2.0
/*
 * request->rq_disk, removed in v5.17 ("block: remove rq_disk", callers
 * use rq->q->disk).
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

struct gendisk *iolat_feature(struct request *rq);
struct gendisk *iolat_feature(struct request *rq)
{
	return rq->rq_disk;
}
