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
#include <linux/ioctl.h>

#define IOLAT_GENL_NAME		"iolat"
#define IOLAT_GENL_VERSION	1
#define IOLAT_ABI_VERSION	6

/* Limits the module enforces; the CLI uses them to build valid requests. */
#define IOLAT_MAX_DEVS		4096	/* devices per session */
#define IOLAT_MAX_SESSIONS	16	/* at once: the max_sessions parameter's limit */
#define IOLAT_MAX_HWQ		4096	/* hardware queues per device */
#define IOLAT_MAX_DEPTH		10240	/* tags per hardware queue (BLK_MQ_MAX_DEPTH) */
#define IOLAT_RING_MIN		64	/* records per CPU buffer */
#define IOLAT_RING_MAX		(1U << 20)
#define IOLAT_RING_DEFAULT	8192
#define IOLAT_COMM_LEN		16	/* TASK_COMM_LEN */
#define IOLAT_FILTER_CGROUPS	8	/* cgroups of IOLAT_A_FILTER_CGROUPS */
#define IOLAT_CGROUP_SLOTS_MAX	32	/* IOLAT_A_CGROUP_SLOTS */
#define IOLAT_NVME_ADMIN_TAGS	64	/* admin commands in flight per controller */
#define IOLAT_MAX_EVENTS	16	/* session events kept until read */

enum iolat_cmd {
	IOLAT_CMD_UNSPEC,
	IOLAT_CMD_GET_INFO,	/* module and ABI versions; no privilege */
	IOLAT_CMD_START,	/* start this socket's session */
	IOLAT_CMD_STOP,		/* stop it; the reply carries IOLAT_A_STATS */
	IOLAT_CMD_READ,		/* dump: drain the per-CPU record buffers */
	IOLAT_CMD_COUNTERS,	/* dump: the session's counters, per device */
	IOLAT_CMD_CLOCKTEST,	/* test the clocks across CPUs (IOLAT_A_CLOCK) */
	IOLAT_CMD_HIST,		/* dump: an aggregating session's histograms */
	IOLAT_CMD_DEV_ADD,	/* a whole disk (IOLAT_A_DEV) joins the session */
	IOLAT_CMD_CGROUPS,	/* dump: the per-cgroup counts (IOLAT_A_CGROUP) */
	IOLAT_CMD_CGROUPS_FREE,	/* free the cgroup slots IOLAT_A_CGROUP names */
	IOLAT_CMD_WATCH,	/* a watching session's state (IOLAT_A_WATCH) */
	/* trigger every watching session (IOLAT_WATCH_A_REASON), any socket's */
	IOLAT_CMD_WATCH_TRIGGER,
	IOLAT_CMD_WATCH_FREEZE,	/* stop its recorder, for READ to copy it out */
	IOLAT_CMD_WATCH_ARM,	/* start it again, empty (IOLAT_WATCH_A_QUIET_NS) */

	__IOLAT_CMD_MAX,
	IOLAT_CMD_MAX = __IOLAT_CMD_MAX - 1
};

