/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel difference iolat depends on, decided by what the target's
 * headers provide, so that backports count (RHEL 8's 4.18 has 5.11's
 * request tracepoints): kmod/features.sh compiles a probe per difference
 * (kmod/features/, each naming its upstream change) into features.h's
 * IOLAT_HAVE_*, which no other file reads.
 */
#ifndef _IOLAT_COMPAT_H
#define _IOLAT_COMPAT_H

#include <linux/backing-dev.h>
#include <linux/blk-cgroup.h>
#include <linux/blkdev.h>
#include <linux/cgroup.h>
#include <linux/blk-mq.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>
#include <net/netlink.h>
#include "features.h"

/*
 * Prototypes of the block tracepoints iolat probes, each checked against
 * the kernel's declaration at build time (check_trace_callback_type_*()).
 * Request tracepoints lost their request_queue argument in v5.11
 * ("block: remove the request_queue to argument request based
 * tracepoints"; also v5.10.137 and RHEL 8.7).
 */
#ifdef IOLAT_HAVE_TP_RQ_NO_QUEUE
#define IOLAT_TP_RQ_PROTO(data, rq_) \
	void *data, struct request *rq_
#else
#define IOLAT_TP_RQ_PROTO(data, rq_) \
	void *data, struct request_queue *q__unused, struct request *rq_
#endif

/*
 * Bio tracepoints: v5.11's series ("block: remove the request_queue
 * argument to the block_bio_queue tracepoint" and its neighbours)
 * dropped their queue argument, the request of the merges and getrq's
 * op; each is probed on its own.
 */
#ifdef IOLAT_HAVE_TP_BIO_NO_QUEUE
#define IOLAT_TP_BIO_PROTO(data, bio_) \
	void *data, struct bio *bio_
#else
#define IOLAT_TP_BIO_PROTO(data, bio_) \
	void *data, struct request_queue *q__unused, struct bio *bio_
#endif

#ifdef IOLAT_HAVE_TP_BIO_MERGE_BIO_ONLY
#define IOLAT_TP_BIO_MERGE_PROTO(data, bio_) \
	void *data, struct bio *bio_
#else
#define IOLAT_TP_BIO_MERGE_PROTO(data, bio_) \
	void *data, struct request_queue *q__unused, \
	struct request *rq__unused, struct bio *bio_
#endif

#ifdef IOLAT_HAVE_TP_GETRQ_BIO_ONLY
#define IOLAT_TP_GETRQ_PROTO(data, bio_) \
	void *data, struct bio *bio_
#else
#define IOLAT_TP_GETRQ_PROTO(data, bio_) \
	void *data, struct request_queue *q__unused, struct bio *bio_, \
	int op__unused
#endif

#ifdef IOLAT_HAVE_TP_SPLIT_NO_QUEUE
#define IOLAT_TP_SPLIT_PROTO(data, bio_, sector_) \
	void *data, struct bio *bio_, unsigned int sector_
#else
#define IOLAT_TP_SPLIT_PROTO(data, bio_, sector_) \
	void *data, struct request_queue *q__unused, struct bio *bio_, \
	unsigned int sector_
#endif

#ifdef IOLAT_HAVE_TP_REMAP_NO_QUEUE
#define IOLAT_TP_REMAP_PROTO(data, bio_, dev_, from_) \
	void *data, struct bio *bio_, dev_t dev_, sector_t from_
#else
#define IOLAT_TP_REMAP_PROTO(data, bio_, dev_, from_) \
	void *data, struct request_queue *q__unused, struct bio *bio_, \
	dev_t dev_, sector_t from_
#endif

/*
 * block_bio_complete lost its error argument in v5.8 ("block: remove the
 * error argument to the block_bio_complete tracepoint"; RHEL 8 has it
 * too): the status is the bio's own, bi_status, either way.
 */
