// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a block device as a file, bdev_file_open_by_dev(): v6.9,
 * "block: Provide bdev_open_* functions" and "bdev: open block device as
 * files".
 */
#include <linux/blkdev.h>
#include <linux/fs.h>

struct file *iolat_feature(dev_t devt);
struct file *iolat_feature(dev_t devt)
{
	return bdev_file_open_by_dev(devt, BLK_OPEN_READ, NULL, NULL);
}