enum iolat_attr {
	IOLAT_A_UNSPEC,
	IOLAT_A_ABI_VERSION,	/* u32 */
	IOLAT_A_MODULE_VERSION,	/* string */
	IOLAT_A_RECORD_SIZE,	/* u32: sizeof(struct iolat_record) */
	IOLAT_A_NR_CPUS,	/* u32: CPUs online, a session buffer each */
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
	IOLAT_A_COUNTERS_ONLY,	/* flag: keep the counters, write no record */
	IOLAT_A_DEV_COUNTERS,	/* nest of enum iolat_cnt_attr */
	IOLAT_A_CLOCK,		/* nest of enum iolat_clock_attr; repeated */
	IOLAT_A_CLOCK_LOOPS,	/* u32: clock reads per CPU for CLOCKTEST */
	/* u64: times the module's clock went back across CPUs in the test
	 * run at load (GET_INFO)
	 */
	IOLAT_A_CLOCK_INVERSIONS,
	/* flag (START): also trace the NVMe commands of the session's NVMe
	 * namespaces (IOLAT_DEV_A_NVME_CTRL) and of their controllers'
	 * admin queues
	 */
	IOLAT_A_NVME,
	/* u32 (GET_INFO): 1 if nvme-core's tracepoints are there to attach */
	IOLAT_A_NVME_AVAILABLE,
	IOLAT_A_EVENT,		/* nest of enum iolat_event_attr; repeated (READ) */
	/* flag (START): aggregate in the module, per CPU, into histograms
	 * per device, op and stage (IOLAT_CMD_HIST); no records
	 */
	IOLAT_A_AGGREGATE,
	IOLAT_A_HIST,		/* nest of enum iolat_hist_attr (HIST) */
	/* u64 (GET_INFO): the memory of every session, bytes */
	IOLAT_A_MEM_BYTES,
	/* u64 (GET_INFO): that of the asking socket's session, if it has one */
	IOLAT_A_SESSION_MEM_BYTES,
	IOLAT_A_NR_SESSIONS,	/* u32 (GET_INFO): sessions now */
	/* flag (START): each record carries its I/O's cgroup (cgroup) */
	IOLAT_A_CGROUPS,
	/*
	 * binary (START): u64 cgroup ids, 1 to IOLAT_FILTER_CGROUPS: keep the
	 * requests whose first bio is charged to one of these cgroups of the
	 * io controller's hierarchy (v2, or v1's blkio) or to a cgroup under
	 * one.  A cgroup is known by its directory's inode number (st_ino);
	 * the module compares the low 32 bits (the kernfs inode number, the
	 * whole id before v5.5 having a generation above it).
	 */
	IOLAT_A_FILTER_CGROUPS,
	/*
	 * u32 (START), 1 to IOLAT_CGROUP_SLOTS_MAX: a counters-only or an
	 * aggregating session keeps counts per cgroup of each device, in
	 * this many slots taken by the first cgroups seen on the device
	 * and one for the others (IOLAT_CMD_CGROUPS; an aggregating one
	 * also each slot's Q2C histogram, IOLAT_HIST_A_CGROUP)
	 */
	IOLAT_A_CGROUP_SLOTS,
	/*
	 * nest of enum iolat_cgroup_attr: a slot's counts (CGROUPS); a
	 * slot to free (CGROUPS_FREE: MAJOR, MINOR, ID; repeated), whose
	 * counts and histogram go to the others' slot
	 */
	IOLAT_A_CGROUP,
	/*
	 * nest of enum iolat_watch_attr (START, with IOLAT_A_AGGREGATE): a
	 * flight recorder.  Besides its histograms, the session writes
	 * every kept request's record into its per-CPU buffers, which
	 * overwrite their oldest and which READ does not copy until the
	 * recorder is frozen (WATCH_FREEZE); a trigger (a request slower
	 * than SLOWER_NS in STAGE, an error with ON_ERROR, WATCH_TRIGGER)
	 * keeps the records completed since its time less BEFORE_NS from
	 * being overwritten.  Replies of WATCH carry its state.
	 */
	IOLAT_A_WATCH,

	__IOLAT_A_MAX,
	IOLAT_A_MAX = __IOLAT_A_MAX - 1
};

/*
 * A device to trace: its block device number and the geometry of its
 * blk-mq tag space (number of hardware queues, tags per queue), which
 * sizes the in-flight table.  The CLI reads the geometry from sysfs
 * (/sys/block/NAME/mq/); requests outside it are counted, not recorded.
 * A partition is traced on its whole disk: DISK_MAJOR and DISK_MINOR
 * name the disk, whose geometry NR_HWQ and DEPTH are, and its requests
 * whose first sector lies in [START, START + SECTORS) are the
 * partition's; records and counters carry MAJOR and MINOR, the
 * partition's own, and a record's sector is counted from START.  All
 * four come together or not at all.
 */