#ifdef IOLAT_HAVE_TP_BIO_COMPLETE_NO_ERROR
#define IOLAT_TP_BIO_COMPLETE_PROTO(data, bio_) \
	void *data, struct request_queue *q__unused, struct bio *bio_
#else
#define IOLAT_TP_BIO_COMPLETE_PROTO(data, bio_) \
	void *data, struct request_queue *q__unused, struct bio *bio_, \
	int error__unused
#endif

/*
 * block_rq_complete's error: the int of blk_status_to_errno() until
 * v5.11's request tracepoint rework made it a blk_status_t.
 */
#ifdef IOLAT_HAVE_TP_RQ_COMPLETE_BLK_STATUS
#define IOLAT_TP_RQ_COMPLETE_PROTO(data, rq_, err_, nr_bytes_) \
	void *data, struct request *rq_, blk_status_t err_, unsigned int nr_bytes_
static inline int iolat_rq_errno(blk_status_t err)
{
	/* BLK_STS_OK is 0: no out-of-line call for a request that succeeded */
	return likely(!err) ? 0 : blk_status_to_errno(err);
}
#else
#define IOLAT_TP_RQ_COMPLETE_PROTO(data, rq_, err_, nr_bytes_) \
	void *data, struct request *rq_, int err_, unsigned int nr_bytes_
static inline int iolat_rq_errno(int err)
{
	return err;
}
#endif

/*
 * Every probe keeps its CPU to its return (per-CPU state is written by
 * its own CPU only).  Tracepoints ran probes with preemption off until
 * "tracing: Guard __DECLARE_TRACE() use of __DO_TRACE_CALL() with
 * SRCU-fast"; there the probe pins itself.  Elsewhere this is nothing.
 */
#ifdef IOLAT_HAVE_TP_PREEMPTIBLE
#define iolat_probe_pin_cpu() guard(preempt_notrace)()
#else
#define iolat_probe_pin_cpu() do { } while (0)
#endif

/*
 * Tracepoints not every kernel has: block_rq_error (v5.18, "block:
 * introduce block_rq_error tracepoint"), block_rq_merge (v5.8, "blktrace:
 * Provide event for request merging").  Elsewhere attach.c says so.
 */
#ifdef IOLAT_HAVE_TP_RQ_ERROR
#define IOLAT_TP_HAS_RQ_ERROR 1
#else
#define IOLAT_TP_HAS_RQ_ERROR 0
#endif
#ifdef IOLAT_HAVE_TP_RQ_MERGE
#define IOLAT_TP_HAS_RQ_MERGE 1
#else
#define IOLAT_TP_HAS_RQ_MERGE 0
#endif

/*
 * A module's tracepoint table holds 32-bit offsets where the
 * architecture has relative references, read by tracepoint_ptr_deref()
 * since v4.20 ("kernel: tracepoints: add support for relative
 * references"); before, and in RHEL 8, plain pointers.
 */
static inline struct tracepoint *iolat_module_tracepoint(struct module *mod,
							 unsigned int i)
{
#ifdef IOLAT_HAVE_TRACEPOINT_PTR_DEREF
	return tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);
#else
	return mod->tracepoints_ptrs[i];
#endif
}

/*
 * The disk a bio is for: bio->bi_disk until v5.12 ("block: switch bio to
 * use bi_bdev") replaced it with the block device, whose bd_disk is the
 * whole disk even for a partition.
 */
static inline dev_t iolat_bio_devt(const struct bio *bio)
{
#ifdef IOLAT_HAVE_BIO_BI_BDEV
	const struct gendisk *disk = bio->bi_bdev ? bio->bi_bdev->bd_disk : NULL;
#else
	const struct gendisk *disk = bio->bi_disk;
#endif
	return disk ? MKDEV(disk->major, disk->first_minor) : 0;
}

/*
 * The css of the blkcg @bio is charged to, in the io controller's
 * hierarchy, or NULL: by bio_blkcg_css() once the blkg's struct is
 * private to the block layer (v5.19), by the blkg itself before; 4.19's
 * bio without a blkg yet, by its bi_css if it has one.
 */
