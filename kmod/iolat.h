/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat module internals.  The data path, one file per step:
 *
 *   attach.c     find tracepoints by name, register/unregister the probes
 *   stash.h/c    per-CPU submission stash: a bio's Q, X and G stages and
 *                its submitter, until its request is first seen
 *   probe_bio.c  bio probes: queue, split, merges, getrq, plug, unplug
 *   probe_rq.c   request probes: insert, issue, requeue, merge, complete
 *   probe_nvme.c NVMe probes: command setup and completion, per controller
 *   probe_upper.c bio-based devices (device-mapper, md): a bio from its
 *                queue to its completion, in upper.h's table
 *   devmap.h/c   a session's devices by number: an I/O's device in O(1)
 *   dispatch.h/c the probes shared by every session: from an I/O's disk
 *                to the sessions that trace it
 *   inflight.h/c in-flight table: a slot per (hardware queue, tag)
 *   acct.h/c     busy time, in-flight integrals, I/O counts, queue depth;
 *                span.h a span's busy periods
 *   agg.h/c      per-CPU latency histograms instead of records
 *   emit.c       build one struct iolat_record per completed request
 *   ring.h/c     per-CPU lock-free record buffers
 *   cpus.h/c     a session's per-CPU parts, for the CPUs online: CPU hotplug
 *   session.c    session life: start, stop, drain, counters
 *   clocktest.c  is the clock monotonic across CPUs, and what it costs
 *   netlink.c    the generic netlink family "iolat", its operations and
 *                the commands answered at once; nl_policy.c its policies,
 *                nl_start.c START's parsing, nl_dump.c the dumps
 *   main.c       module init/exit
 */
#ifndef _IOLAT_H
#define _IOLAT_H

#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/timekeeping.h>
#include <linux/cache.h>
#include <linux/atomic.h>
#include <asm/local64.h>
#include <linux/bits.h>
#include <linux/string.h>
#include <linux/blk_types.h>
#include <linux/iolat.h>
#include "compat.h"
#include "ring.h"
#include "devmap.h"

/* The task that submitted a request, taken in its own context. */
struct iolat_submitter {
	u32 pid;
	u32 tgid;
	char comm[IOLAT_COMM_LEN];
};

/*
 * A request's stages while it is in flight: one per (hardware queue,
 * allocation tag) of a traced device, owned by @rq from the request's
 * first insert or issue until its completion.  Its head, up to
 * @q_ns, is all a counters session keeps and touches: its tables hold
 * heads alone, two to a cache line (IOLAT_SLOT_HEAD, inflight.h).  The
 * others keep the stage times too, one slot to a cache line; what only
 * records and filters read is beside them, after its table's slots
 * (struct iolat_slot_ext).
 */
struct iolat_slot {
	const struct request *rq;	/* owner; NULL when free */
	u64 acct_ns;			/* start of its in-queue interval */
	u32 flags;			/* IOLAT_F_SPLIT, IOLAT_F_SUBMITTER */
	u16 requeues;
	u16 qd_insert;
	u16 qd_issue;
	u16 index;			/* its place in its table (inflight.h) */
	u8 state;			/* enum iolat_slot_state */
	u8 filtered;			/* not wanted: no record at completion */
	u8 outside;			/* allocated before the session began */
	/* the stage times: not in a counters session's tables */
	u64 q_ns __aligned(32);
	u64 g_ns;
	u64 i_ns;
	u64 d_ns;
} __aligned(32);

/* The rest of a slot, at its index after its table's slots (inflight.h). */
struct iolat_slot_ext {
	struct iolat_submitter who;
	/*
	 * A lower device's request in a session with a stack: the number
	 * of the I/O it was made from, or 0 (upper.h); never written, so
	 * 0, in other sessions.
	 */
	u64 link;
};

/*
 * A span's periods (lib/busy.h): @start of the open one, and @last,
 * the end of the one before, in ns since the session's base.  Its busy
 * word is a sum kept per CPU (acct.h).
 */
