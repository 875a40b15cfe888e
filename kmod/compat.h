/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference iolat depends on, in one place.  Each
 * branch names the upstream change it covers; ranges are inclusive low,
 * exclusive high.  Verified builds: Debian 6.1 and 6.12 (and 5.10 for the
 * branches marked so).
 */
#ifndef _IOLAT_COMPAT_H
#define _IOLAT_COMPAT_H

#include <linux/version.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/err.h>
#include <linux/fs.h>

/*
 * Prototypes of the block tracepoints iolat probes.  Every probe is
 * checked against the kernel's own declaration at build time
 * (check_trace_callback_type_*() in probe_bio.c and probe_rq.c), so a wrong branch here
 * fails the build instead of corrupting arguments at run time.
 *
 * Request tracepoints (insert, issue, merge, requeue) lost their
 * request_queue argument in v5.11 ("block: remove the request_queue to
 * argument request based tracepoints"), backported to v5.10.137.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 10, 137)
#define IOLAT_TP_RQ_PROTO(data, rq_) \
	void *data, struct request_queue *q__unused, struct request *rq_
#else
#define IOLAT_TP_RQ_PROTO(data, rq_) \
	void *data, struct request *rq_
#endif

/*
 * Bio tracepoints: v5.11 ("block: remove the request_queue argument to
 * the block_bio_queue, block_getrq, block_split, block_bio_remap and
 * block_bio_*merge tracepoints") dropped their queue argument, the
 * request of the merges and getrq's op; v5.10 keeps them.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define IOLAT_TP_BIO_PROTO(data, bio_) \
	void *data, struct request_queue *q__unused, struct bio *bio_
#define IOLAT_TP_BIO_MERGE_PROTO(data, bio_) \
	void *data, struct request_queue *q__unused, \
	struct request *rq__unused, struct bio *bio_
#define IOLAT_TP_GETRQ_PROTO(data, bio_) \
	void *data, struct request_queue *q__unused, struct bio *bio_, \
	int op__unused
#define IOLAT_TP_SPLIT_PROTO(data, bio_, sector_) \
	void *data, struct request_queue *q__unused, struct bio *bio_, \
	unsigned int sector_
#else
#define IOLAT_TP_BIO_PROTO(data, bio_) \
	void *data, struct bio *bio_
#define IOLAT_TP_BIO_MERGE_PROTO(data, bio_) \
	void *data, struct bio *bio_
#define IOLAT_TP_GETRQ_PROTO(data, bio_) \
	void *data, struct bio *bio_
#define IOLAT_TP_SPLIT_PROTO(data, bio_, sector_) \
	void *data, struct bio *bio_, unsigned int sector_
#endif

/*
 * block_rq_complete's error: the int of blk_status_to_errno() in v5.10, a
 * blk_status_t since v5.11's tracepoint rework (verified: 6.1, 6.12).
 * block_rq_error, with the same prototype, arrived in v5.18 ("block:
 * introduce block_rq_error tracepoint").
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define IOLAT_TP_RQ_COMPLETE_PROTO(data, rq_, err_, nr_bytes_) \
	void *data, struct request *rq_, int err_, unsigned int nr_bytes_
static inline int iolat_rq_errno(int err)
{
	return err;
}
#else
#define IOLAT_TP_RQ_COMPLETE_PROTO(data, rq_, err_, nr_bytes_) \
	void *data, struct request *rq_, blk_status_t err_, unsigned int nr_bytes_
static inline int iolat_rq_errno(blk_status_t err)
{
	return blk_status_to_errno(err);
}
#endif
#define IOLAT_HAVE_TP_RQ_ERROR \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0))

/*
 * The disk a bio is for: bio->bi_disk until v5.12 ("block: switch bio to
 * use bi_bdev") replaced it with the block device, whose bd_disk is the
 * whole disk even for a partition.
 */
static inline dev_t iolat_bio_devt(const struct bio *bio)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 12, 0)
	const struct gendisk *disk = bio->bi_disk;
#else
	const struct gendisk *disk = bio->bi_bdev ? bio->bi_bdev->bd_disk : NULL;
#endif
	return disk ? MKDEV(disk->major, disk->first_minor) : 0;
}

/* The disk of a plugged queue: q->disk since v5.15 (see below). */
static inline dev_t iolat_queue_devt(const struct request_queue *q)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
	return 0;
#else
	return q->disk ? MKDEV(q->disk->major, q->disk->first_minor) : 0;
#endif
}

/*
 * The gendisk of a request: rq->rq_disk until it was removed in v5.17
 * (q->disk exists since v5.15), then the queue's disk.  0 for requests
 * on queues without a disk (e.g. NVMe admin passthrough).
 */
static inline dev_t iolat_rq_devt(const struct request *rq)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
	const struct gendisk *disk = rq->rq_disk;
#else
	const struct gendisk *disk = rq->q->disk;
#endif
	return disk ? MKDEV(disk->major, disk->first_minor) : 0;
}

/*
 * Request operation and flags: blk_opf_t was introduced in v6.0 ("block:
 * Introduce the type blk_opf_t"); before, cmd_flags was an unsigned int.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 0, 0)
typedef unsigned int blk_opf_t;
#endif

/*
 * A passthrough request (the driver's own command, never a bio through
 * block_bio_queue): REQ_OP_DRV_IN/OUT, and until v5.11 ("block: remove
 * REQ_OP_SCSI_{IN,OUT}") also the SCSI ones.  blk_rq_is_passthrough()
 * says the same but takes a request it could change.
 */