static inline struct cgroup_subsys_state *iolat_bio_css(struct bio *bio)
{
#if IS_ENABLED(CONFIG_BLK_CGROUP)
	struct cgroup_subsys_state *css;

#ifdef IOLAT_HAVE_BIO_BLKCG_CSS
	css = bio_blkcg_css(bio);
#else
	css = bio->bi_blkg ? &bio->bi_blkg->blkcg->css : NULL;
#ifdef IOLAT_HAVE_BIO_BI_CSS
	if (!css)
		css = bio->bi_css;
#endif
#endif
	return css && css->cgroup ? css : NULL;
#else
	return NULL;
#endif
}

/*
 * A cgroup's id: its kernfs node's, one u64 since v5.5 (cgroup_id(),
 * "kernfs: convert to u64 id"), the inode number and its generation
 * above it before (union kernfs_node_id, 4.14 and RHEL 8's 4.18).
 */
#if IS_ENABLED(CONFIG_BLK_CGROUP)
static inline u64 iolat_cgroup_id(struct cgroup *cgrp)
{
#ifdef IOLAT_HAVE_CGROUP_ID
	return cgroup_id(cgrp);
#else
	return cgrp->kn->id.id;
#endif
}
#endif

/*
 * The cgroup @bio is charged to, as its id (struct iolat_record's
 * cgroup), or 0 (always, without block cgroups).
 */
static inline u64 iolat_bio_cgroup(struct bio *bio)
{
#if IS_ENABLED(CONFIG_BLK_CGROUP)
	struct cgroup_subsys_state *css = iolat_bio_css(bio);

	return css ? iolat_cgroup_id(css->cgroup) : 0;
#else
	return 0;
#endif
}

/*
 * Is @bio (NULL: a request without one) charged to one of @ids (their
 * low 32 bits: IOLAT_A_FILTER_CGROUPS) or to a cgroup under one?  Its
 * cgroup's ancestors are walked up to the root: a few levels, pinned by
 * the bio's reference on its own.  Without block cgroups no session has
 * the filter (nl_start.c refuses it).
 */
static inline bool iolat_bio_in_cgroups(struct bio *bio, const u32 *ids,
					unsigned int nr)
{
#if IS_ENABLED(CONFIG_BLK_CGROUP)
	struct cgroup_subsys_state *css = bio ? iolat_bio_css(bio) : NULL;
	struct cgroup *cgrp;
	unsigned int i;

	for (cgrp = css ? css->cgroup : NULL; cgrp; cgrp = cgroup_parent(cgrp))
		for (i = 0; i < nr; i++)
			if ((u32)iolat_cgroup_id(cgrp) == ids[i])
				return true;
#endif
	return false;
}

/*
 * The kernel's own time of @bio's submission, the low bits
 * IOLAT_BIO_STAMP_MASK of ktime_get_ns(): bio->bi_issue, set before
 * block_bio_queue since v5.0 ("blkcg: consolidate bio_issue_init() to be
 * a part of core").  6.12's headers no longer give its layout: there, as
 * where there is no stamp, Q reads the clock (docs/design.md).
 * Return: the stamp's bits, 0 where the kernel keeps none.
 */
#ifdef IOLAT_HAVE_BIO_ISSUE
#define IOLAT_BIO_STAMP_MASK	((u64)BIO_ISSUE_TIME_MASK)
static inline u64 iolat_bio_stamp(const struct bio *bio)
{
	return bio->bi_issue.value & BIO_ISSUE_TIME_MASK;
}
#else
#define IOLAT_BIO_STAMP_MASK	0ULL
static inline u64 iolat_bio_stamp(const struct bio *bio)
{
	return 0;
}
#endif

/*
 * The disk of a plugged queue: q->disk since v5.15 ("block: add an explicit
 * ->disk backpointer to the request_queue"), before its bdi's owner.
 */