enum iolat_dev_attr {
	IOLAT_DEV_A_UNSPEC,
	IOLAT_DEV_A_MAJOR,	/* u32 */
	IOLAT_DEV_A_MINOR,	/* u32 */
	IOLAT_DEV_A_NR_HWQ,	/* u32, 1..IOLAT_MAX_HWQ */
	IOLAT_DEV_A_DEPTH,	/* u32, 1..IOLAT_MAX_DEPTH */
	/* u32: the device is a namespace of controller nvme<N>; with
	 * IOLAT_A_NVME its commands are traced (the CLI reads N from sysfs)
	 */
	IOLAT_DEV_A_NVME_CTRL,
	IOLAT_DEV_A_DISK_MAJOR,	/* u32: a partition's disk */
	IOLAT_DEV_A_DISK_MINOR,	/* u32 */
	IOLAT_DEV_A_START,	/* u64: a partition's first sector on its disk */
	IOLAT_DEV_A_SECTORS,	/* u64: its size in 512-byte sectors, >= 1 */
	/* flag: a bio-based device (no requests: device-mapper, md): its bios
	 * are traced from queue to completion, in a table of DEPTH slots (a
	 * power of two); NR_HWQ is 1
	 */
	IOLAT_DEV_A_BIO_BASED,
	/* flag: a device with requests under a bio-based device of the
	 * session (one of its slaves): its requests that the
	 * kernel remapped (block_bio_remap) from an I/O of that device are
	 * joined to it (IOLAT_F_STACK), the others counted apart
	 */
	IOLAT_DEV_A_LOWER,

	__IOLAT_DEV_A_MAX,
	IOLAT_DEV_A_MAX = __IOLAT_DEV_A_MAX - 1
};

/*
 * The session counters (IOLAT_A_STATS), all u64, listed in
 * linux/iolat_stats.h.  Every completion of a traced device is
 * counted in exactly one of: WRITTEN (a record in a buffer, delivered by
 * the drain; in an aggregating session, added to its histograms; in a
 * counters-only session, not counted here), FILTERED (not wanted by the session's filters) or a DROP_*
 * reason:
 *   DROP_FULL       the CPU's buffer was full
 *   DROP_UNMATCHED  the request was not seen whole: allocated before the
 *                   session began (in flight at start), or issued after
 *                   it began to stop; a bio-based device's bio queued
 *                   before the start, or when its table had no free slot
 *   DROP_RANGE      hardware queue or tag outside the geometry given at
 *                   start
 * The others count events, not requests: PARTIAL completions (the request
 * stays in flight), ERRORS (block_rq_error), REQUEUES, BIO_MERGES (bios
 * merged into a request: back, front), RQ_MERGES (requests merged into
 * another by the scheduler; they never complete themselves), SPLITS,
 * PLUGS and UNPLUGS.
 * NVME_COMPLETED counts the NVMe command completions (nvme_complete_rq)
 * of the session's controllers: each goes into the record of its request
 * (an admin command's own record), or is NVME_UNMATCHED (its setup was
 * not seen: set up before the session or while nvme-core's probes were
 * away), NVME_RETRIED (the driver set it up again: the record carries
 * the last try and the retry count) or NVME_OTHER_NS (a namespace of
 * the controller that the session does not trace).  EVENTS_LOST counts
 * session events (IOLAT_A_EVENT) that did not fit until the next READ.
 * A stack (a bio-based device and its lower devices, IOLAT_DEV_A_LOWER)
 * in a session that times stages (not COUNTERS_ONLY): REMAPS counts the
 * kernel's remaps (block_bio_remap) of the bio-based devices' I/Os to
 * the lower devices, each tied to its I/O, REMAPS_UNMATCHED those whose
 * I/O was not found (queued before the session, or its table full) or
 * could not be tied (the link table full); every lower device's request
 * seen whole is STACK_JOINED (made from a remapped bio: IOLAT_F_STACK)
 * or STACK_UNJOINED (the stack's own: md's superblocks and resync,
 * device-mapper's metadata; or a bio the kernel did not report remapped,
 * as dm-crypt's before v5.16).
 */
enum iolat_stat_attr {
	IOLAT_STAT_A_UNSPEC,
#define IOLAT_STAT(field, ATTR, ...) IOLAT_STAT_A_##ATTR,
#define IOLAT_STAT_GAP(ATTR) IOLAT_STAT_A_##ATTR,
#include <linux/iolat_stats.h>