struct iolat_busy {
	atomic64_t start;
	atomic64_t last;
};

/* A hardware queue's (or device's) two spans. */
enum iolat_span {
	IOLAT_SPAN_QUEUE,	/* first seen at insert or issue, not completed */
	IOLAT_SPAN_DEV,		/* at the driver */
	IOLAT_NR_SPANS,
};

/*
 * One hardware queue: @n counts its queued and issued requests, so that
 * a request issued directly enters both spans, and a completed one
 * leaves both, with one locked add; a queue's line is written by the
 * CPUs submitting to it and the one completing it.  A device with one
 * queue, whose spans are the device's, counts them in the low and the
 * high 32 bits.  One of several counts them in bits 0-15 and 16-31
 * (IOLAT_N_W bits each: a queue holds at most its scheduler's requests
 * and its driver tags, a few thousand).  The device's counts are in the
 * word of one of them, its home (@home of struct iolat_dev), the only
 * word without IOLAT_N_AWAY: the device's other queues that hold a
 * request queued (bits 32-47) and issued (bits 48-61).  A request of
 * the home moves both halves with one locked add, one of another queue
 * writes the home's line only when its own span goes busy or idle.  The
 * home moves to a queue that opens the idle device's span twice in a
 * row, so that
 * a device whose I/O uses one queue at a time takes one locked add per
 * request's entry and exit; the words it moves between are marked
 * IOLAT_N_MOVING meanwhile (acct.h).
 */
#define IOLAT_N_W		16
#define IOLAT_N_ALL_SHIFT	32
#define IOLAT_N_MOVING		BIT_ULL(62)
#define IOLAT_N_AWAY		BIT_ULL(63)

struct iolat_hwq {
	atomic64_t n;
	struct iolat_busy span[IOLAT_NR_SPANS];
} ____cacheline_aligned_in_smp;

/*
 * The spans of a device of several queues, in a line of their own: their
 * counts are in its home queue's word.  @opener: the queue whose request
 * last opened the device's queue span (acct.h, iolat_spans_move()).
 */
struct iolat_dev_spans {
	struct iolat_busy span[IOLAT_NR_SPANS];
	u32 opener;
} ____cacheline_aligned_in_smp;

struct iolat_acct_cpu;
struct iolat_agg_cpu;
struct iolat_cgstat;
struct iolat_nvme_ctrl;
struct iolat_upper_slot;
struct iolat_link;
struct iolat_watch;
struct iolat_watch_conf;
struct module;

/* What a traced device is, to the lookups of struct iolat_session. */
enum iolat_dev_kind {
	IOLAT_DEV_DISK,		/* a whole disk, with requests */
	IOLAT_DEV_PART,		/* a partition: its disk's range of sectors */
	IOLAT_DEV_UPPER,	/* a bio-based device (upper.h) */
};

