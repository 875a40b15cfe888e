// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's states (watch.h): a trigger, the freezing of the
 * rings for READ, and the arming that empties them.
 */
#include <linux/tracepoint.h>
#include "watch.h"
#include "cpus.h"
#include "alloc.h"

/* A trigger being noted: neither armed nor triggered for the others */
#define IOLAT_WATCH_FIRING	(IOLAT_WATCH_FROZEN + 1)

/**
 * iolat_watch_fire() - trigger a watching session
 * @s: the session
 * @reason: enum iolat_watch_reason
 * @rec: the record of the request that triggered it, or NULL
 * @now: the trigger's time: the request's completion, or now
 *
 * From a completion probe, or under the session mutex (WATCH_TRIGGER).
 * Only an armed recorder past its quiet time takes it; any other trigger
 * is counted as suppressed.  Out of line: the rare path.
 */
void iolat_watch_fire(struct iolat_session *s, u32 reason,
		      const struct iolat_record *rec, u64 now)
{
	struct iolat_watch *w = s->watch;
	u64 floor;

	if (now < READ_ONCE(w->quiet_ns) ||
	    atomic_cmpxchg(&w->state, IOLAT_WATCH_ARMED,
			   IOLAT_WATCH_FIRING) != IOLAT_WATCH_ARMED) {
		atomic64_inc(&w->suppressed);
		return;
	}
	w->reason = reason;
	w->trigger_ns = now;
	w->has_rec = rec;
	if (rec)
		w->rec = *rec;
	/* never 0, which freezes; never before the rings were emptied */
	floor = now > w->conf.before_ns ? now - w->conf.before_ns : 1;
	w->window_ns = max(floor, w->armed_ns);
	WRITE_ONCE(w->floor_ns, w->window_ns);
	/* the fields before the state that says they are there */
	smp_mb__before_atomic();
	atomic_cmpxchg(&w->state, IOLAT_WATCH_FIRING, IOLAT_WATCH_TRIGGERED);
}

/* What iolat_watch_init() allocates. */
size_t iolat_watch_bytes(void)
{
	return iolat_alloc_bytes(sizeof(struct iolat_watch));
}

/* A session of START's IOLAT_A_WATCH @conf, armed from now. */
int iolat_watch_init(struct iolat_session *s,
		     const struct iolat_watch_conf *conf)
{
	struct iolat_watch *w = iolat_zalloc(sizeof(*w), NUMA_NO_NODE);

	if (!w)
		return -ENOMEM;
	w->conf = *conf;
	w->armed_ns = iolat_now();
	w->floor_ns = U64_MAX;
	atomic_set(&w->state, IOLAT_WATCH_ARMED);
	s->watch = w;
	return 0;
}

void iolat_watch_free(struct iolat_session *s)
{
	kvfree(s->watch);
	s->watch = NULL;
}

/*
 * The latest completion time of the records overwritten since the last
 * arming, over the CPUs.  Written by each CPU in its ring; read whole
 * (64-bit) and only compared.
 */
u64 iolat_watch_lost_ns(const struct iolat_session *s)
{
	struct iolat_cpu *c;
	u64 lost = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = iolat_cpu_of(s, cpu);
		if (c)
			lost = max(lost, READ_ONCE(c->ring.lost_ns));
	}
	return lost;
}

/*
 * The records a ring overwrote since it was emptied: its writers do not
 * count them, its positions do (a recorder's writers leave its tail where
 * the arming put it).  Not once frozen: the reader's tail moved.
 */
static u64 iolat_watch_ring_over(const struct iolat_ring *r)
{
	unsigned long used = local_read(&r->head) - iolat_ring_tail(r);

	return used > r->mask + 1 ? used - r->mask - 1 : 0;
}

/* Those of every ring, while their tails are the arming's. */
static u64 iolat_watch_rings_over(const struct iolat_session *s)
{
	struct iolat_cpu *c;
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = iolat_cpu_of(s, cpu);
		if (c)
			n += iolat_watch_ring_over(&c->ring);
	}
	return n;
}

/* The records overwritten since the session began (WATCH_OVERWRITTEN). */
u64 iolat_watch_overwritten(const struct iolat_session *s)
{
	const struct iolat_watch *w = s->watch;

	/* frozen, the tails are the reader's, and the count is in */
	return w->overwritten +
	       (atomic_read(&w->state) == IOLAT_WATCH_FROZEN ? 0 :
		iolat_watch_rings_over(s));
}

/**
 * iolat_watch_freeze() - stop writing records, for READ to copy them
 * @s: the session, under the session mutex
 *
 * Once the probes that may be writing are done, each ring's records are
 * made readable from its oldest: READ copies them in order.  A frozen
 * recorder stays as it is.
 */
void iolat_watch_freeze(struct iolat_session *s)
{
	struct iolat_watch *w = s->watch;
	struct iolat_ring *r;
	struct iolat_cpu *c;
	unsigned long head;
	int cpu;

	/* once: a second would give back what READ took */
	if (atomic_read(&w->state) == IOLAT_WATCH_FROZEN)
		return;
	WRITE_ONCE(w->floor_ns, 0);
	atomic_set(&w->state, IOLAT_WATCH_FROZEN);
	/*
	 * the probes that read another floor, and a trigger being noted,
	 * which may have set one; then those that read that one
	 */
	tracepoint_synchronize_unregister();
	WRITE_ONCE(w->floor_ns, 0);
	tracepoint_synchronize_unregister();
	w->overwritten += iolat_watch_rings_over(s);
	for_each_possible_cpu(cpu) {
		c = iolat_cpu_of(s, cpu);
		if (!c)
			continue;
		r = &c->ring;
		head = local_read(&r->head);
		/* pairs with the reader's acquire in iolat_ring_read() */
		iolat_ring_set_tail(r, head > r->mask ? head - r->mask - 1 : 0);
	}
}

/**
 * iolat_watch_arm() - empty the rings and record again
 * @s: the session, under the session mutex, frozen or not
 * @quiet_ns: no trigger before this time (CLOCK_MONOTONIC), or 0
 */
void iolat_watch_arm(struct iolat_session *s, u64 quiet_ns)
{
	struct iolat_watch *w = s->watch;
	bool frozen = atomic_read(&w->state) == IOLAT_WATCH_FROZEN;
	struct iolat_cpu *c;
	int cpu;

	/* no trigger from a probe until the arming's end, no writer */
	atomic_set(&w->state, IOLAT_WATCH_FROZEN);
	WRITE_ONCE(w->floor_ns, 0);
	tracepoint_synchronize_unregister();
	if (!frozen)
		w->overwritten += iolat_watch_rings_over(s);
	for_each_possible_cpu(cpu) {
		c = iolat_cpu_of(s, cpu);
		if (!c)
			continue;
		c->ring.lost_ns = 0;
		/* empty: pairs with the reader's acquire of tail */
		iolat_ring_set_tail(&c->ring, local_read(&c->ring.head));
	}
	w->reason = IOLAT_WATCH_NONE;
	w->has_rec = false;
	w->trigger_ns = 0;
	w->armed_ns = iolat_now();
	WRITE_ONCE(w->quiet_ns, quiet_ns);
	WRITE_ONCE(w->floor_ns, U64_MAX);
	/* the fields before a trigger may take the state */
	smp_mb__before_atomic();
	atomic_set(&w->state, IOLAT_WATCH_ARMED);
}
