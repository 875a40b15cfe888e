/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat module internals.  The data path, one file per step:
 *
 *   attach.c     find tracepoints by name, register/unregister the probes
 *   probe_blk.c  block-layer probes: issue and completion
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
#include <linux/iolat.h>
#include "compat.h"
#include "ring.h"

/* A traced device and its in-flight table. */
struct iolat_dev {
	dev_t devt;
	u32 nr_hwq;
	u32 depth;
	u64 *issue_ns;		/* [nr_hwq * depth]; 0: no request seen */
};

/* What START asks for, validated by netlink.c. */
struct iolat_dev_spec {
	u32 major;
	u32 minor;
	u32 nr_hwq;
	u32 depth;
};

/*
 * A session belongs to the netlink socket that started it (init_net,
 * portid).  While running, its probes are registered with the session as
 * their data; stopping unregisters them and leaves the buffers to drain.
 */
struct iolat_session {
	u32 portid;
	bool running;
	unsigned int nr_devs;
	struct iolat_dev devs[IOLAT_MAX_DEVS];
	struct iolat_ring __percpu *rings;
};

struct iolat_stats {
	u64 written;
	u64 drop_full;
	u64 drop_unmatched;
	u64 drop_range;
	u64 partial;
};

/* The one clock of every stage: CLOCK_MONOTONIC, valid across CPUs. */
static inline u64 iolat_now(void)
{
	return ktime_get_ns();
}

/* A probe, the tracepoint it goes on by name, and that tracepoint once found. */
struct iolat_probe {
	const char *tp_name;
	void *func;
	struct tracepoint *tp;
};

/* attach.c */
int iolat_attach_init(void);
int iolat_attach(struct iolat_session *s, struct netlink_ext_ack *extack);
void iolat_detach(struct iolat_session *s);

/* probe_blk.c: in registration order */
extern struct iolat_probe iolat_blk_probes[];
extern const unsigned int iolat_nr_blk_probes;

/* record.c */
u8 iolat_record_op(blk_opf_t opf);
u32 iolat_record_flags(blk_opf_t opf);
void iolat_record_emit(struct iolat_session *s, const struct iolat_dev *d,
		       const struct request *rq, u64 issue_ns,
		       u64 complete_ns, int error);

/* session.c */
int iolat_session_start(u32 portid, const struct iolat_dev_spec *specs,
			unsigned int nr_specs, unsigned int ring_slots,
			struct netlink_ext_ack *extack);
int iolat_session_stop(u32 portid, struct iolat_stats *stats,
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