/* A traced device, its in-flight table, queue depths and counters. */
struct iolat_dev {
	dev_t devt;		/* the disk whose requests are matched */
	dev_t id;		/* the device traced: a partition's own */
	u8 kind;		/* enum iolat_dev_kind */
	/* the next traced partition of the same disk, in the map's chain */
	struct iolat_dev *next;
	/*
	 * The requests traced are those whose first sector minus @first is
	 * at most @last: a partition's range, all of them on a whole disk
	 * (@first 0, @last all ones).
	 */
	u64 first;
	u64 last;
	/*
	 * Traced from: the session's start, or when the disk joined it
	 * (iolat_session_add()); U64_MAX before.  Its requests allocated
	 * earlier are not the session's.
	 */
	u64 start_ns;
	u32 nr_hwq;
	u32 depth;		/* slots per hardware queue, flush slot excluded */
	u32 home;		/* the queue whose @n holds the device's counts */
	/*
	 * Each hardware queue's in-flight table, NULL until a CPU that
	 * submits to the queue is present (inflight.c); @cpu_hwqs: those
	 * queues of each CPU, or NULL if every queue has its table.
	 */
	struct iolat_slot **tables;	/* [nr_hwq] */
	void **tables_mem;		/* [nr_hwq]: for kvfree() */
	u16 *cpu_hwqs;			/* [nr_cpu_ids][IOLAT_CPU_HWQS] */
	u32 table_size;			/* a table's, in bytes (inflight.c) */
	u8 slot_shift;			/* log2 of its slots' size */
	struct iolat_hwq *hwqs;		/* [nr_hwq] */
	/* its cgroup slots (cgstat.h), IOLAT_A_CGROUP_SLOTS; else NULL */
	struct iolat_cgstat *cg;
	struct iolat_dev_spans all;	/* the device's, if several queues */
	/* each CPU's counters and part of the busy words (cpus.h) */
	struct iolat_acct_cpu **acct;	/* [nr_cpu_ids] */
	struct iolat_nvme_ctrl *nvme;	/* its controller, if traced */
	struct iolat_agg_cpu **agg;	/* [cpu], aggregating sessions */
	/*
	 * A bio-based device (device-mapper, md): its bios in flight, in
	 * a table of @depth slots found by the bio's address (upper.h);
	 * one span of queue, @hwqs[0].  @by_sector: the slot (+ 1) of
	 * the last bio queued at each hash of a first sector, for the
	 * remaps of its I/Os to the devices under it.
	 */
	struct iolat_upper_slot *upper;
	u32 *by_sector;
	/* a device under a bio-based one of the session (IOLAT_DEV_A_LOWER) */
	bool lower;
	/*
	 * The shared probes' way to the sessions (dispatch.h): the first
	 * device of each disk number in a session's map is in the chain of
	 * that number's subscribers, with its session and what it uses.
	 */
	u8 uses;		/* BIT(enum iolat_probe_use) */
	struct iolat_session *s;
	struct iolat_dev *sub_next;	/* another session's, or NULL */
};

/* What START asks for, validated by netlink.c. */
struct iolat_dev_spec {
	u32 major;
	u32 minor;
	u32 disk_major;		/* the whole disk: a partition's, else major */
	u32 disk_minor;
	u64 start;		/* a partition's sectors, else 0 and all */
	u64 sectors;
	bool bio_based;		/* a device without requests: its bios */
	bool lower;		/* under a bio-based device of the session */
	u32 nr_hwq;
	u32 depth;
	s32 nvme_ctrl;		/* nvme<N> of an NVMe namespace, else -1 */
};

/* Which requests a session keeps; a zero field keeps everything. */
struct iolat_filter {
	/*
	 * Any of the rest set: a session without a filter pays this one
	 * test per request, not one per field (issue 48)
	 */
	bool on;
	u32 ops;		/* bit (1 << enum iolat_op) per op kept */
	u32 pid;
	u32 tgid;
	char comm[IOLAT_COMM_LEN];
	u64 min_ns;
	/* IOLAT_A_FILTER_CGROUPS: low 32 bits (iolat_bio_in_cgroups()) */
	u32 nr_cgroups;
	u32 cgroups[IOLAT_FILTER_CGROUPS];
};

/* START's modes (session.c) */
#define IOLAT_MODE_COUNTERS_ONLY	BIT(0)	/* IOLAT_A_COUNTERS_ONLY */
#define IOLAT_MODE_NVME			BIT(1)	/* IOLAT_A_NVME */
#define IOLAT_MODE_AGGREGATE		BIT(2)	/* IOLAT_A_AGGREGATE */
/* the module's own: keep submitters (iolat_mode_who()) */
#define IOLAT_MODE_WHO			BIT(3)
#define IOLAT_MODE_CGROUPS		BIT(4)	/* IOLAT_A_CGROUPS */
#define IOLAT_MODE_WATCH		BIT(5)	/* IOLAT_A_WATCH (watch.h) */
/* IOLAT_A_CGROUP_SLOTS: the slots, in bits 8 to 15 (iolat_mode_cg_slots()) */
#define IOLAT_MODE_CG_SHIFT		8
#define IOLAT_MODE_CG_SLOTS(n)		((u32)(n) << IOLAT_MODE_CG_SHIFT)

