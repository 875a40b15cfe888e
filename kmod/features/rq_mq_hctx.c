// SPDX-License-Identifier: GPL-2.0
/*
 * request->mq_hctx, the request's hardware queue: v5.0, "blk-mq: cache
 * request hardware queue mapping".  Before, only the private software
 * queue (mq_ctx) and the queue's cpu map (q->mq_map) say it.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

unsigned int iolat_feature(struct request *rq);
unsigned int iolat_feature(struct request *rq)
{
	return rq->mq_hctx->queue_num;
}