	__IOLAT_STAT_A_MAX,
	IOLAT_STAT_A_MAX = __IOLAT_STAT_A_MAX - 1
};

/*
 * A device's counters (IOLAT_CMD_COUNTERS), from the session's start to
 * NOW_NS, all u64 unless said.  Busy times are the measure of the union
 * of the requests' intervals, in-flight times the sum of their lengths
 * (divided by the elapsed time: the average queue depth); requests in
 * flight count up to NOW_NS.  A request's device interval is [issue,
 * complete]; its queue interval is [first stage seen (queue, else
 * get-request, insert, issue), complete], and not before the session.
 * IOS, BYTES and WAIT_NS are per enum iolat_op, u64 arrays; QD_HIST counts
 * the queue depth at issue (the requests of the hardware queue already
 * issued) in the buckets of lib/busy.h, a u64 array.  A device whose
 * queues do not fit in one message continues in the next, which repeats
 * MAJOR and MINOR and carries only more HWQ nests.
 */
enum iolat_cnt_attr {
	IOLAT_CNT_A_UNSPEC,
	IOLAT_CNT_A_PAD,
	IOLAT_CNT_A_MAJOR,	/* u32 */
	IOLAT_CNT_A_MINOR,	/* u32 */
	IOLAT_CNT_A_START_NS,	/* the session began (CLOCK_MONOTONIC) */
	IOLAT_CNT_A_NOW_NS,	/* time of these values */
	IOLAT_CNT_A_BUSY_NS,
	IOLAT_CNT_A_QBUSY_NS,
	IOLAT_CNT_A_INFLIGHT_NS,
	IOLAT_CNT_A_QINFLIGHT_NS,
	IOLAT_CNT_A_QUEUED,	/* u32: requests in the queue now */
	IOLAT_CNT_A_ISSUED,	/* u32: ... of which at the driver */
	IOLAT_CNT_A_IOS,	/* binary: __u64[IOLAT_OP_NR] */
	IOLAT_CNT_A_BYTES,	/* binary: __u64[IOLAT_OP_NR] */
	IOLAT_CNT_A_WAIT_NS,	/* binary: __u64[IOLAT_OP_NR] */
	IOLAT_CNT_A_ISSUES,
	IOLAT_CNT_A_QD_SUM,	/* sum of the queue depths at issue */
	IOLAT_CNT_A_QD_HIST,	/* binary: __u64[buckets] */
	IOLAT_CNT_A_HWQ,	/* nest of enum iolat_hwq_attr; repeated */
	/* binary: __u64[IOLAT_OP_NR]: requests and bytes an aggregating
	 * session added to its histograms (IOLAT_CMD_HIST)
	 */
	IOLAT_CNT_A_AGG_IOS,
	IOLAT_CNT_A_AGG_BYTES,
	/* binary: __u64[IOLAT_OP_NR]: a stack's bio-based device
	 * (IOLAT_DEV_A_LOWER under it): its completed I/Os that had requests
	 * below, and the sum of their time below, from the first one's
	 * first stage to the last one's completion; the rest of their
	 * WAIT_NS was spent above, in the stack's own layers
	 */
	IOLAT_CNT_A_BELOW_IOS,
	IOLAT_CNT_A_BELOW_NS,

	__IOLAT_CNT_A_MAX,
	IOLAT_CNT_A_MAX = __IOLAT_CNT_A_MAX - 1
};

/* One hardware queue's share of a device's counters. */
enum iolat_hwq_attr {
	IOLAT_HWQ_A_UNSPEC,
	IOLAT_HWQ_A_PAD,
	IOLAT_HWQ_A_INDEX,	/* u32 */
	IOLAT_HWQ_A_BUSY_NS,	/* u64 */
	IOLAT_HWQ_A_QBUSY_NS,	/* u64 */
	IOLAT_HWQ_A_QUEUED,	/* u32 */
	IOLAT_HWQ_A_ISSUED,	/* u32 */

	__IOLAT_HWQ_A_MAX,
	IOLAT_HWQ_A_MAX = __IOLAT_HWQ_A_MAX - 1
};