/*
 * IOLAT_MODE_WHO if a session of START's @mode and @filter keeps its
 * requests' submitters: for its records, or a filter by process.
 */
static inline u32 iolat_mode_who(u32 mode, const struct iolat_filter *filter)
{
	return !(mode & (IOLAT_MODE_COUNTERS_ONLY | IOLAT_MODE_AGGREGATE)) ||
	       (mode & IOLAT_MODE_WATCH) || filter->pid || filter->tgid || filter->comm[0] ?
	       IOLAT_MODE_WHO : 0;
}

/*
 * Does the session keep a request or command of operation @op (enum
 * iolat_op) from @who (@known: the submitter was seen)?  A process filter
 * does not pass an unknown submitter.
 */
static inline bool iolat_filter_wanted(const struct iolat_filter *f, u8 op,
				       const struct iolat_submitter *who,
				       bool known)
{
	if (!f->on)
		return true;
	if (f->ops && !(f->ops & BIT(op)))
		return false;
	if (f->pid && (!known || who->pid != f->pid))
		return false;
	if (f->tgid && (!known || who->tgid != f->tgid))
		return false;
	if (f->comm[0] &&
	    (!known || strncmp(who->comm, f->comm, IOLAT_COMM_LEN)))
		return false;
	return true;
}

struct iolat_stash;
struct iolat_cpu;

/* Something that happened to the session, until the next READ. */
struct iolat_event {
	u64 ns;
	u32 kind;		/* enum iolat_event_kind */
	char module[56];	/* MODULE_NAME_LEN */
};

/*
 * A session belongs to the netlink socket that started it (init_net,
 * portid).  While running, its probes are registered with the session as
 * their data; stopping unregisters them and leaves the buffers to drain.
 */
struct iolat_session {
	u32 portid;
	bool running;
	bool counters_only;	/* no records, only the counters */
	bool aggregate;		/* histograms in the module, no records */
	bool want_who;		/* submitters: for records or a filter */
	bool no_stamps;		/* the bios' own stamps are not Q's (probe_bio.c) */
	u64 base_ns;		/* origin of the busy words' times */
	u64 start_ns;		/* probes all attached; U64_MAX before */
	u64 stop_ns;		/* stop began; U64_MAX until then */
	struct iolat_filter filter;
	unsigned int nr_devs;
	/*
	 * START's whole disks, then its partitions (up to @nr_rq_devs),
	 * then its bio-based devices (upper.h); a disk that joins later
	 * comes last (a session with a bio-based device takes none).
	 */
	unsigned int nr_rq_devs;
	/*
	 * Each allocated on its own, so that a disk added while the
	 * session runs (iolat_session_add()) moves none; @cap_devs: the
	 * table's room.  Changed under the session mutex and the CPU
	 * hotplug lock, which the hotplug callback runs under.
	 */
	struct iolat_dev **devs;	/* [nr_devs] */
	unsigned int cap_devs;
	struct iolat_devmap map;	/* the probes' way to @devs */
	/* each CPU's part, NULL for a CPU not online since it began (cpus.h) */
	struct iolat_cpu **cpu;			/* [nr_cpu_ids] */
	unsigned int ring_slots;		/* records per CPU ring */
	unsigned int ring_stride;		/* a ring slot's bytes */
	unsigned int record_size;	/* of each record it sends (ring.h) */
	struct hlist_node cpuhp;		/* in cpus.c's hotplug state */
	bool cpuhp_added;
	atomic_t nr_cpus;			/* CPUs with a part */
	/*
	 * A stack's remapped bios on their way to a lower device
	 * (upper.h): @nr_links slots, a power of two; NULL without a
	 * bio-based device.
	 */
	struct iolat_link *links;
	u32 nr_links;
	bool nvme;		/* NVMe commands too (IOLAT_A_NVME) */
	bool cgroups;		/* records carry cgroups (IOLAT_A_CGROUPS) */
	u8 cg_slots;		/* IOLAT_A_CGROUP_SLOTS, or 0 (cgstat.h) */
	bool nvme_attached;	/* the NVMe probes are registered */
	unsigned int nr_ctrls;
	struct iolat_nvme_ctrl *ctrls;	/* [nr_devs] */
	unsigned int nr_events;	/* under the session mutex */
	struct iolat_event events[IOLAT_MAX_EVENTS];
	u64 mem_bytes;		/* what it holds but its CPUs' parts (budget.h) */
	atomic64_t tables_bytes;	/* its devices' in-flight tables */
	size_t cpu_bytes;	/* a CPU's part, all its devices' included */
	struct iolat_watch *watch;	/* a flight recorder's, or NULL */
};