static inline dev_t iolat_queue_devt(const struct request_queue *q)
{
#if defined(IOLAT_HAVE_QUEUE_DISK)
	const struct gendisk *disk = q->disk;
#elif defined(IOLAT_HAVE_QUEUE_BDI_OWNER)
	struct device *owner = READ_ONCE(q->backing_dev_info->owner);
	const struct gendisk *disk = owner ? dev_to_disk(owner) : NULL;
#else
	const struct gendisk *disk = NULL;
#endif
	return disk ? MKDEV(disk->major, disk->first_minor) : 0;
}

/*
 * The gendisk of a request: rq->rq_disk until v5.17 ("block: remove
 * rq_disk"), then the queue's disk.  0 for requests on queues without a
 * disk (e.g. NVMe admin passthrough).
 */
static inline dev_t iolat_rq_devt(const struct request *rq)
{
#ifdef IOLAT_HAVE_RQ_DISK
	const struct gendisk *disk = rq->rq_disk;
#else
	const struct gendisk *disk = rq->q->disk;
#endif
	return disk ? MKDEV(disk->major, disk->first_minor) : 0;
}

/*
 * A request's hardware queue: rq->mq_hctx since v5.0 ("blk-mq: cache
 * request hardware queue mapping").  Before, its software queue's CPU
 * (its distance from q->queue_ctx is that CPU's per-CPU offset, found by
 * bisection in a table sorted at load) through q->mq_map.
 */
#ifdef IOLAT_HAVE_RQ_MQ_HCTX
static inline u32 iolat_rq_hwq(const struct request *rq)
{
	return rq->mq_hctx ? rq->mq_hctx->queue_num : 0;
}

static inline int iolat_compat_init(void)
{
	return 0;
}

static inline void iolat_compat_exit(void)
{
}
#define IOLAT_COMPAT_DATA struct iolat_compat_no_data
#else
#include <linux/sort.h>
#include <linux/slab.h>

struct iolat_cpu_offset {
	unsigned long off;
	unsigned int cpu;
};

/* [iolat_nr_cpu_offsets], by offset; defined by IOLAT_COMPAT_DATA */
extern struct iolat_cpu_offset *iolat_cpu_offsets;
extern unsigned int iolat_nr_cpu_offsets;
#define IOLAT_COMPAT_DATA \
	struct iolat_cpu_offset *iolat_cpu_offsets; \
	unsigned int iolat_nr_cpu_offsets

static inline int iolat_cpu_offset_cmp(const void *a, const void *b)
{
	const struct iolat_cpu_offset *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static inline int iolat_compat_init(void)
{
	unsigned int n = 0, cpu;

	iolat_cpu_offsets = kcalloc(num_possible_cpus(),
				    sizeof(*iolat_cpu_offsets), GFP_KERNEL);
	if (!iolat_cpu_offsets)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		iolat_cpu_offsets[n].off = per_cpu_offset(cpu);
		iolat_cpu_offsets[n++].cpu = cpu;
	}
	sort(iolat_cpu_offsets, n, sizeof(*iolat_cpu_offsets),
	     iolat_cpu_offset_cmp, NULL);
	iolat_nr_cpu_offsets = n;
	return 0;
}

static inline void iolat_compat_exit(void)
{
	kfree(iolat_cpu_offsets);
}

