/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Accounting: exact busy time, in-flight integrals, I/O counts and queue
 * depth at issue, kept by the request probes (probe_rq.c) without a lock,
 * an allocation or a line written by every CPU.
 *
 * - Busy time is a union of intervals, so it needs to know when a span
 *   goes from idle to busy: each hardware queue counts its requests in
 *   its own cache line (struct iolat_hwq), queued and issued in one word.
 *   A device of several queues keeps its own counts in one queue's
 *   word, its home's, which a request of that queue moves with the same
 *   add and one of another queue only when its queue goes busy or idle
 *   (a device with one queue has no level above it); the home moves to
 *   the queue in use when the device is idle.  A transition adds
 *   its time to a busy word (lib/busy.h), which is a sum kept in parts
 *   per CPU: a request costs one locked add when it enters and one when
 *   it leaves.  A request is in the queue from its first stage, which may
 *   be before the period it joins began: the period is then moved back,
 *   but not past the end of the period before it.
 * - Sums (in-flight integrals, counts, bytes, waits, the queue-depth
 *   histogram) are per CPU: an interval's start is subtracted on the CPU
 *   where it begins and its end added on the CPU where it ends, so every
 *   update is local.  Each CPU's counters change under a sequence count,
 *   and a reader on another CPU retries until it has a stable copy.
 *   Adding a request (insert, issue) runs with interrupts on, each of its
 *   changes one local64 add that a nested update cannot split; taking
 *   one out runs with interrupts off (iolat_acct_get(),
 *   iolat_acct_begin()).
 */
#ifndef _IOLAT_ACCT_H
#define _IOLAT_ACCT_H

#include <linux/percpu.h>
#include <linux/irqflags.h>
#include <asm/local64.h>
#include "iolat.h"
#include "../lib/busy.h"
#include "span.h"

struct iolat_acct_cpu {
	/*
	 * Changed while a request is added, interrupts on: each by one
	 * local64 operation, which an interrupt cannot split.
	 */
	local_t seq;			/* odd while this CPU updates */
	local64_t dev_sum;		/* [issue, complete]: ends - starts */
	local64_t dev_n;		/* ... begun - ended */
	local64_t queue_sum;		/* [first stage, complete] */
	local64_t queue_n;
	local64_t issues;
	local64_t qd_sum;		/* sum of the queue depth at issue */
	local64_t qd_hist[IOLAT_QD_BUCKETS];
	/* changed with interrupts off */
	u64 ios[IOLAT_OP_NR];		/* completed */
	u64 bytes[IOLAT_OP_NR];
	u64 wait_ns[IOLAT_OP_NR];	/* sum of first stage -> complete */
	local64_t busy[IOLAT_NR_SPANS];	/* this CPU's part of the busy words */
	/* a stack's bio-based device: its I/Os with requests below, their
	 * time below (iolat_upper_split())
	 */
	u64 below_ios[IOLAT_OP_NR];
	u64 below_ns[IOLAT_OP_NR];
	/* a device of several queues: this CPU's part of their busy words */
	local64_t hwq_words[];		/* [nr_hwq][IOLAT_NR_SPANS] */
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
	u64 below_ios[IOLAT_OP_NR];
	u64 below_ns[IOLAT_OP_NR];
};

/*
 * This CPU's counters are about to change.  Adding a request (insert,
 * issue) runs with interrupts on, so a completion, or an issue that a
 * completion starts, may nest in it on the same CPU: each counter that
 * adding changes moves by one local64 operation, which an interrupt
 * cannot split, and the sequence count stays odd from the outermost
 * update's start to its end (a nested update steps it by 2, the
 * outermost by 1), so that a reader on another CPU never takes a copy
 * made halfway.  The parity read before the step is still right when
 * the step is taken: an update nested in between has ended, having
 * stepped the count by an even number.
 * Return: the step, for iolat_acct_put().
 */
static __always_inline unsigned int iolat_acct_get(struct iolat_acct_cpu *c)
{
	unsigned int step = 1 + (local_read(&c->seq) & 1);

	local_add(step, &c->seq);
	smp_wmb();	/* odd seq before the counters: iolat_acct_copy() */
	return step;
}

static __always_inline void iolat_acct_put(struct iolat_acct_cpu *c,
					   unsigned int step)
{
	smp_wmb();	/* the counters before even seq: iolat_acct_copy() */
	local_add(step, &c->seq);
}