/*
 * Does @s write records?  Not with counters only, nor when aggregating.
 * (A flight recorder's records, beside its histograms, have no G stage:
 * the probe of a request's allocation and its clock read are left out,
 * to keep an armed recorder within aggregate + 200 instructions an I/O.)
 */
static inline bool iolat_session_records(const struct iolat_session *s)
{
	return !(s->counters_only || s->aggregate);
}

/*
 * Does @s use none of the optional features the completion tests: a
 * filter, a flight recorder, records past the block part (cgroups,
 * NVMe, a stack's link), NVMe commands, cgroup slots?  Then its
 * completion probe is one without those tests (IOLAT_USE_LEAN).  Fixed
 * at START, before the probes are registered.
 */
static inline bool iolat_session_lean(const struct iolat_session *s)
{
	return !s->filter.on && !s->watch && !s->nvme && !s->cg_slots &&
	       s->record_size <= IOLAT_RECORD_BLOCK_SIZE;
}

/* What @s keeps, as IOLAT_MODE_* (but IOLAT_MODE_NVME). */
static inline u32 iolat_session_mode(const struct iolat_session *s)
{
	return (s->counters_only ? IOLAT_MODE_COUNTERS_ONLY : 0) |
	       (s->aggregate ? IOLAT_MODE_AGGREGATE : 0) |
	       (s->watch ? IOLAT_MODE_WATCH : 0) |
	       (s->want_who ? IOLAT_MODE_WHO : 0) |
	       IOLAT_MODE_CG_SLOTS(s->cg_slots);
}

/* The one clock of every stage: CLOCK_MONOTONIC, valid across CPUs. */
static inline u64 iolat_now(void)
{
	return ktime_get_ns();
}

/*
 * Which sessions register a probe: every one, those that time a
 * request's stages (records or histograms: not counters only), those
 * that write records, those with a bio-based device, those without a
 * stack (a bio-based device and a lower one, in a session that times
 * stages), or those with one.
 */
enum iolat_probe_use {
	IOLAT_USE_ALL,
	IOLAT_USE_STAGES,
	IOLAT_USE_RECORDS,
	IOLAT_USE_UPPER,	/* sessions with a bio-based device */
	/* sessions without a stack nor optional feature (iolat_session_lean()) */
	IOLAT_USE_LEAN,
	IOLAT_USE_PLAIN,	/* sessions without a stack, with a feature */
	IOLAT_USE_STACK,	/* sessions with one: links (upper.h) */
};

/*
 * A probe, the tracepoint it goes on by name, and that tracepoint once
 * found.  A required probe missing from the kernel makes tracing
 * unavailable; an optional one is reported and tracing goes on without it.
 * A probe of a stage or event a session does not report is not
 * registered by it (@use).
 */