/*
 * One clock in the clock test: a thread per CPU reads it and takes the
 * next number of a shared sequence with compare-and-swap, so the reads
 * are in sequence order; an inversion is a read lower than the one
 * before it in that order, counted per (CPU before, CPU after) pair.
 */
enum iolat_clock_attr {
	IOLAT_CLOCK_A_UNSPEC,
	IOLAT_CLOCK_A_PAD,
	IOLAT_CLOCK_A_NAME,	/* string */
	IOLAT_CLOCK_A_IN_USE,	/* flag: the clock of every stage */
	IOLAT_CLOCK_A_READ_PS,	/* u64: cost of one read, picoseconds */
	IOLAT_CLOCK_A_SAMPLES,	/* u64: reads in sequence */
	IOLAT_CLOCK_A_INVERSIONS, /* u64 */
	IOLAT_CLOCK_A_MAX_BACK,	/* u64: largest step back, in clock units */
	IOLAT_CLOCK_A_UNITS,	/* string: "ns" or "cycles" */
	IOLAT_CLOCK_A_PAIR,	/* nest of enum iolat_pair_attr; repeated */

	__IOLAT_CLOCK_A_MAX,
	IOLAT_CLOCK_A_MAX = __IOLAT_CLOCK_A_MAX - 1
};

enum iolat_pair_attr {
	IOLAT_PAIR_A_UNSPEC,
	IOLAT_PAIR_A_PAD,
	IOLAT_PAIR_A_FROM,	/* u32: CPU of the earlier read */
	IOLAT_PAIR_A_TO,	/* u32: CPU of the later, lower read */
	IOLAT_PAIR_A_COUNT,	/* u64 */

	__IOLAT_PAIR_A_MAX,
	IOLAT_PAIR_A_MAX = __IOLAT_PAIR_A_MAX - 1
};

/*
 * Something that happened to a session (READ): the first message of each
 * READ dump carries the events since the previous one, oldest first.
 */
enum iolat_event_attr {
	IOLAT_EVENT_A_UNSPEC,
	IOLAT_EVENT_A_PAD,
	IOLAT_EVENT_A_TIME_NS,	/* u64, CLOCK_MONOTONIC */
	IOLAT_EVENT_A_KIND,	/* u32: enum iolat_event_kind */
	IOLAT_EVENT_A_MODULE,	/* string: the kernel module concerned */

	__IOLAT_EVENT_A_MAX,
	IOLAT_EVENT_A_MAX = __IOLAT_EVENT_A_MAX - 1
};

/*
 * One histogram of an aggregating session (IOLAT_CMD_HIST), summed over
 * the CPUs: the latencies of a device's completed requests of one op in
 * one stage (IOLAT_AGG_STAGE_*), in the bins of lib/hist.h.  BINS holds
 * the counts of the bins from FIRST_BIN on, __u64 each; a histogram
 * whose bins do not fit in one message continues in the next, which
 * repeats MAJOR, MINOR, OP and STAGE and carries only FIRST_BIN and BINS.
 * Bins after the last one sent are 0.  The first message also carries
 * the totals; COUNT is the sum of the bins and OVERFLOW.
 */
enum iolat_hist_attr {
	IOLAT_HIST_A_UNSPEC,
	IOLAT_HIST_A_PAD,
	IOLAT_HIST_A_MAJOR,	/* u32 */
	IOLAT_HIST_A_MINOR,	/* u32 */
	IOLAT_HIST_A_OP,	/* u32: enum iolat_op */
	IOLAT_HIST_A_STAGE,	/* u32: IOLAT_AGG_STAGE_* */
	IOLAT_HIST_A_COUNT,	/* u64 */
	IOLAT_HIST_A_SUM_NS,	/* u64 */
	IOLAT_HIST_A_MIN_NS,	/* u64 */
	IOLAT_HIST_A_MAX_NS,	/* u64 */
	IOLAT_HIST_A_OVERFLOW,	/* u64: values beyond the last bin */
	IOLAT_HIST_A_SUMSQ_LO,	/* u64: sum of the squares, low 64 bits */
	IOLAT_HIST_A_SUMSQ_HI,	/* u64: ... high 64 bits */
	IOLAT_HIST_A_FIRST_BIN,	/* u32 */
	IOLAT_HIST_A_BINS,	/* binary: __u64[] from FIRST_BIN on */
	/*
	 * u64: a cgroup slot's Q2C histogram, of every op (no OP), its
	 * cgroup as IOLAT_CGROUP_A_ID
	 */
	IOLAT_HIST_A_CGROUP,