static inline u32 iolat_rq_hwq(const struct request *rq)
{
	const struct request_queue *q = rq->q;
	unsigned long off = (unsigned long)rq->mq_ctx -
			    (unsigned long)q->queue_ctx;
	unsigned int lo = 0, hi = iolat_nr_cpu_offsets, mid;

	if (!rq->mq_ctx || !q->mq_map)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (iolat_cpu_offsets[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == iolat_nr_cpu_offsets || iolat_cpu_offsets[lo].off != off)
		return U32_MAX;		/* outside every table: not traced */
	return q->mq_map[iolat_cpu_offsets[lo].cpu];
}
#endif

/*
 * When the block layer allocated a request: rq->start_time_ns, set only
 * for a request that needs it (I/O accounting, stats, or the scheduler:
 * RQF_USE_SCHED per request since v6.5's rework of passthrough and the
 * elevator, before the queue's elevator); stale otherwise on 7.2.
 */
static inline u64 iolat_rq_start_ns(const struct request *rq)
{
	req_flags_t timed = RQF_IO_STAT | RQF_STATS;

#ifdef IOLAT_HAVE_RQF_USE_SCHED
	timed |= RQF_USE_SCHED;
#else
	if (rq->q->elevator)
		return rq->start_time_ns;
#endif
	return rq->rq_flags & timed ? rq->start_time_ns : 0;
}

/* blk_opf_t: v6.0 ("block: Introduce the type blk_opf_t"). */
#ifndef IOLAT_HAVE_BLK_OPF_T
typedef unsigned int blk_opf_t;
#endif

/*
 * A passthrough request (a driver's command, no bio): REQ_OP_DRV_IN/OUT,
 * and the SCSI ones until v5.11 ("block: remove REQ_OP_SCSI_{IN,OUT}").
 */
static inline bool iolat_rq_passthrough(const struct request *rq)
{
	unsigned int op = rq->cmd_flags & REQ_OP_MASK;

#ifdef IOLAT_HAVE_REQ_OP_SCSI
	if (op == REQ_OP_SCSI_IN || op == REQ_OP_SCSI_OUT)
		return true;
#endif
	return op == REQ_OP_DRV_IN || op == REQ_OP_DRV_OUT;
}

/*
 * Exports to the KUnit suites only, and functions static but for them
 * (VISIBLE_IF_KUNIT): <kunit/visibility.h>, v6.2 ("kunit: add macro to
 * allow conditionally exposing static symbols to tests"); before, symbol
 * namespaces (v5.4) or GPL exports (RHEL 8).  Namespaces
 * are string literals since v6.13 ("module: Convert symbol namespace...").
 */
#ifdef IOLAT_HAVE_KUNIT_VISIBILITY
#include <kunit/visibility.h>
#elif IS_ENABLED(CONFIG_KUNIT) && defined(IOLAT_HAVE_SYMBOL_NS)
#define EXPORT_SYMBOL_IF_KUNIT(symbol) \
	EXPORT_SYMBOL_NS(symbol, EXPORTED_FOR_KUNIT_TESTING)
#define VISIBLE_IF_KUNIT
#elif IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_IF_KUNIT(symbol) EXPORT_SYMBOL_GPL(symbol)
#define VISIBLE_IF_KUNIT
#else
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#define VISIBLE_IF_KUNIT static
#endif

#if defined(IOLAT_HAVE_SYMBOL_NS) && defined(IOLAT_HAVE_SYMBOL_NS_IDENT)
#define IOLAT_KUNIT_IMPORT_NS() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#elif defined(IOLAT_HAVE_SYMBOL_NS)
#define IOLAT_KUNIT_IMPORT_NS() MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define IOLAT_KUNIT_IMPORT_NS()
#endif

/*
 * KUNIT_EXPECT_NULL(), _NOT_NULL(): v5.18 ("kunit: Introduce _NULL and
 * _NOT_NULL macros"); for the KUnit suites, after <kunit/test.h>.
 */
#ifndef IOLAT_HAVE_KUNIT_EXPECT_NULL
#define KUNIT_EXPECT_NULL(test, ptr) \
	KUNIT_EXPECT_PTR_EQ(test, (const void *)(ptr), (const void *)NULL)
#define KUNIT_EXPECT_NOT_NULL(test, ptr) \
	KUNIT_EXPECT_PTR_NE(test, (const void *)(ptr), (const void *)NULL)
#endif

/*
 * Generic netlink: strict policies with u32 ranges.  What older kernels
 * lack, iolat_nl_validate() does, so every kernel refuses the same
 * requests with the same messages: ranges (v5.8, "netlink: extend policy
 * range validation"), strictness (v5.2, "genetlink: make policy common
 * to family"), nested policies (v4.20, "netlink: add nested array
 * validation") and a dump's extack (v4.20, "netlink: Pass extack to dump
 * handlers").
 */
#ifndef IOLAT_HAVE_NLA_FULL_RANGE
struct netlink_range_validation {
	u64 min, max;
};
#define IOLAT_NLA_U32_RANGE(range) \
	{ .type = NLA_U32, .validation_data = (range) }
#else
#define IOLAT_NLA_U32_RANGE(range) NLA_POLICY_FULL_RANGE(NLA_U32, range)
#endif

#ifdef IOLAT_HAVE_NLA_POLICY_NESTED
#define IOLAT_NLA_NESTED(policy) NLA_POLICY_NESTED(policy)
#else
#define IOLAT_NLA_NESTED(policy) { .type = NLA_NESTED }
#endif

/* Formatted extack messages (79 characters): v6.3; before, @plain. */
#ifdef NL_SET_ERR_MSG_FMT
#define IOLAT_ERR_MSG_FMT(ack, plain, f, ...) NL_SET_ERR_MSG_FMT(ack, f, ##__VA_ARGS__)
#else
#define IOLAT_ERR_MSG_FMT(ack, plain, f, ...) NL_SET_ERR_MSG(ack, plain)
#endif

#ifdef IOLAT_HAVE_GENL_FAMILY_POLICY
#define IOLAT_GENL_FAMILY_POLICY(p_) .policy = (p_),
#define IOLAT_GENL_OP_POLICY(p_)
#else
#define IOLAT_GENL_FAMILY_POLICY(p_)
#define IOLAT_GENL_OP_POLICY(p_) .policy = (p_),
#endif

static inline struct netlink_ext_ack *iolat_cb_extack(struct netlink_callback *cb)
{
#ifdef IOLAT_HAVE_NETLINK_CB_EXTACK
	return cb->extack;
#else
	return NULL;
#endif
}

/* Where that leaves some out, iolat_nl_validate() (nl_policy.c) does it. */
#if !defined(IOLAT_HAVE_GENL_FAMILY_POLICY) || !defined(IOLAT_HAVE_NLA_FULL_RANGE)
#define IOLAT_NL_VALIDATE_OWN 1
#else
#define IOLAT_NL_VALIDATE_OWN 0
#endif

/* Tracing is CAP_PERFMON's business (v5.8, "capabilities: Introduce
 * CAP_PERFMON to kernel and user space"); CAP_SYS_ADMIN implies it.
 */
static inline bool iolat_capable_perfmon(const struct sk_buff *skb)
{
#ifdef IOLAT_HAVE_CAP_PERFMON
	if (netlink_capable(skb, CAP_PERFMON))
		return true;
#endif
	return netlink_capable(skb, CAP_SYS_ADMIN);
}

/* The same for the task opening /dev/iolat (ring_map.c). */
static inline bool iolat_task_capable_perfmon(void)
{
#ifdef IOLAT_HAVE_CAP_PERFMON
	if (capable(CAP_PERFMON))
		return true;
#endif
	return capable(CAP_SYS_ADMIN);
}

/*
 * A mapping's flags, set in ->mmap() (the mmap lock held for writing):
 * through vm_flags_set() from v6.3 ("mm: introduce vma->vm_flags wrapper
 * functions"), which made vma->vm_flags read-only.
 */
static inline void iolat_vm_flags_set(struct vm_area_struct *vma,
				      unsigned long flags)
{
#ifdef IOLAT_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * nvme-core's tracepoints, declared in its private header: their
 * prototypes, the same from v4.19 to v7.2, spelled out here and checked
 * against the real ones where the source tree is at hand (probe_nvme.c).
 */
struct nvme_command;
#define IOLAT_TP_NVME_SETUP_PROTO(data, rq_, cmd_) \
	void *data, struct request *rq_, struct nvme_command *cmd_
#define IOLAT_TP_NVME_COMPLETE_PROTO(data, rq_) \
	void *data, struct request *rq_

/*
 * The head of nvme-core's private struct nvme_request (nvme_req()), where
 * a completion's status is: with the genctr byte of v5.13 ("nvme: code
 * command_id with a genctr for use-after-free validation"; 5.10 and RHEL
 * 8.7 by backport) or without.  Checked against the real struct where
 * the source is at hand, else learnt at run time (docs/design.md).
 * IOLAT_NVME_LAYOUT_CONTROL: a build that must fail (make check).
 */
/* nvme-core's union nvme_result (include/linux/nvme.h's, by value) */
union iolat_nvme_result {
	__le16 u16;
	__le32 u32;
	__le64 u64;
};

struct iolat_nvme_head_genctr {
	struct nvme_command *cmd;
	union iolat_nvme_result result;
	u8 genctr;
	u8 retries;
	u8 flags;
#ifdef IOLAT_NVME_LAYOUT_CONTROL
	u16 control;
#endif
	u16 status;
};

struct iolat_nvme_head_plain {
	struct nvme_command *cmd;
	union iolat_nvme_result result;
	u8 retries;
	u8 flags;
#ifdef IOLAT_NVME_LAYOUT_CONTROL
	u16 control;
#endif
	u16 status;
};

/*
 * A disk opened briefly to read its queue (@h: for iolat_bdev_close()):
 * opening took holder ops in v6.5 ("block: use the holder as indication
 * for exclusive opens"), became bdev_file_open_by_dev() in v6.9 ("bdev:
 * open block device as files").  Return: the device or an ERR_PTR.
 */
static inline struct block_device *iolat_bdev_open(dev_t devt, void **h)
{
#if defined(IOLAT_HAVE_BDEV_FILE_OPEN_BY_DEV)
	struct file *f = bdev_file_open_by_dev(devt, BLK_OPEN_READ, NULL, NULL);

	*h = f;
	return IS_ERR(f) ? ERR_CAST(f) : file_bdev(f);
#elif defined(IOLAT_HAVE_BLKDEV_GET_HOLDER_OPS)
	*h = NULL;
	return blkdev_get_by_dev(devt, BLK_OPEN_READ, NULL, NULL);
#else
	*h = NULL;
	return blkdev_get_by_dev(devt, FMODE_READ, NULL);
#endif
}

static inline void iolat_bdev_close(struct block_device *bdev, void *h)
{
#if defined(IOLAT_HAVE_BDEV_FILE_OPEN_BY_DEV)
	fput(h);
#elif defined(IOLAT_HAVE_BLKDEV_GET_HOLDER_OPS)
	blkdev_put(bdev, NULL);
#else
	blkdev_put(bdev, FMODE_READ);
#endif
}

/*
 * @q's hardware queues for @cpu's requests into @hwq, one per map in use
 * (default, read, poll: a tag set's maps since v5.0, "blk-mq: abstract
 * out queue map"; q->mq_map before).  Return: how many, -E2BIG if > @max.
 */
static inline int iolat_cpu_hwqs(const struct request_queue *q,
				 unsigned int cpu, u32 *hwq, int max)
{
	int n = 0;
#ifdef IOLAT_HAVE_TAG_SET_MAPS
	unsigned int i;

	for (i = 0; q->tag_set && i < q->tag_set->nr_maps; i++)
		if (q->tag_set->map[i].nr_queues && n++ < max)
			hwq[n - 1] = q->tag_set->map[i].mq_map[cpu];
#else
	if (q->mq_map && n++ < max)
		hwq[0] = q->mq_map[cpu];
#endif
	return n > max ? -E2BIG : n;
}

#endif /* _IOLAT_COMPAT_H */