struct iolat_probe {
	const char *tp_name;
	void *func;
	bool required;
	/*
	 * Registered by each session with itself as the data (the NVMe
	 * and bio-based devices' probes), or else once for all sessions,
	 * while @users of them want it, dispatching by disk (dispatch.h).
	 */
	bool per_session;
	u8 use;			/* enum iolat_probe_use */
	unsigned int users;	/* sessions, under the session mutex */
	struct tracepoint *tp;
	struct module *owner;	/* of a module's tracepoint */
};

/* attach.c */
unsigned int iolat_attach_init(void);
int iolat_attach(struct iolat_session *s, struct netlink_ext_ack *extack);
int iolat_attach_dev(struct iolat_session *s, struct iolat_dev *d);
void iolat_detach(struct iolat_session *s);
const char *iolat_attach_missing(unsigned int i);
bool iolat_attach_nvme_available(void);
int iolat_attach_nvme(struct iolat_session *s);
void iolat_detach_nvme(struct iolat_session *s);
bool iolat_attach_module_coming(struct module *mod);
bool iolat_attach_module_owns(struct module *mod);
void iolat_attach_module_going(struct module *mod);

/* probe_bio.c and probe_rq.c */
extern struct iolat_probe iolat_bio_probes[];
extern const unsigned int iolat_nr_bio_probes;
extern struct iolat_probe iolat_rq_probes[];
extern const unsigned int iolat_nr_rq_probes;
extern struct iolat_probe iolat_nvme_probes[];
extern const unsigned int iolat_nr_nvme_probes;

/*
 * Between the attachment of the last probe and the start of the stop,
 * the session takes in new requests; outside, only those already seen
 * go on to their completion, so that a request is recorded whole or
 * counted as not seen whole (DROP_UNMATCHED).
 */
static inline bool iolat_session_armed(const struct iolat_session *s)
{
	return READ_ONCE(s->start_ns) != U64_MAX &&
	       READ_ONCE(s->stop_ns) == U64_MAX;
}

/*
 * The negative control of make check's cost budgets (tests/bench/cost.sh):
 * a module built with IOLAT_COST_CONTROL spends about 3000 more
 * instructions on every traced completion, which must exceed them.
 * Nothing in any other build.
 */
static inline void iolat_cost_control(void)
{
#ifdef IOLAT_COST_CONTROL
	unsigned int i;

	for (i = 0; i < 1000; i++)
		barrier();
#endif
}

/*
 * The traced device of an I/O on disk @devt at sector @pos (a partition
 * is its disk's range of sectors), or NULL: three loads (devmap.h), and
 * for a disk traced in partitions, a compare per partition of it;
 * iolat_dev_at() from the disk's first device, which the shared probes
 * are given (dispatch.h).  A
 * whole disk is found by @devt alone, so that a session without a
 * partition compares no sector (and the compiler reads none).
 */
static inline struct iolat_dev *iolat_dev_at(struct iolat_dev *d, u64 pos)
{
	if (likely(d->kind == IOLAT_DEV_DISK))
		return d;
	if (d->kind == IOLAT_DEV_UPPER)
		return NULL;
	for (; d; d = d->next)
		if (pos - d->first <= d->last)
			return d;
	return NULL;
}

static inline struct iolat_dev *iolat_session_dev(struct iolat_session *s,
						  dev_t devt, u64 pos)
{
	struct iolat_dev *d = iolat_devmap_find(&s->map, devt);

	return d ? iolat_dev_at(d, pos) : NULL;
}

/* The traced bio-based device of disk @devt, or NULL (upper.h). */
static inline struct iolat_dev *iolat_session_upper(struct iolat_session *s,
						    dev_t devt)
{
	struct iolat_dev *d = iolat_devmap_find(&s->map, devt);

	return d && d->kind == IOLAT_DEV_UPPER ? d : NULL;
}

