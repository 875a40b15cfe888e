// SPDX-License-Identifier: GPL-2.0
/*
 * request_queue->disk: v5.15, "block: add an explicit ->disk backpointer
 * to the request_queue".
 */
#include <linux/blkdev.h>

struct gendisk *iolat_feature(struct request_queue *q);
struct gendisk *iolat_feature(struct request_queue *q)
{
	return q->disk;
}