/* This CPU's counters of @d (preemption disabled, as in every probe). */
static __always_inline struct iolat_acct_cpu *iolat_acct_this(struct iolat_dev *d)
{
	return d->acct[smp_processor_id()];
}

/*
 * Taking a request out (completion, requeue, merge) runs with interrupts
 * off: a span closes at the time its last request left, and an update
 * nested between that clock read and the count's change would close it
 * at an earlier time than its own (docs/design.md, Union without a
 * lock).  Nothing nests in it, so it may change the counters through
 * the pointer returned.
 */
static __always_inline struct iolat_acct_cpu *
iolat_acct_begin(struct iolat_dev *d, unsigned long *flags,
		 unsigned int *step)
{
	struct iolat_acct_cpu *c = iolat_acct_this(d);

	local_irq_save(*flags);
	*step = iolat_acct_get(c);
	return c;
}

static __always_inline void iolat_acct_end(struct iolat_acct_cpu *c,
					   unsigned long flags,
					   unsigned int step)
{
	iolat_acct_put(c, step);
	local_irq_restore(flags);
}

/* A count of @w bits at bit @shift of a word (iolat.h). */
static __always_inline u32 iolat_n_at(u64 n, unsigned int shift,
				      unsigned int w)
{
	return (n >> shift) & (((u64)1 << w) - 1);
}

/*
 * Requests into (1) or out of (-1) the queue span (@dq, at *@tq) and the
 * device span (@dd, at *@td) of @span, whose busy words' parts on this
 * CPU are @words, given their counts before and after (@q0 to @q1, @d0
 * to @d1).
 * Return: in @oq and @od each span's change between busy and idle, and
 * in @tq and @td where the span above must open or move back to.
 */
static __always_inline void iolat_spans_step(struct iolat_busy *span,
					     local64_t *words, int dq, int dd,
					     u32 q0, u32 q1, u32 d0, u32 d1,
					     s64 *tq, s64 *td, int *oq, int *od)
{
	*oq = 0;
	*od = 0;
	if (dq)
		*oq = iolat_span_step(&span[IOLAT_SPAN_QUEUE],
				      &words[IOLAT_SPAN_QUEUE], dq, q0, q1, tq);
	if (dd)
		*od = iolat_span_step(&span[IOLAT_SPAN_DEV],
				      &words[IOLAT_SPAN_DEV], dd, d0, d1, td);
}

/* The word's change for @dq queued and @dd issued, counts of @w bits. */
static __always_inline s64 iolat_n_delta(int dq, int dd, unsigned int shift,
					 unsigned int w)
{
	return dq * ((s64)1 << shift) + dd * ((s64)1 << (shift + w));
}

/*
 * iolat_spans_step() on the spans of hardware queue @h, whose word
 * counts its queued and issued requests in @w bits each from bit 0 (32
 * on a device's one queue, IOLAT_N_W on one of several), given it
 * before (@old) and after (@new).
 */
static __always_inline void iolat_hwq_step(struct iolat_hwq *h,
					   local64_t *words, int dq, int dd,
					   u64 old, u64 new, unsigned int w,
					   s64 *tq, s64 *td, int *oq, int *od)
{
	iolat_spans_step(h->span, words, dq, dd, iolat_n_at(old, 0, w),
			 iolat_n_at(new, 0, w), iolat_n_at(old, w, w),
			 iolat_n_at(new, w, w), tq, td, oq, od);
}

/*
 * __iolat_spans_move() on the one hardware queue @h of a device, whose
 * spans are the device's: one locked add.  Called with this CPU's
 * counters begun (iolat_acct_get()): the words are this CPU's.
 * Return: @h's word before, with @new set to it after.
 */
static __always_inline u64 __iolat_spans_move(struct iolat_hwq *h,
					      local64_t *words,
					      int dq, int dd, s64 *tq,
					      s64 *td, int *oq, int *od,
					      u64 *new)
{
	s64 delta = iolat_n_delta(dq, dd, 0, 32);
	u64 old;

	*new = atomic64_add_return(delta, &h->n);
	old = *new - delta;
	iolat_hwq_step(h, words, dq, dd, old, *new, 32, tq, td, oq, od);
	return old;
}

/*
 * The device's counts in its home queue's word @n: that queue's
 * requests plus the other queues that hold one (iolat.h); 0 exactly
 * when the device's span is idle.
 */