/* Is disk @devt, or a partition of it, a lower device of @s's stack? */
static inline bool iolat_session_lower_disk(const struct iolat_session *s,
					    dev_t devt)
{
	const struct iolat_dev *d = iolat_devmap_find(&s->map, devt);

	for (; d && d->kind != IOLAT_DEV_UPPER; d = d->next)
		if (d->lower)
			return true;
	return false;
}

/*
 * Is @d, a session's first device of its number, a disk traced whole or
 * in part, not a bio-based device?  For events without a sector.
 */
static inline bool iolat_dev_disk(const struct iolat_dev *d)
{
	return d->kind != IOLAT_DEV_UPPER;
}

/* emit.c */
u32 iolat_record_flags(blk_opf_t opf);

/**
 * iolat_record_op() - the ABI's operation for a request's op and flags
 * @opf: rq->cmd_flags
 */
static inline u8 iolat_record_op(blk_opf_t opf)
{
	switch (opf & REQ_OP_MASK) {
	case REQ_OP_READ:
		return IOLAT_OP_READ;
	case REQ_OP_WRITE:
		return IOLAT_OP_WRITE;
	case REQ_OP_FLUSH:
		return IOLAT_OP_FLUSH;
	case REQ_OP_DISCARD:
		return IOLAT_OP_DISCARD;
	case REQ_OP_WRITE_ZEROES:
		return IOLAT_OP_WRITE_ZEROES;
	default:
		return IOLAT_OP_OTHER;
	}
}

struct iolat_nvme_slot;
void iolat_record_emit_admin(struct iolat_session *s,
			     const struct iolat_nvme_ctrl *c,
			     const struct request *rq,
			     const struct iolat_nvme_slot *slot);

/* session.c */
/* Sessions at once: the max_sessions module parameter's default */
#define IOLAT_DEFAULT_SESSIONS		4
int iolat_session_start(u32 portid, const struct iolat_dev_spec *specs,
			unsigned int nr_specs, unsigned int ring_slots,
			const struct iolat_filter *filter, u32 mode,
			const struct iolat_watch_conf *watch,
			struct netlink_ext_ack *extack);
int iolat_session_add(u32 portid, const struct iolat_dev_spec *spec,
		      struct netlink_ext_ack *extack);
/* cpus.c: CPU @cpu's part of @d */
int iolat_session_dev_cpu(struct iolat_session *s, struct iolat_dev *d,
			  int cpu);
/* session_devs.c, under the session mutex */
struct iolat_dev *iolat_session_dev_new(struct iolat_session *s,
					const struct iolat_dev_spec *spec);
void iolat_session_dev_free(struct iolat_dev *d);
int iolat_session_nvme(struct iolat_session *s,
		       const struct iolat_dev_spec *specs,
		       struct netlink_ext_ack *extack);
int iolat_session_join(struct iolat_session *s,
		       const struct iolat_dev_spec *spec, u64 max_bytes,
		       struct netlink_ext_ack *extack);
int iolat_session_map(struct iolat_session *s, struct iolat_dev *d,
		      struct netlink_ext_ack *extack);
u64 iolat_session_mem(u32 portid, u64 *mine, unsigned int *nr);
int iolat_session_stop(u32 portid, struct iolat_cpu_stats *stats,
		       struct netlink_ext_ack *extack);
struct iolat_session *iolat_session_lock(u32 portid,
					 struct netlink_ext_ack *extack);
void iolat_session_unlock(void);
void iolat_session_release(u32 portid);
unsigned int iolat_session_watch_trigger(u32 reason);
struct iolat_cpu_stats;
void iolat_session_stats(struct iolat_session *s, struct iolat_cpu_stats *st);
int iolat_session_init(void);
void iolat_session_exit(void);

/* netlink.c */
int iolat_netlink_init(void);
void iolat_netlink_exit(void);

#endif /* _IOLAT_H */
