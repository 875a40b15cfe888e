/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Accounting: exact busy time, in-flight integrals, I/O counts and queue
 * depth at issue, kept by the request probes (probe_rq.c) without a lock,
 * an allocation or a line written by every CPU.
 *
 * - Busy time is a union of intervals, so it needs to know when a span
 *   goes from idle to busy: each hardware queue counts its requests in
 *   its own cache line (struct iolat_hwq), and only a queue's own
 *   idle/busy transitions touch the device's line.  A transition adds
 *   its time to a busy word (lib/account.h).  A request is in the queue
 *   from its first stage (its bio's queueing), which may be before the
 *   period it joins began: the period is then moved back, but not past
 *   the end of the period before it.
 * - Sums (in-flight integrals, counts, bytes, waits, the queue-depth
 *   histogram) are per CPU: an interval's start is subtracted on the CPU
 *   where it begins and its end added on the CPU where it ends, so every
 *   update is local.  Each CPU's counters change under a sequence count
 *   with interrupts off (a completion interrupt may nest in an issue),
 *   and a reader on another CPU retries until it has a stable copy.
 */
#ifndef _IOLAT_ACCOUNT_H
#define _IOLAT_ACCOUNT_H

#include <linux/percpu.h>
#include <linux/irqflags.h>
#include "iolat.h"
#include "../lib/account.h"

struct iolat_acct_cpu {
	u32 seq;			/* odd while this CPU updates */
	u64 dev_sum;			/* [issue, complete]: ends - starts */
	u64 dev_n;			/* ... begun - ended */
	u64 queue_sum;			/* [first stage, complete] */
	u64 queue_n;
	u64 ios[IOLAT_OP_NR];		/* completed */
	u64 bytes[IOLAT_OP_NR];
	u64 wait_ns[IOLAT_OP_NR];	/* sum of first stage -> complete */
	u64 issues;
	u64 qd_sum;			/* sum of the queue depth at issue */
	u64 qd_hist[IOLAT_QD_BUCKETS];
};

/* A consistent sum of every CPU's counters and the spans' busy times. */
struct iolat_acct_snap {
	u64 now_ns;
	u64 busy_ns;
	u64 qbusy_ns;
	u64 inflight_ns;
	u64 qinflight_ns;
	u32 queued;
	u32 issued;
	u64 ios[IOLAT_OP_NR];
	u64 bytes[IOLAT_OP_NR];
	u64 wait_ns[IOLAT_OP_NR];
	u64 issues;
	u64 qd_sum;
	u64 qd_hist[IOLAT_QD_BUCKETS];
};

static __always_inline struct iolat_acct_cpu *
iolat_acct_begin(struct iolat_dev *d, unsigned long *flags)
{
	struct iolat_acct_cpu *c;

	local_irq_save(*flags);
	c = this_cpu_ptr(d->acct);
	WRITE_ONCE(c->seq, c->seq + 1);
	smp_wmb();	/* odd seq before the counters: iolat_acct_copy() */
	return c;
}

static __always_inline void iolat_acct_end(struct iolat_acct_cpu *c,
					   unsigned long flags)
{
	smp_wmb();	/* the counters before even seq: iolat_acct_copy() */
	WRITE_ONCE(c->seq, c->seq + 1);
	local_irq_restore(flags);
}

/*
 * Move the open period of @b back to @from, if the request just counted
 * was in the queue before the period began; not past the end of the
 * previous period, which the union already covers.
 * Return: the period's new start, or S64_MAX if it did not move.
 */
static inline s64 iolat_busy_extend(struct iolat_busy *b, s64 from)
{
	s64 start, to;

	for (;;) {
		start = atomic64_read(&b->start);
		to = max_t(s64, from, atomic64_read(&b->last));
		if (to >= start)
			return S64_MAX;
		if (atomic64_cmpxchg(&b->start, start, to) == start) {
			atomic64_add(start - to, &b->word);
			return to;
		}
	}
}

/*
 * One more request in @b, in it since @from; opens a period from idle
 * (at @from, or at the end of the previous period if that is later) or
 * moves the open one back.  @all, the device, follows its queues.
 * Return: the number of requests in @b before.
 */
static inline int iolat_busy_up(struct iolat_busy *b, struct iolat_busy *all,
				s64 from)
{
	int n = atomic_inc_return(&b->n) - 1;
	s64 start;

	if (!n) {
		start = max_t(s64, from, atomic64_read(&b->last));
		atomic64_set(&b->start, start);
		atomic64_add(iolat_busy_open_delta(start), &b->word);
		if (all)
			iolat_busy_up(all, NULL, start);
	} else {
		start = iolat_busy_extend(b, from);
		if (all && start != S64_MAX)
			iolat_busy_extend(all, start);
	}
	return n;
}

/* One request fewer in @b, gone at @t; closes the period when idle. */
static inline void iolat_busy_down(struct iolat_busy *b, struct iolat_busy *all,
				   s64 t)
{
	if (atomic_dec_return(&b->n))
		return;
	atomic64_set(&b->last, t);
	atomic64_add(iolat_busy_close_delta(t), &b->word);
	if (all)
		iolat_busy_down(all, NULL, t);
}

int iolat_acct_init(struct iolat_dev *d);
void iolat_acct_free(struct iolat_dev *d);
void iolat_acct_snapshot(const struct iolat_session *s,
			 const struct iolat_dev *d, struct iolat_acct_snap *snap,
			 struct iolat_acct_cpu *c);
u64 iolat_acct_hwq_busy(const struct iolat_session *s,
			const struct iolat_busy *b, u64 now);
u64 iolat_acct_now(const struct iolat_session *s);

#endif /* _IOLAT_ACCOUNT_H */
