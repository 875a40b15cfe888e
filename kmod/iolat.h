/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat module internals.  The data path, one file per step:
 *
 *   attach.c     find tracepoints by name, register/unregister the probes
 *   submit.h/c   per-CPU submission stash: a bio's Q, X and G stages and
 *                its submitter, until its request is first seen
 *   probe_bio.c  bio probes: queue, split, merges, getrq, plug, unplug
 *   probe_rq.c   request probes: insert, issue, requeue, merge, complete
 *   inflight.h/c in-flight table: a slot per (hardware queue, tag)
 *   record.c     build one struct iolat_record per completed request
 *   ring.h/c     per-CPU lock-free record buffers
 *   session.c    session life: start, stop, drain, counters
 *   netlink.c    the generic netlink family "iolat"
 *   main.c       module init/exit
 */
#ifndef _IOLAT_H
#define _IOLAT_H

#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/timekeeping.h>
#include <linux/cache.h>
#include <linux/atomic.h>
#include <linux/iolat.h>
#include "compat.h"
#include "ring.h"

/* The task that submitted a request, taken in its own context. */
struct iolat_submitter {
	u32 pid;
	u32 tgid;
	char comm[IOLAT_COMM_LEN];
};

/*
 * A request's stages while it is in flight: one per (hardware queue,
 * allocation tag) of a traced device, owned by @rq from the request's
 * first insert or issue until its completion.
 */
struct iolat_slot {
	const struct request *rq;	/* owner; NULL when free */
	u64 q_ns;
	u64 g_ns;
	u64 i_ns;
	u64 d_ns;
	struct iolat_submitter who;
	u32 flags;			/* IOLAT_F_SPLIT, IOLAT_F_SUBMITTER */
	u16 requeues;
	u16 qd_insert;
	u16 qd_issue;
	u8 state;			/* enum iolat_slot_state */
	u8 filtered;			/* not wanted: no record at completion */
	u8 outside;			/* allocated before the session began */
};

/*
 * Queue depth of one hardware queue: requests queued (first seen at
 * insert or issue, not completed) and issued (at the driver).  Written
 * by the CPUs submitting to this queue and the one completing it.
 */
struct iolat_hwq {
	atomic_t queued;
	atomic_t issued;
} ____cacheline_aligned_in_smp;

/* A traced device, its in-flight table and its queue depths. */
struct iolat_dev {
	dev_t devt;
	u32 nr_hwq;
	u32 depth;		/* slots per hardware queue, flush slot excluded */
	struct iolat_slot *slots;	/* [nr_hwq * (depth + 1)] */
	struct iolat_hwq *hwqs;		/* [nr_hwq] */
};

/* What START asks for, validated by netlink.c. */
struct iolat_dev_spec {
	u32 major;
	u32 minor;
	u32 nr_hwq;
	u32 depth;
};

/* Which requests a session keeps; a zero field keeps everything. */
struct iolat_filter {
	u32 ops;		/* bit (1 << enum iolat_op) per op kept */
	u32 pid;
	u32 tgid;
	char comm[IOLAT_COMM_LEN];
	u64 min_ns;
};

struct iolat_stash;

/*
 * A session belongs to the netlink socket that started it (init_net,
 * portid).  While running, its probes are registered with the session as
 * their data; stopping unregisters them and leaves the buffers to drain.
 */
struct iolat_session {
	u32 portid;
	bool running;
	u64 start_ns;		/* probes all attached; U64_MAX before */
	u64 stop_ns;		/* stop began; U64_MAX until then */
	struct iolat_filter filter;
	unsigned int nr_devs;
	struct iolat_dev devs[IOLAT_MAX_DEVS];
	struct iolat_ring __percpu *rings;
	struct iolat_stash __percpu *stash;
};

/* The one clock of every stage: CLOCK_MONOTONIC, valid across CPUs. */
static inline u64 iolat_now(void)
{
	return ktime_get_ns();
}

/*
 * A probe, the tracepoint it goes on by name, and that tracepoint once
 * found.  A required probe missing from the kernel makes tracing
 * unavailable; an optional one is reported and tracing goes on without it.
 */
struct iolat_probe {
	const char *tp_name;
	void *func;
	bool required;
	struct tracepoint *tp;
};

/* attach.c */
int iolat_attach_init(void);
int iolat_attach(struct iolat_session *s, struct netlink_ext_ack *extack);
void iolat_detach(struct iolat_session *s);
const char *iolat_attach_missing(unsigned int i);

/* probe_bio.c and probe_rq.c */
extern struct iolat_probe iolat_bio_probes[];
extern const unsigned int iolat_nr_bio_probes;
extern struct iolat_probe iolat_rq_probes[];
extern const unsigned int iolat_nr_rq_probes;

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

/* The traced device of a dev_t, or NULL: a few compares, no lookup. */
static inline struct iolat_dev *iolat_session_dev(struct iolat_session *s,
						  dev_t devt)
{
	unsigned int i;

	for (i = 0; i < s->nr_devs; i++)
		if (s->devs[i].devt == devt)
			return &s->devs[i];
	return NULL;
}

/* record.c */
u8 iolat_record_op(blk_opf_t opf);
u32 iolat_record_flags(blk_opf_t opf);
void iolat_record_emit(struct iolat_session *s, const struct iolat_dev *d,
		       const struct request *rq, const struct iolat_slot *slot,
		       u64 c_ns, int error);

/* session.c */
int iolat_session_start(u32 portid, const struct iolat_dev_spec *specs,
			unsigned int nr_specs, unsigned int ring_slots,
			const struct iolat_filter *filter,
			struct netlink_ext_ack *extack);
int iolat_session_stop(u32 portid, struct iolat_cpu_stats *stats,
		       struct netlink_ext_ack *extack);
struct iolat_session *iolat_session_lock(u32 portid,
					 struct netlink_ext_ack *extack);
void iolat_session_unlock(void);
void iolat_session_release(u32 portid);
void iolat_session_exit(void);

/* netlink.c */
int iolat_netlink_init(void);
void iolat_netlink_exit(void);

#endif /* _IOLAT_H */