static __always_inline u32 iolat_n_dev_queued(u64 n)
{
	return iolat_n_at(n, 0, IOLAT_N_W) +
	       iolat_n_at(n, IOLAT_N_ALL_SHIFT, IOLAT_N_W);
}

static __always_inline u32 iolat_n_dev_issued(u64 n)
{
	return iolat_n_at(n, IOLAT_N_W, IOLAT_N_W) +
	       iolat_n_at(n, IOLAT_N_ALL_SHIFT + IOLAT_N_W, IOLAT_N_W - 2);
}

/*
 * iolat_spans_step() on the device's spans @all, whose words are
 * @all_words, given its home queue's word before (@old) and after (@new).
 */
static __always_inline void iolat_dev_step(struct iolat_busy *all,
					   local64_t *all_words, int dq, int dd,
					   u64 old, u64 new, s64 *tq, s64 *td)
{
	int aq, ad;

	iolat_spans_step(all, all_words, dq, dd, iolat_n_dev_queued(old),
			 iolat_n_dev_queued(new), iolat_n_dev_issued(old),
			 iolat_n_dev_issued(new), tq, td, &aq, &ad);
}

/*
 * The counts of a queue's word @n, of a device of @nr_hwq queues, as
 * iolat_n_queued() and iolat_n_issued() take them: the queued requests
 * in the low 32 bits, the issued ones in the high 32.
 */
static __always_inline u64 iolat_n_counts(u64 n, u32 nr_hwq)
{
	if (nr_hwq == 1)
		return n;
	return iolat_n_at(n, 0, IOLAT_N_W) |
	       (u64)iolat_n_at(n, IOLAT_N_W, IOLAT_N_W) << 32;
}

/* The words of a device's @nr_hwq queues, the first its home. */
static inline void iolat_hwqs_init(struct iolat_hwq *hwqs, u32 nr_hwq)
{
	u32 i;

	for (i = 1; i < nr_hwq; i++)
		atomic64_set(&hwqs[i].n, IOLAT_N_AWAY);
}

/*
 * A pause where another CPU's move of the home or add can come in:
 * nothing in the module; the KUnit suite's race test widens the windows
 * with it (kmod/tests/busy_kunit.c).
 */
#ifndef iolat_race_window
#define iolat_race_window() do { } while (0)
#endif

/*
 * An add that found queue word @n marked by a CPU moving the home
 * (iolat_home_claim(), which holds the mark with interrupts off and
 * waits for nothing): wait for the mark to go, and take the add as made
 * just after, in the word as the move left it (away from the home or
 * not), with the adds before it (@old, from the add).  A word with a
 * request's count in it keeps its place until that count leaves.
 * Return: @old as the add would have found it then.
 */
static noinline __maybe_unused u64 iolat_n_settle(atomic64_t *n, u64 old)
{
	u64 now;

	while ((now = atomic64_read(n)) & IOLAT_N_MOVING)
		cpu_relax();
	return (old & ~(IOLAT_N_MOVING | IOLAT_N_AWAY)) |
	       (now & IOLAT_N_AWAY);
}

/*
 * Add @delta to queue word @n, with @old and @new set to it before and
 * after (iolat_n_settle() if the home was moving).  With @home, an add
 * to the device's counts, which must find the home's word: one that
 * found a word away from it is taken back (the counts above of a word
 * away from the home are read by no one).
 * Return: false if the add was taken back.
 */
static __always_inline bool iolat_n_add(atomic64_t *n, s64 delta, u64 *old,
					u64 *new, bool home)
{
	*new = atomic64_add_return(delta, n);
	*old = *new - delta;
	if (unlikely(*old & IOLAT_N_MOVING)) {
		*old = iolat_n_settle(n, *old);
		*new = *old + delta;
	}
	if (!home || likely(!(*old & IOLAT_N_AWAY)))
		return true;
	atomic64_sub(delta, n);
	return false;
}

/*
 * Make queue @q, whose request's add has just left its word at @now
 * (idle to busy, away from the home @home of @homep), the home of the
 * device, if the device is idle: the old home's word is
 * marked from 0 (its queue idle, no other queue busy) and @q's from
 * @now, so that an add to either waits until the home has moved, with
 * interrupts off so that no probe on this CPU waits on its own mark.
 * The request's count stays in @q's word, which is the device's once
 * it is the home.
 * Return: whether @q is the home.
 */