	__IOLAT_HIST_A_MAX,
	IOLAT_HIST_A_MAX = __IOLAT_HIST_A_MAX - 1
};

/*
 * One cgroup slot of a device (IOLAT_CMD_CGROUPS, IOLAT_A_CGROUP_SLOTS),
 * since it was taken: its requests, bytes and wait times, per enum
 * iolat_op as the device's IOLAT_CNT_A_IOS, BYTES and WAIT_NS (every
 * completed request, as the device's counters), which the slots and
 * the others' sum to.  ID is the low 32 bits of the cgroup's id (its
 * kernfs inode number) of the io controller's hierarchy (v2's, or v1's
 * blkio); 0 for the others: requests of cgroups that found every slot
 * taken, and those without a bio (a flush), and the counts of the slots
 * freed (CGROUPS_FREE).  Only slots with requests are sent; a cgroup may
 * be in two slots (taken at once on two CPUs after a slot was freed).
 */
enum iolat_cgroup_attr {
	IOLAT_CGROUP_A_UNSPEC,
	IOLAT_CGROUP_A_PAD,
	IOLAT_CGROUP_A_MAJOR,	/* u32 */
	IOLAT_CGROUP_A_MINOR,	/* u32 */
	IOLAT_CGROUP_A_ID,	/* u64 */
	IOLAT_CGROUP_A_IOS,	/* binary: __u64[IOLAT_OP_NR] */
	IOLAT_CGROUP_A_BYTES,	/* binary: __u64[IOLAT_OP_NR] */
	IOLAT_CGROUP_A_WAIT_NS,	/* binary: __u64[IOLAT_OP_NR] */

	__IOLAT_CGROUP_A_MAX,
	IOLAT_CGROUP_A_MAX = __IOLAT_CGROUP_A_MAX - 1
};

/*
 * A flight recorder (IOLAT_A_WATCH).  START: SLOWER_NS (0: none), STAGE
 * (enum iolat_stage of lib/record.h; Q2C if absent), ON_ERROR, BEFORE_NS.
 * WATCH_TRIGGER: REASON (IOLAT_WATCH_USER or above).  WATCH_ARM: QUIET_NS,
 * a time (CLOCK_MONOTONIC) before which no request triggers it.  WATCH's
 * reply: STATE; when triggered, REASON, TRIGGER_NS (when), FLOOR_NS
 * (TRIGGER_NS less BEFORE_NS, the window's start: records completed since
 * are not overwritten), and the request that triggered it as RECORD (its
 * whole record); ARMED_NS (when it was last armed: the window holds
 * nothing before); LOST_NS, the latest completion time of a record
 * overwritten since then, on any CPU (a window starting before it lost
 * records); SUPPRESSED, the triggers before QUIET_NS or while one was
 * pending.
 */
enum iolat_watch_attr {
	IOLAT_WATCH_A_UNSPEC,
	IOLAT_WATCH_A_PAD,
	IOLAT_WATCH_A_SLOWER_NS,	/* u64 */
	IOLAT_WATCH_A_STAGE,		/* u32 */
	IOLAT_WATCH_A_ON_ERROR,		/* flag */
	IOLAT_WATCH_A_BEFORE_NS,	/* u64 */
	IOLAT_WATCH_A_STATE,		/* u32: enum iolat_watch_state */
	IOLAT_WATCH_A_REASON,		/* u32: enum iolat_watch_reason */
	IOLAT_WATCH_A_TRIGGER_NS,	/* u64 */
	IOLAT_WATCH_A_FLOOR_NS,		/* u64 */
	IOLAT_WATCH_A_RECORD,		/* binary: struct iolat_record */
	IOLAT_WATCH_A_ARMED_NS,		/* u64 */
	IOLAT_WATCH_A_LOST_NS,		/* u64 */
	IOLAT_WATCH_A_QUIET_NS,		/* u64 */
	IOLAT_WATCH_A_SUPPRESSED,	/* u64 */

