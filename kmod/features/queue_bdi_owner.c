// SPDX-License-Identifier: GPL-2.0
/*
 * request_queue->backing_dev_info, whose owner is the disk's device
 * (device_add_disk(): bdi_register_owner(), later bdi_set_owner()), until
 * v5.15 "block: move the bdi from the request_queue to the gendisk".
 */
#include <linux/blkdev.h>
#include <linux/backing-dev.h>

struct gendisk *iolat_feature(struct request_queue *q);
struct gendisk *iolat_feature(struct request_queue *q)
{
	return dev_to_disk(q->backing_dev_info->owner);
}