static noinline __maybe_unused bool
iolat_home_claim(struct iolat_hwq *hwqs, u32 *homep, u32 home, u32 q,
		 u64 now)
{
	const u64 mark = IOLAT_N_AWAY | IOLAT_N_MOVING;
	unsigned long flags;
	bool moved = false;

	local_irq_save(flags);
	/* only the home's word can be 0, and it cannot move but from here */
	if (atomic64_cmpxchg(&hwqs[home].n, 0, mark) == 0) {
		moved = atomic64_cmpxchg(&hwqs[q].n, now, now ^ mark) == now;
		iolat_race_window();
		if (moved) {
			WRITE_ONCE(*homep, q);
			atomic64_sub(IOLAT_N_MOVING, &hwqs[q].n);
		}
		/* away, or home again */
		atomic64_sub(moved ? IOLAT_N_MOVING : mark, &hwqs[home].n);
	}
	local_irq_restore(flags);
	return moved;
}

/*
 * The spans of hardware queue @q of @hwqs (its own word's counts before
 * @old and after @new, its busy words' parts on this CPU @words) step,
 * then those of the device above (@all, @all_words) if @q is its home,
 * else the device's count of busy queues in the home's word (@homep)
 * when @q's span goes busy or idle.
 * Return: @q's counts before (iolat_n_counts()).
 */
static __always_inline u64 iolat_spans_step_multi(struct iolat_hwq *hwqs,
						  u32 q, u32 *homep,
						  local64_t *words,
						  struct iolat_dev_spans *all,
						  local64_t *all_words,
						  int dq, int dd, s64 tq,
						  s64 td, u64 old, u64 new)
{
	u64 hold, hnew;
	int oq, od;
	s64 delta;
	u32 home;

	iolat_hwq_step(&hwqs[q], words, dq, dd, old, new, IOLAT_N_W, &tq,
		       &td, &oq, &od);
	if (!(old & IOLAT_N_AWAY)) {
		/*
		 * the home: the device's span moves with each of them, back
		 * to where the queue's opened or moved back to if it is busy
		 */
		if (dq > 0 && !iolat_n_dev_queued(old))
			WRITE_ONCE(all->opener, q);
		iolat_dev_step(all->span, all_words, dq, dd, old, new, &tq,
			       &td);
		return iolat_n_counts(old, 2);
	}
	delta = iolat_n_delta(oq, od, IOLAT_N_ALL_SHIFT, IOLAT_N_W);
	if (delta) {
		do {
			home = READ_ONCE(*homep);
			iolat_race_window();
		} while (!iolat_n_add(&hwqs[home].n, delta, &hold, &hnew,
				      true));
		if (oq > 0 && !iolat_n_dev_queued(hold))
			WRITE_ONCE(all->opener, q);
		iolat_dev_step(all->span, all_words, oq, od, hold, hnew, &tq,
			       &td);
	}
	/* a busy queue's period moved back: the device's too */
	if (!oq && dq > 0 && tq != S64_MAX)
		iolat_busy_extend(&all->span[IOLAT_SPAN_QUEUE],
				  &all_words[IOLAT_SPAN_QUEUE], tq);
	if (!od && dd > 0 && td != S64_MAX)
		iolat_busy_extend(&all->span[IOLAT_SPAN_DEV],
				  &all_words[IOLAT_SPAN_DEV], td);
	return iolat_n_counts(old, 2);
}

/*
 * iolat_spans_move() of a request whose add to its queue's word @q met
 * a mark, or found it away from the home (@old before, @new after): out
 * of line, so that the home's requests carry none of it.  A queue that
 * goes busy on an idle device, which it opened last time too (@all's
 * opener), becomes its home.
 */
static noinline __maybe_unused u64
iolat_spans_move_away(struct iolat_hwq *hwqs, u32 q, u32 *homep,
		      local64_t *words, struct iolat_dev_spans *all,
		      local64_t *all_words, int dq, int dd, s64 tq, s64 td,
		      u64 old, u64 new)
{
	s64 delta = iolat_n_delta(dq, dd, 0, IOLAT_N_W);
	u32 home;

	if (old & IOLAT_N_MOVING) {
		old = iolat_n_settle(&hwqs[q].n, old);
		new = old + delta;
	}
	if ((old & IOLAT_N_AWAY) && dq > 0 && !iolat_n_at(old, 0, IOLAT_N_W) &&
	    READ_ONCE(all->opener) == q) {
		home = READ_ONCE(*homep);
		if (!atomic64_read(&hwqs[home].n) &&
		    iolat_home_claim(hwqs, homep, home, q, new)) {
			old &= ~IOLAT_N_AWAY;
			new &= ~IOLAT_N_AWAY;
		}
	}
	return iolat_spans_step_multi(hwqs, q, homep, words, all, all_words,
				      dq, dd, tq, td, old, new);
}

