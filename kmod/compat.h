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
 * Prototypes of the block tracepoints iolat probes.  v5.11 ("block:
 * remove the request_queue to argument request based tracepoints")
 * dropped the queue argument of block_rq_issue.  block_rq_complete's
 * error argument was the int from blk_status_to_errno() in v5.10 and is
 * a blk_status_t in v6.1; this branch assumes the same release.  Only
 * the v5.10 side of this branch is pending a build (issue 3 adds it).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define IOLAT_TP_RQ_ISSUE_PROTO(data, rq) \
	void *data, struct request_queue *q__unused, struct request *rq
#define IOLAT_TP_RQ_COMPLETE_PROTO(data, rq, err, nr_bytes) \
	void *data, struct request *rq, int err, unsigned int nr_bytes
static inline int iolat_rq_errno(int err)
{
	return err;
}
#else
#define IOLAT_TP_RQ_ISSUE_PROTO(data, rq) \
	void *data, struct request *rq
#define IOLAT_TP_RQ_COMPLETE_PROTO(data, rq, err, nr_bytes) \
	void *data, struct request *rq, blk_status_t err, unsigned int nr_bytes
static inline int iolat_rq_errno(blk_status_t err)
{
	return blk_status_to_errno(err);
}
#endif

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
