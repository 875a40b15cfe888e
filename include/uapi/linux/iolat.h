/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * iolat: block I/O latency tracing, kernel <-> user ABI.
 *
 * The generic netlink family "iolat" (IOLAT_GENL_NAME) carries commands
 * and per-request records between the iolat module and its CLI.  This
 * header is the single definition of that ABI; docs/abi.md explains it.
 *
 * Versioning: IOLAT_ABI_VERSION is bumped on any incompatible change to
 * a command, an attribute or struct iolat_record.  The CLI refuses to run
 * against a module reporting another ABI version.  Adding an attribute at
 * the end of an enum is compatible and does not bump the version.
 */
#ifndef _UAPI_LINUX_IOLAT_H
#define _UAPI_LINUX_IOLAT_H

#include <linux/types.h>

#define IOLAT_GENL_NAME		"iolat"
#define IOLAT_GENL_VERSION	1
#define IOLAT_ABI_VERSION	2

/* Limits the module enforces; the CLI uses them to build valid requests. */
#define IOLAT_MAX_DEVS		16	/* devices per session */
#define IOLAT_MAX_HWQ		4096	/* hardware queues per device */
#define IOLAT_MAX_DEPTH		10240	/* tags per hardware queue (BLK_MQ_MAX_DEPTH) */
#define IOLAT_RING_MIN		64	/* records per CPU buffer */
#define IOLAT_RING_MAX		(1U << 20)
#define IOLAT_RING_DEFAULT	8192
#define IOLAT_COMM_LEN		16	/* TASK_COMM_LEN */

enum iolat_cmd {
	IOLAT_CMD_UNSPEC,
	IOLAT_CMD_GET_INFO,	/* module and ABI versions; no privilege */
	IOLAT_CMD_START,	/* start this socket's session */
	IOLAT_CMD_STOP,		/* stop it; the reply carries IOLAT_A_STATS */
	IOLAT_CMD_READ,		/* dump: drain the per-CPU record buffers */

	__IOLAT_CMD_MAX,
	IOLAT_CMD_MAX = __IOLAT_CMD_MAX - 1
};

enum iolat_attr {
	IOLAT_A_UNSPEC,
	IOLAT_A_ABI_VERSION,	/* u32 */
	IOLAT_A_MODULE_VERSION,	/* string */
	IOLAT_A_RECORD_SIZE,	/* u32: sizeof(struct iolat_record) */
	IOLAT_A_NR_CPUS,	/* u32: possible CPUs, one buffer each */
	IOLAT_A_DEV,		/* nest of enum iolat_dev_attr; repeated */
	IOLAT_A_RING_RECORDS,	/* u32: records per CPU buffer, power of 2 */
	IOLAT_A_RECORDS,	/* binary: array of struct iolat_record */
	IOLAT_A_STATS,		/* nest of enum iolat_stat_attr */
	IOLAT_A_CPU,		/* u32: CPU of the IOLAT_A_RECORDS buffer */
	IOLAT_A_PAD,
	IOLAT_A_MISSING_TP,	/* string: a tracepoint this kernel lacks; repeated */
	IOLAT_A_FILTER_OPS,	/* u32: bit (1 << enum iolat_op) per op to keep */
	IOLAT_A_FILTER_PID,	/* u32: keep requests submitted by this thread */
	IOLAT_A_FILTER_TGID,	/* u32: ... by this process (thread group) */
	IOLAT_A_FILTER_COMM,	/* string: ... by a task of this name */
	IOLAT_A_FILTER_MIN_NS,	/* u64: keep requests whose latency is >= this */

	__IOLAT_A_MAX,
	IOLAT_A_MAX = __IOLAT_A_MAX - 1
};

/*
 * A device to trace: its block device number and the geometry of its
 * blk-mq tag space (number of hardware queues, tags per queue), which
 * sizes the in-flight table.  The CLI reads the geometry from sysfs
 * (/sys/block/NAME/mq/); requests outside it are counted, not recorded.
 */
enum iolat_dev_attr {
	IOLAT_DEV_A_UNSPEC,
	IOLAT_DEV_A_MAJOR,	/* u32 */
	IOLAT_DEV_A_MINOR,	/* u32 */
	IOLAT_DEV_A_NR_HWQ,	/* u32, 1..IOLAT_MAX_HWQ */
	IOLAT_DEV_A_DEPTH,	/* u32, 1..IOLAT_MAX_DEPTH */

	__IOLAT_DEV_A_MAX,
	IOLAT_DEV_A_MAX = __IOLAT_DEV_A_MAX - 1
};