/*
 * Requests into or out of the spans of hardware queue @q of @hwqs, whose
 * busy words' parts on this CPU are @words, and of the device above,
 * whose spans are @all with @all_words.  The device's counts are in its
 * home queue's word (@homep, iolat.h), the only one without
 * IOLAT_N_AWAY: a request of the home moves them as it moves its
 * queue's, with one locked add; one of another queue moves its queue's
 * count with one, and the home's word with another only when its
 * queue's span goes busy or idle.  Either way the queue's spans change
 * before the device's, at the times the queue's say.
 *
 * The home moves (iolat_home_claim()) to a queue that opens the idle
 * device's span as it did last time, so that a device whose I/O uses
 * one queue at a time, wherever its submitter runs, takes one locked add
 * per request's entry and one per exit, and queues taking turns do not
 * move it back and forth.  Whether a queue is the home is known from its
 * word as its add found it; the home cannot move from a word that
 * counts a busy queue, so a busy queue's count above stays where it was
 * added, and an add above that found a word away from the home is taken
 * back and made again.
 * Return: @q's counts before (iolat_n_counts()).
 */
static __always_inline u64 iolat_spans_move(struct iolat_hwq *hwqs, u32 q,
					    u32 *homep, local64_t *words,
					    struct iolat_dev_spans *all,
					    local64_t *all_words, int dq, int dd,
					    s64 tq, s64 td)
{
	s64 delta = iolat_n_delta(dq, dd, 0, IOLAT_N_W);
	u64 old, new;

	new = atomic64_add_return(delta, &hwqs[q].n);
	old = new - delta;
	if (likely(!(old & (IOLAT_N_AWAY | IOLAT_N_MOVING))))
		return iolat_spans_step_multi(hwqs, q, homep, words, all,
					      all_words, dq, dd, tq, td, old,
					      new);
	return iolat_spans_move_away(hwqs, q, homep, words, all, all_words,
				     dq, dd, tq, td, old, new);
}

/*
 * iolat_spans_move() for @rq's hardware queue of @d, with @c this CPU's
 * begun counters.  A device with one queue keeps that queue's busy words
 * as the device's, in @c; one with several keeps each queue's in its own
 * per-CPU array and the device's in @c.
 * Return: the counts of @rq's queue before (iolat_n_queued(),
 * iolat_n_issued()).
 */
static __always_inline u64 iolat_acct_move(struct iolat_dev *d, u32 hwq,
					   struct iolat_acct_cpu *c,
					   int dq, int dd, s64 tq, s64 td)
{
	int oq, od;
	u64 new;

	if (d->nr_hwq == 1)
		return __iolat_spans_move(&d->hwqs[0], c->busy, dq, dd, &tq,
					  &td, &oq, &od, &new);
	return iolat_spans_move(d->hwqs, hwq, &d->home,
				c->hwq_words + hwq * IOLAT_NR_SPANS,
				&d->all, c->busy, dq, dd, tq, td);
}

static inline u32 iolat_n_queued(u64 n)
{
	return (u32)n;
}

static inline u32 iolat_n_issued(u64 n)
{
	return n >> 32;
}

int iolat_acct_init(struct iolat_dev *d);
size_t iolat_acct_bytes(void);
int iolat_acct_cpu_init(struct iolat_dev *d, int cpu);
size_t iolat_acct_cpu_bytes(u32 nr_hwq);
void iolat_acct_free(struct iolat_dev *d);
void iolat_acct_snapshot(const struct iolat_session *s,
			 const struct iolat_dev *d, struct iolat_acct_snap *snap,
			 struct iolat_acct_cpu *c);
void iolat_acct_hwq_busy(const struct iolat_session *s,
			 const struct iolat_dev *d, u32 hwq, u64 now,
			 u64 busy[IOLAT_NR_SPANS]);
u64 iolat_acct_now(const struct iolat_session *s);

#endif /* _IOLAT_ACCT_H */