	__IOLAT_WATCH_A_MAX,
	IOLAT_WATCH_A_MAX = __IOLAT_WATCH_A_MAX - 1
};

enum iolat_watch_state {
	IOLAT_WATCH_ARMED,	/* recording, overwriting the oldest */
	IOLAT_WATCH_TRIGGERED,	/* recording, the window kept */
	IOLAT_WATCH_FROZEN,	/* not recording: READ copies the buffers */
};

enum iolat_watch_reason {
	IOLAT_WATCH_NONE,
	IOLAT_WATCH_SLOWER,	/* a request slower than SLOWER_NS */
	IOLAT_WATCH_ERROR,	/* a request completed with an error */
	IOLAT_WATCH_USER,	/* WATCH_TRIGGER: asked for */
	IOLAT_WATCH_PERCENTILE,	/* WATCH_TRIGGER: a percentile over its bound */
	IOLAT_WATCH_REASON_MAX = IOLAT_WATCH_PERCENTILE
};

/* The stages an aggregating session keeps (enum iolat_stage's numbers). */
#define IOLAT_AGG_STAGE_D2C	3	/* issue -> complete */
#define IOLAT_AGG_STAGE_Q2C	4	/* queue -> complete */
/*
 * A stack's bio-based device (no D2C of its own): each I/O's Q2C less its
 * time below (IOLAT_CNT_A_BELOW_NS), for the I/Os with requests below
 */
#define IOLAT_AGG_STAGE_ABOVE	5

