// SPDX-License-Identifier: GPL-2.0
/*
 * bio->bi_bdev instead of bio->bi_disk: v5.12, "block: switch bio to
 * use bi_bdev" (309dca309fc3, "block: store a block_device pointer in
 * struct bio").
 */
#include <linux/blk_types.h>
#include <linux/blkdev.h>

struct gendisk *iolat_feature(struct bio *bio);
struct gendisk *iolat_feature(struct bio *bio)
{
	return bio->bi_bdev->bd_disk;
}