/*
 * Session counters, all u64.  Every completion of a traced device is
 * counted in exactly one of: WRITTEN (a record in a buffer, delivered by
 * the drain), FILTERED (not wanted by the session's filters) or a DROP_*
 * reason:
 *   DROP_FULL       the CPU's buffer was full
 *   DROP_UNMATCHED  the request was not seen whole: allocated before the
 *                   session began (in flight at start), or issued after
 *                   it began to stop
 *   DROP_RANGE      hardware queue or tag outside the geometry given at
 *                   start
 * The others count events, not requests: PARTIAL completions (the request
 * stays in flight), ERRORS (block_rq_error), REQUEUES, BIO_MERGES (bios
 * merged into a request: back, front), RQ_MERGES (requests merged into
 * another by the scheduler; they never complete themselves), SPLITS,
 * PLUGS and UNPLUGS.
 */
enum iolat_stat_attr {
	IOLAT_STAT_A_UNSPEC,
	IOLAT_STAT_A_WRITTEN,
	IOLAT_STAT_A_DROP_FULL,
	IOLAT_STAT_A_DROP_UNMATCHED,
	IOLAT_STAT_A_DROP_RANGE,
	IOLAT_STAT_A_PARTIAL,
	IOLAT_STAT_A_PAD,
	IOLAT_STAT_A_FILTERED,
	IOLAT_STAT_A_ERRORS,
	IOLAT_STAT_A_REQUEUES,
	IOLAT_STAT_A_BIO_MERGES,
	IOLAT_STAT_A_RQ_MERGES,
	IOLAT_STAT_A_SPLITS,
	IOLAT_STAT_A_PLUGS,
	IOLAT_STAT_A_UNPLUGS,

	__IOLAT_STAT_A_MAX,
	IOLAT_STAT_A_MAX = __IOLAT_STAT_A_MAX - 1
};

/* Request operation, independent of the kernel's REQ_OP_* numbering. */
enum iolat_op {
	IOLAT_OP_READ,
	IOLAT_OP_WRITE,
	IOLAT_OP_FLUSH,
	IOLAT_OP_DISCARD,
	IOLAT_OP_WRITE_ZEROES,
	IOLAT_OP_OTHER,

	IOLAT_OP_NR
};

/* Request flags (struct iolat_record.flags). */
#define IOLAT_F_SYNC		(1U << 0)
#define IOLAT_F_META		(1U << 1)
#define IOLAT_F_FUA		(1U << 2)
#define IOLAT_F_PREFLUSH	(1U << 3)
#define IOLAT_F_SPLIT		(1U << 8)	/* made from a split bio */
#define IOLAT_F_SUBMITTER	(1U << 9)	/* pid, tgid, comm are known */

/*
 * One completed request.  Times are CLOCK_MONOTONIC nanoseconds from
 * ktime_get_ns() on the CPU that ran the stage; a stage not seen is 0:
 *   q_ns  block_bio_queue (Q) of the request's first bio
 *   g_ns  block_getrq (G): the request was allocated
 *   i_ns  block_rq_insert (I): into the scheduler or a software queue;
 *         0 when the request went straight to the driver
 *   d_ns  block_rq_issue (D): to the driver, the last time if requeued
 *   c_ns  block_rq_complete (C)
 * The submitter (pid, tgid, comm) is the task that queued the first bio,
 * taken in its own context.  qd_insert and qd_issue are the requests of
 * the same hardware queue already queued (inserted or issued, not yet
 * completed) and already issued, when this one was queued and issued.
 * 104 bytes, no holes.
 */
struct iolat_record {
	__u64 q_ns;
	__u64 g_ns;
	__u64 i_ns;
	__u64 d_ns;
	__u64 c_ns;
	__u64 sector;		/* first 512-byte sector */
	__u32 major;		/* device of the whole disk */
	__u32 minor;
	__u32 bytes;		/* request size */
	__u32 flags;		/* IOLAT_F_* */
	__u32 pid;
	__u32 tgid;
	char comm[IOLAT_COMM_LEN];
	__u16 hwq;		/* hardware queue index */
	__u16 tag;		/* driver tag at issue */
	__u16 nr_bios;		/* bios in the request: 1 + merged */
	__u16 requeues;
	__u16 qd_insert;
	__u16 qd_issue;
	__u8 op;		/* enum iolat_op */
	__u8 pad;
	__s16 error;		/* 0 or a negative errno */
};

#endif /* _UAPI_LINUX_IOLAT_H */