enum iolat_event_kind {
	IOLAT_EVENT_NVME_DETACHED,	/* nvme-core went away: no NVMe fields */
	IOLAT_EVENT_NVME_ATTACHED,	/* nvme-core is back: traced again */
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
#define IOLAT_F_NVME		(1U << 10)	/* the nvme_* fields are set */
#define IOLAT_F_NVME_ADMIN	(1U << 11)	/* an admin command (qid 0) */
#define IOLAT_F_NVME_DSM	(1U << 12)	/* the dsm_* fields are set */
/* an I/O of a bio-based device (device-mapper, md): a bio, queued (Q) to
 * completed (C), with no request stages; hwq 0, tag its slot
 */
#define IOLAT_F_BIO		(1U << 13)
/* a request of a lower device made from a bio the kernel remapped from an
 * I/O of a traced bio-based device (IOLAT_DEV_A_LOWER): pid, tgid and
 * comm are that I/O's submitter, not the thread that passed it down
 */
#define IOLAT_F_STACK		(1U << 14)

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
 *
 * With IOLAT_F_NVME, the NVMe command that carried the request (the last
 * one, if the driver retried it), from nvme-core's tracepoints:
 *   nvme_setup_ns  nvme_setup_cmd: the driver built the command
 *   nvme_done_ns   nvme_complete_rq, also on the batched path
 * and its fields: controller (nvme<ctrl>), qid (0 = admin), cid, opcode,
 * nsid, slba and nlb (blocks, 1-based, for commands that address LBAs),
 * lba_shift (log2 of the namespace's block size), status (the completion
 * queue entry's status field without the phase bit: SC | SCT << 8 | CRD
 * << 11 | M << 13 | DNR << 14), result (dword 0), retries, and qd_setup,
 * the commands of the same qid of the controller set up and not yet
 * completed when this one was.  A Dataset Management command
 * (IOLAT_F_NVME_DSM) has its ranges summed: dsm_nr ranges, dsm_lbas
 * blocks in all, the first at dsm_slba for dsm_nlb blocks.
 * An admin command (IOLAT_F_NVME_ADMIN) has no block stages: major and
 * minor are 0, d_ns and c_ns are its setup and completion.
 *
 * A stack (IOLAT_DEV_A_LOWER): link numbers the I/O of the bio-based
 * device that a record is (IOLAT_F_BIO) or that a request of a lower
 * device was made from (IOLAT_F_STACK), the same in both records, unique
 * in the session; 0: no such I/O (or not known: a request whose first
 * bio was not the remapped one, a lower bio split by blk-mq).
 *
 * A session sends each record as far as it needs (IOLAT_A_RECORD_SIZE in
 * every READ message says how far): the block part
 * (IOLAT_RECORD_BLOCK_SIZE); with IOLAT_A_CGROUPS also the cgroup
 * (IOLAT_RECORD_CGROUP_SIZE); with IOLAT_A_NVME up to the link; with a
 * stack all of it.  A field sent but not asked for is zero.  192 bytes,
 * no holes (ABI 6: the cgroup moved from the end into the block part's
 * line, so that it costs a session 8 bytes, not the NVMe part's 80).
 */
struct iolat_record {
	__u64 q_ns;
	__u64 g_ns;
	__u64 i_ns;
	__u64 d_ns;
	__u64 c_ns;
	__u64 sector;		/* first 512-byte sector on the device traced;
				 * all ones: none (a flush)
				 */
	__u32 major;		/* the device traced (a partition's own) */
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
	/*
	 * IOLAT_A_CGROUPS: the cgroup of the request's first bio (a
	 * bio-based device's I/O: its bio's), the one the kernel charges it
	 * to (its blkcg's, in the hierarchy of the io controller: v2, or
	 * v1's blkio), as its id (the kernfs node's, which
	 * name_to_handle_at() gives for the cgroup's directory); 0: none (a
	 * flush, an admin command)
	 */
	__u64 cgroup;
	/* NVMe (IOLAT_F_NVME) */
	__u64 nvme_setup_ns;
	__u64 nvme_done_ns;
	__u64 slba;
	__u64 dsm_slba;
	__u64 dsm_lbas;
	__u32 nsid;
	__u32 nlb;
	__u32 dsm_nlb;
	__u32 result;
	__u16 ctrl;
	__u16 qid;
	__u16 cid;
	__u16 status;
	__u16 qd_setup;
	__u16 dsm_nr;
	__u8 opcode;
	__u8 lba_shift;
	__u8 retries;
	__u8 nvme_pad;
	/* a stack */
	__u64 link;
};

/* The block part of struct iolat_record: a session without NVMe sends that. */
#define IOLAT_RECORD_BLOCK_SIZE	104
/* ... and the cgroup: a session with IOLAT_A_CGROUPS, without NVMe */
#define IOLAT_RECORD_CGROUP_SIZE	112

/*
 * The record buffers mapped (/dev/iolat): a file of the device bound with
 * IOLAT_IOC_RING to a CPU's buffer of a streaming session (the netlink
 * port id of the socket that started it, and the CPU) maps that buffer,
 * read-write and shared, from offset 0 for the length the ioctl gives:
 * a page of struct iolat_ring_map followed by the slots at data_offset,
 * slot N (position & (slots - 1)) at N * stride, a __u64 sequence
 * (position + 1 once the record is whole; read it with acquire
 * semantics) then the record, record_size bytes of struct iolat_record.
 * The reader takes records in order from tail while their sequence says
 * so and gives them back by storing tail (release semantics).  Once a
 * CPU's buffer is bound, READ no longer copies its records.  Root
 * (CAP_PERFMON or CAP_SYS_ADMIN) only.
 */
#define IOLAT_RING_MAP_VERSION	1

struct iolat_ring_req {
	__u32 portid;		/* the socket whose session it is */
	__u32 cpu;
	__u64 bytes;		/* set: the buffer's length, to map */
};

#define IOLAT_IOC_RING		_IOWR(0xe9, 0x01, struct iolat_ring_req)

struct iolat_ring_map {
	__u64 tail;		/* the reader's: the first position not taken */
	__u32 version;		/* IOLAT_RING_MAP_VERSION */
	__u32 slots;		/* records the buffer holds, a power of two */
	__u32 stride;		/* bytes of a slot */
	__u32 record_size;	/* bytes of each record (IOLAT_A_RECORD_SIZE) */
	__u32 data_offset;	/* where slot 0 begins: the page's size */
	__u32 cpu;
	__u64 bytes;		/* the whole mapping's */
};

#endif /* _UAPI_LINUX_IOLAT_H */
