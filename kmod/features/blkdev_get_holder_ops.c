// SPDX-License-Identifier: GPL-2.0
/*
 * blkdev_get_by_dev() with a blk_mode_t and holder ops, and
 * blkdev_put() with the holder: v6.5, "block: use the holder as
 * indication for exclusive opens" and "block: add a holder_ops argument".
 */
#include <linux/blkdev.h>
#include <linux/fs.h>

struct block_device *iolat_feature(dev_t devt);
struct block_device *iolat_feature(dev_t devt)
{
	struct block_device *bdev = blkdev_get_by_dev(devt, BLK_OPEN_READ,
						      NULL, NULL);

	blkdev_put(bdev, NULL);
	return bdev;
}
