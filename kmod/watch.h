/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder (IOLAT_A_WATCH, `iolat watch`): an aggregating
 * session that also writes each kept request's record into its per-CPU
 * rings, overwriting their oldest, and copies none out until a trigger
 * has kept a window of them and the client freezes the recorder.
 *
 * States (enum iolat_watch_state): ARMED, the rings overwrite freely;
 * TRIGGERED, by a request slower than the bound, an error, or
 * WATCH_TRIGGER: records completed at or after the floor (the trigger's
 * time less BEFORE_NS) are no longer overwritten, and a record that
 * would overwrite one is not written (WATCH_WINDOW_FULL); FROZEN, for
 * READ: nothing is written (WATCH_FROZEN).  WATCH_ARM empties the rings
 * and arms again.  The writers read one word, @floor_ns: U64_MAX when
 * armed, the floor when triggered, 0 when frozen.
 */
#ifndef _IOLAT_WATCH_H
#define _IOLAT_WATCH_H

#include <linux/atomic.h>
#include <linux/netlink.h>
#include "iolat.h"
#include "../lib/record.h"
#include "../lib/nvme_names.h"

/* START's IOLAT_A_WATCH, parsed (nl_start.c) */
struct iolat_watch_conf {
	u64 slower_ns;		/* 0: no bound */
	u64 before_ns;
	bool on_error;
	/* STAGE's two timestamps, as indices of iolat_watch_stamp() */
	u8 from, to;
};

/*
 * A record's stage timestamps Q, G, I, D and C in order, from its q_ns:
 * a stage is two of them, the check two loads (iolat_watch_check()).
 */
static __always_inline u64 iolat_watch_stamp(const struct iolat_record *rec,
					     unsigned int i)
{
	BUILD_BUG_ON(offsetof(struct iolat_record, c_ns) !=
		     offsetof(struct iolat_record, q_ns) + 4 * sizeof(u64));
	return (&rec->q_ns)[i];
}

struct iolat_watch {
	u64 floor_ns;		/* what the writers read (above) */
	struct iolat_watch_conf conf;
	atomic_t state;		/* enum iolat_watch_state, or FIRING */
	/* the trigger's, once state is TRIGGERED */
	u32 reason;
	bool has_rec;
	u64 trigger_ns;
	u64 window_ns;		/* the window's start: the floor it set */
	struct iolat_record rec;
	u64 armed_ns;		/* the last WATCH_ARM (or the start) */
	u64 quiet_ns;		/* no trigger before */
	atomic64_t suppressed;
	u64 overwritten;	/* records overwritten before the last arming */
};

void iolat_watch_fire(struct iolat_session *s, u32 reason,
		      const struct iolat_record *rec, u64 now);

/*
 * Does @rec, just written by a watching session, trigger it?  @err: its
 * completion's errno; with NVMe commands, an NVMe status is an error too
 * (a passthrough command's may not reach the block layer: 7.2).
 */
static __always_inline void iolat_watch_check(struct iolat_session *s,
					      const struct iolat_record *rec,
					      int err)
{
	const struct iolat_watch_conf *c = &s->watch->conf;
	u64 from = iolat_watch_stamp(rec, c->from);
	u64 to = iolat_watch_stamp(rec, c->to);

	/* a stage as iolat_stage_ns() has it: both seen, in order */
	if (unlikely(err || (s->nvme && rec->status &&
			     rec->status != IOLAT_NVME_STATUS_UNKNOWN)) &&
	    c->on_error)
		iolat_watch_fire(s, IOLAT_WATCH_ERROR, rec, rec->c_ns);
	else if (unlikely(to - from >= c->slower_ns) && c->slower_ns &&
		 from && to >= from)
		iolat_watch_fire(s, IOLAT_WATCH_SLOWER, rec, rec->c_ns);
}

size_t iolat_watch_bytes(void);
int iolat_watch_init(struct iolat_session *s,
		     const struct iolat_watch_conf *conf);
void iolat_watch_free(struct iolat_session *s);
void iolat_watch_freeze(struct iolat_session *s);
void iolat_watch_arm(struct iolat_session *s, u64 quiet_ns);
u64 iolat_watch_lost_ns(const struct iolat_session *s);
u64 iolat_watch_overwritten(const struct iolat_session *s);

/* May READ copy @s's records?  Not a recorder's until it is frozen. */
static inline bool iolat_watch_readable(const struct iolat_session *s)
{
	return !s->watch ||
	       atomic_read(&s->watch->state) == IOLAT_WATCH_FROZEN;
}

#endif /* _IOLAT_WATCH_H */