static inline bool iolat_rq_passthrough(const struct request *rq)
{
	unsigned int op = rq->cmd_flags & REQ_OP_MASK;

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
	if (op == REQ_OP_SCSI_IN || op == REQ_OP_SCSI_OUT)
		return true;
#endif
	return op == REQ_OP_DRV_IN || op == REQ_OP_DRV_OUT;
}

/*
 * Exporting functions to the KUnit suite only: include/kunit/visibility.h
 * arrived in v6.2 ("kunit: add macro to allow conditionally exposing
 * static symbols to tests").  Before, define the same macros.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#include <kunit/visibility.h>
#elif IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_IF_KUNIT(symbol) \
	EXPORT_SYMBOL_NS(symbol, EXPORTED_FOR_KUNIT_TESTING)
#else
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif

/*
 * NVMe: nvme-core's tracepoints are declared in its private trace header
 * (drivers/nvme/host/trace.h), not installed with the kernel headers.
 * Their prototypes, the same in Debian's 5.10.262, 6.1.192 and 6.12.117
 * sources (verified), are spelled out here; a kernel build with the
 * source tree (the KUnit debug kernel) checks them against the real
 * declarations (probe_nvme.c).
 */
struct nvme_command;
#define IOLAT_TP_NVME_SETUP_PROTO(data, rq_, cmd_) \
	void *data, struct request *rq_, struct nvme_command *cmd_
#define IOLAT_TP_NVME_COMPLETE_PROTO(data, rq_) \
	void *data, struct request *rq_

/*
 * The head of nvme-core's private struct nvme_request, the start of every
 * NVMe request's driver data (nvme_req()): the completion's status,
 * result and retries are only there.  Its genctr came with v5.13 ("nvme:
 * code command_id with a genctr for use-after-free validation") and is in
 * Debian's 5.10.262 by backport; the head is the same in 5.10.262,
 * 6.1.192 and 6.12.117 (verified against their sources, and at build time
 * against the real one where the source tree is there).  The completion
 * probe reads it only for a request whose command the setup probe saw,
 * where nvme_req(req)->cmd is that command (iolat_nvme_head_is()).
 */
struct iolat_nvme_request_head {
	struct nvme_command *cmd;
	union {
		__le16 u16;
		__le32 u32;
		__le64 u64;
	} result;
	u8 genctr;
	u8 retries;
	u8 flags;
	u16 status;
};

/*
 * Is @head the head of the request whose command the setup probe saw at
 * @seen?  Since v5.13 ("nvme: use driver pdu command for passthrough")
 * every request's command lives in its driver data, and
 * nvme_req(req)->cmd points at it: the check that compat.h's head is
 * the real one.  Before, the pci driver built an I/O command on its
 * stack and set ->cmd only for passthrough requests, so there is nothing
 * to compare, and the head is taken as verified above (Debian's 5.10.262,
 * where every I/O command's status read so is its real one).
 */
static inline bool iolat_nvme_head_is(const struct iolat_nvme_request_head *head,
				      const struct nvme_command *seen)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 13, 0)
	return true;
#else
	return head->cmd == seen;
#endif
}

/*
 * NVMe's per-controller key: the driver data of a namespace's tag set,
 * which the admin queue's tag set shares (the controller in nvme-core's
 * nvme_alloc_{admin,io}_tag_set() since v6.2, struct nvme_dev in 5.10's
 * and 6.1's pci driver), found by opening the block device briefly.
 * Opening moved: blkdev_get_by_dev() took a blk_mode_t and holder ops in
 * v6.5 ("block: use the holder as indication for exclusive opens"), and
 * gave way to bdev_file_open_by_dev() in v6.9 ("block: Provide
 * bdev_open_* functions", "bdev: open block device as files").  Verified
 * builds: 5.10, 6.1, 6.12; the v6.5..v6.8 branch is not build-tested.
 * Return: the key, NULL for a disk without a blk-mq tag set (an NVMe
 * multipath head), or an ERR_PTR.
 */
static inline const void *iolat_devt_tagset_key(dev_t devt)
{
	struct block_device *bdev;
	const void *key;
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
	bdev = blkdev_get_by_dev(devt, FMODE_READ, NULL);
	if (IS_ERR(bdev))
		return ERR_CAST(bdev);
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
	bdev = blkdev_get_by_dev(devt, BLK_OPEN_READ, NULL, NULL);
	if (IS_ERR(bdev))
		return ERR_CAST(bdev);
#else
	struct file *f = bdev_file_open_by_dev(devt, BLK_OPEN_READ, NULL, NULL);

	if (IS_ERR(f))
		return ERR_CAST(f);
	bdev = file_bdev(f);
#endif
	key = bdev_get_queue(bdev)->tag_set ?
	      bdev_get_queue(bdev)->tag_set->driver_data : NULL;
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
	blkdev_put(bdev, FMODE_READ);
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
	blkdev_put(bdev, NULL);
#else
	fput(f);
#endif
	return key;
}

#endif /* _IOLAT_COMPAT_H */
