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

#endif /* _IOLAT_COMPAT_H */
