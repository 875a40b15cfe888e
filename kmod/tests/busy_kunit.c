// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "iolat_busy": the exact busy time and queue depth of
 * kmod/acct.h and lib/busy.c: the union of overlapping requests, backdated
 * starts, a device's home word moving between queues (and a race of two
 * CPUs through it), integrals and queue-depth buckets.
 */
#include <kunit/test.h>
#include <linux/delay.h>

/* iolat_busy_home_race_test() widens the race windows of acct.h */
static bool home_race_on;
#define iolat_race_window()						\
	do {								\
		if (READ_ONCE(home_race_on))				\
			ndelay(200);					\
	} while (0)

#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include "../acct.h"
#include "suites.h"

/* A small deterministic generator for the accounting tests. */
static u32 acct_rand(u32 *state)
{
	*state = *state * 1103515245 + 12345;
	return *state >> 8;
}

/* Exact measure of the union of [start[i], end[i]), by a sweep. */
static u64 acct_union(const u64 *start, const u64 *end, unsigned int n)
{
	u64 total = 0, cur_s = 0, cur_e = 0, t;
	unsigned int i, j, next;
	bool *used = kcalloc(n, sizeof(*used), GFP_KERNEL);

	if (!used)
		return 0;
	for (i = 0; i < n; i++) {		/* by start, O(n^2) is fine */
		next = n;
		for (j = 0; j < n; j++)
			if (!used[j] && (next == n || start[j] < start[next]))
				next = j;
		used[next] = true;
		if (i && start[next] <= cur_e) {
			cur_e = max(cur_e, end[next]);
			continue;
		}
		total += cur_e - cur_s;
		cur_s = start[next];
		cur_e = end[next];
	}
	t = total + cur_e - cur_s;
	kfree(used);
	return t;
}

/*
 * Requests into (@dn 1) or out of (-1) both spans of queue @q of @hwqs
 * at @t, whose home is *@home, and of the device above, whose spans are
 * @all.
 */
static void acct_move(struct iolat_hwq *hwqs, u32 q, u32 *home,
		      local64_t *words, struct iolat_dev_spans *all,
		      local64_t *all_words, int dn, s64 t)
{
	iolat_spans_move(hwqs, q, home, words, all, all_words, dn, dn, t, t);
}

/* Busy time of span @i in @words at @t. */
static u64 acct_busy(local64_t *words, enum iolat_span i, s64 t)
{
	return iolat_busy_read(local64_read(&words[i]), t);
}

/*
 * iolat_spans_move() replayed over random overlapping intervals, the
 * events in time order across two hardware queues, each request in the
 * queue and at the device over the same interval: each queue's busy
 * time and the device's are the exact union of their intervals in both
 * spans, the counts return to 0, and a reading in the middle of an open
 * period counts it up to then.
 */
static void iolat_busy_union_test(struct kunit *test)
{
	enum { N = 200 };
	u64 *start = kunit_kcalloc(test, 2 * N, sizeof(u64), GFP_KERNEL);
	u64 *end = start + N;
	struct iolat_dev_spans all = {};
	struct iolat_hwq hwq[2] = {};
	u32 home = 0, home_was, moves = 0;
	/* the queues', the device's */
	local64_t words[3][IOLAT_NR_SPANS] = {};
	u64 t, next_t, q_busy[2];
	unsigned int i, k, done = 0;
	u32 seed = 42;
	int q;

	KUNIT_ASSERT_NOT_NULL(test, start);
	iolat_hwqs_init(hwq, 2);
	for (i = 0, t = 1000; i < N; i++) {
		t += acct_rand(&seed) % 3000;	/* gaps and overlaps */
		start[i] = t;
		end[i] = t + 1 + acct_rand(&seed) % 5000;
	}
	/* replay: every start and end in time order (ends first on a tie) */
	for (t = 0; done < 2 * N; t = next_t) {
		next_t = U64_MAX;
		for (i = 0; i < N; i++) {
			q = i & 1;
			if (end[i] == t) {
				acct_move(hwq, q, &home, words[q], &all,
					  words[2], -1, t);
				done++;
			}
			if (end[i] > t)
				next_t = min(next_t, end[i]);
		}
		for (i = 0; i < N; i++) {
			q = i & 1;
			if (start[i] == t) {
				home_was = home;
				acct_move(hwq, q, &home, words[q], &all,
					  words[2], 1, t);
				moves += home != home_was;
				done++;
			}
			if (start[i] > t)
				next_t = min(next_t, start[i]);
		}
	}
	/*
	 * the home moved to a queue that opened the idle device twice in a
	 * row; the device's counts, in its word, and the queues' are 0
	 */
	KUNIT_EXPECT_GT(test, moves, 0U);
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[home].n), 0LL);
	KUNIT_EXPECT_EQ(test, acct_busy(words[2], IOLAT_SPAN_QUEUE, t),
			acct_union(start, end, N));
	KUNIT_EXPECT_EQ(test, acct_busy(words[2], IOLAT_SPAN_DEV, t),
			acct_union(start, end, N));
	for (q = 0; q < 2; q++) {
		u64 *s2 = kunit_kcalloc(test, N, sizeof(u64), GFP_KERNEL);
		u64 *e2 = s2 + N / 2;

		KUNIT_ASSERT_NOT_NULL(test, s2);
		for (i = q, k = 0; i < N; i += 2, k++) {
			s2[k] = start[i];
			e2[k] = end[i];
		}
		KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[q].n),
				q == home ? 0LL : (s64)IOLAT_N_AWAY);
		q_busy[q] = acct_busy(words[q], IOLAT_SPAN_QUEUE, t);
		KUNIT_EXPECT_EQ(test, q_busy[q], acct_union(s2, e2, N / 2));
		KUNIT_EXPECT_EQ(test, acct_busy(words[q], IOLAT_SPAN_DEV, t),
				q_busy[q]);
	}
	/* open a period at 10^6 and read it at 10^6 + 500 */
	t = acct_busy(words[2], IOLAT_SPAN_DEV, 1000000);
	acct_move(hwq, 0, &home, words[0], &all, words[2], 1, 1000000);
	KUNIT_EXPECT_EQ(test, acct_busy(words[2], IOLAT_SPAN_DEV, 1000500),
			t + 500);
}

/*
 * A request counts from its first stage, which may be before it is seen:
 * an idle span opens at that stage, but not before the end of its last
 * period (which already covers the overlap); a busy span's period moves
 * back to it, on the queue and on the device.  The device span (issue to
 * completion) of the same requests, entered at the times they are seen,
 * does not move; the counts say how many requests each span holds.
 * @q: the queue of the requests, of two whose home is the first: with
 * @stay, the home's requests are taken to open the idle device between
 * them, so that the home stays where it is (iolat_spans_move()).
 */
static void busy_backdate(struct kunit *test, u32 q, bool stay)
{
	struct iolat_hwq hwq[2] = {};
	struct iolat_dev_spans all = {};
	local64_t wq[IOLAT_NR_SPANS] = {}, wa[IOLAT_NR_SPANS] = {};
	u32 home = 0;
	u64 old, n;

	iolat_hwqs_init(hwq, 2);
#define MOVE(dq, dd, tq, td) ({						\
	if (stay)							\
		all.opener = 0;						\
	iolat_spans_move(hwq, q, &home, wq, &all, wa, dq, dd, tq, td);	\
})
	MOVE(1, 1, 100, 100);
	MOVE(-1, -1, 200, 200);		/* [100, 200] */
	MOVE(1, 1, 150, 300);		/* seen at 300 */
	/* a queue that opens the idle device twice in a row is its home */
	KUNIT_EXPECT_EQ(test, home, stay ? 0U : q);
	MOVE(-1, -1, 400, 400);		/* [100, 400] */
	KUNIT_EXPECT_EQ(test, acct_busy(wq, IOLAT_SPAN_QUEUE, 1000), 300ULL);
	KUNIT_EXPECT_EQ(test, acct_busy(wq, IOLAT_SPAN_DEV, 1000), 200ULL);
	MOVE(1, 0, 500, 0);
	MOVE(1, 0, 450, 0);		/* moves back */
	/* not past 400 */
	old = MOVE(1, 1, 300, 540);
	KUNIT_EXPECT_EQ(test, iolat_n_queued(old), 2U);
	KUNIT_EXPECT_EQ(test, iolat_n_issued(old), 0U);
	/*
	 * three requests queued, one of them issued: the device's counts
	 * are the home's own, or one other queue busy in both spans
	 */
	n = atomic64_read(&hwq[home].n);
	KUNIT_EXPECT_EQ(test, iolat_n_dev_queued(n), home == q ? 3U : 1U);
	KUNIT_EXPECT_EQ(test, iolat_n_dev_issued(n), 1U);
	KUNIT_EXPECT_EQ(test, iolat_n_counts(atomic64_read(&hwq[q].n), 2),
			3ULL | 1ULL << 32);
	KUNIT_EXPECT_EQ(test, acct_busy(wq, IOLAT_SPAN_QUEUE, 550),
			300ULL + 150);
	KUNIT_EXPECT_EQ(test, acct_busy(wa, IOLAT_SPAN_QUEUE, 550),
			300ULL + 150);
	MOVE(-1, 0, 560, 0);
	MOVE(-1, 0, 570, 0);
	MOVE(-1, -1, 600, 600);		/* [400, 600] */
#undef MOVE
	/* the home's word is 0, the other's away */
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[home].n), 0LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[!home].n), (s64)IOLAT_N_AWAY);
	KUNIT_EXPECT_EQ(test, acct_busy(wq, IOLAT_SPAN_QUEUE, 1000), 500ULL);
	KUNIT_EXPECT_EQ(test, acct_busy(wa, IOLAT_SPAN_QUEUE, 1000), 500ULL);
	KUNIT_EXPECT_EQ(test, acct_busy(wa, IOLAT_SPAN_DEV, 1000), 260ULL);
}

/*
 * busy_backdate() on the device's home queue, on another that stays
 * away from it, and on another that becomes its home
 */
static void iolat_busy_backdate_test(struct kunit *test)
{
	busy_backdate(test, 0, false);
	busy_backdate(test, 1, true);
	busy_backdate(test, 1, false);
}

/*
 * The home of a device of two queues follows the queue its requests use
 * while the device is idle between them, and stays while queues take
 * turns: the home's word counts the device's other busy queue, the
 * other word is away.  An add above that finds a word away from the
 * home is taken back.
 */
static void iolat_busy_home_test(struct kunit *test)
{
	const s64 away = IOLAT_N_AWAY, one = 1LL | 1LL << IOLAT_N_W;
	struct iolat_hwq hwq[2] = {};
	struct iolat_dev_spans all = {};
	local64_t w[3][IOLAT_NR_SPANS] = {};
	u32 home = 0;
	u64 old, new;
	int i;

	iolat_hwqs_init(hwq, 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[1].n), away);
	/* queue 1 alone: it opens the idle device, then again and moves it */
	acct_move(hwq, 1, &home, w[1], &all, w[2], 1, 100);
	KUNIT_EXPECT_EQ(test, home, 0U);
	/* the device's counts in queue 0's word: one other queue busy */
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[0].n),
			1LL << IOLAT_N_ALL_SHIFT |
			1LL << (IOLAT_N_ALL_SHIFT + IOLAT_N_W));
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[1].n), away | one);
	acct_move(hwq, 1, &home, w[1], &all, w[2], -1, 200);
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[0].n), 0LL);
	for (i = 0; i < 3; i++) {
		acct_move(hwq, 1, &home, w[1], &all, w[2], 1, 300 + 100 * i);
		KUNIT_EXPECT_EQ(test, home, 1U);
		/* its own counts, no other queue busy */
		KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[1].n), one);
		KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[0].n), away);
		acct_move(hwq, 1, &home, w[1], &all, w[2], -1, 350 + 100 * i);
	}
	/* queue 0 while queue 1 is busy: counted in queue 1's word */
	acct_move(hwq, 1, &home, w[1], &all, w[2], 1, 1000);
	acct_move(hwq, 0, &home, w[0], &all, w[2], 1, 1100);
	KUNIT_EXPECT_EQ(test, home, 1U);
	KUNIT_EXPECT_EQ(test, iolat_n_dev_queued(atomic64_read(&hwq[1].n)),
			2U);
	KUNIT_EXPECT_EQ(test, iolat_n_dev_issued(atomic64_read(&hwq[1].n)),
			2U);
	acct_move(hwq, 1, &home, w[1], &all, w[2], -1, 1200);
	acct_move(hwq, 0, &home, w[0], &all, w[2], -1, 1300);
	/* queues taking turns: the home stays */
	for (i = 0; i < 4; i++) {
		acct_move(hwq, i & 1, &home, w[i & 1], &all, w[2], 1,
			  2000 + 100 * i);
		acct_move(hwq, i & 1, &home, w[i & 1], &all, w[2], -1,
			  2050 + 100 * i);
		KUNIT_EXPECT_EQ(test, home, 1U);
	}
	/* queue 0 twice in a row: its home from the second */
	for (i = 0; i < 2; i++) {
		acct_move(hwq, 0, &home, w[0], &all, w[2], 1, 3000 + 100 * i);
		KUNIT_EXPECT_EQ(test, home, i ? 0U : 1U);
		acct_move(hwq, 0, &home, w[0], &all, w[2], -1, 3010 + 100 * i);
	}
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[0].n), 0LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[1].n), away);
	/* [100, 200], [300 + 100i, 350 + 100i], [1000, 1300], 4 x 50, 2 x 10 */
	KUNIT_EXPECT_EQ(test, acct_busy(w[2], IOLAT_SPAN_QUEUE, 5000),
			100ULL + 3 * 50 + 300 + 4 * 50 + 2 * 10);
	KUNIT_EXPECT_EQ(test, acct_busy(w[2], IOLAT_SPAN_DEV, 5000),
			100ULL + 3 * 50 + 300 + 4 * 50 + 2 * 10);
	KUNIT_EXPECT_EQ(test, acct_busy(w[1], IOLAT_SPAN_DEV, 5000),
			100ULL + 3 * 50 + 200 + 2 * 50);
	/* an add above to a word away from the home is taken back */
	KUNIT_EXPECT_FALSE(test, iolat_n_add(&hwq[1].n, 1LL << IOLAT_N_ALL_SHIFT,
					     &old, &new, true));
	KUNIT_EXPECT_EQ(test, atomic64_read(&hwq[1].n), away);
	KUNIT_EXPECT_TRUE(test, iolat_n_add(&hwq[1].n, 1, &old, &new, false));
	KUNIT_EXPECT_EQ(test, old, (u64)away);
	KUNIT_EXPECT_EQ(test, iolat_n_counts(new, 2), 1ULL);
}

/*
 * iolat_busy_home_race_test()'s device of three queues and its racers:
 * with two, one of them the home, no add can miss a move of the home
 */
enum { HOME_RACE_Q = 3, HOME_RACE_N = 50000 };

struct home_race {
	struct iolat_hwq hwq[HOME_RACE_Q];
	struct iolat_dev_spans all;
	u32 home;
	atomic64_t clock;
	atomic_t ready;
	/* each racer's part of the busy words: the queues', the device's */
	local64_t words[2][HOME_RACE_Q + 1][IOLAT_NR_SPANS];
	unsigned int moves[2];
	struct completion done[2];
};

struct home_racer {
	struct home_race *r;
	int id;
};

static int home_race_fn(void *arg)
{
	struct home_racer *x = arg;
	struct home_race *r = x->r;
	local64_t (*w)[IOLAT_NR_SPANS] = r->words[x->id];
	u32 q, home = READ_ONCE(r->home), seed = 7 + x->id;
	int i, k, n;
	s64 t;

	atomic_inc(&r->ready);
	while (atomic_read(&r->ready) < 2)
		cpu_relax();
	for (i = 0; i < HOME_RACE_N; i++) {
		/* runs of one queue, out of phase; now and then two requests */
		q = (i / 64 + x->id) % HOME_RACE_Q;
		n = acct_rand(&seed) % 8 ? 1 : 2;
		preempt_disable();
		for (k = 0; k < n; k++) {
			t = atomic64_inc_return(&r->clock);
			iolat_spans_move(r->hwq, q, &r->home, w[q], &r->all,
					 w[HOME_RACE_Q], 1, 1, t, t);
		}
		for (k = 0; k < n; k++) {
			t = atomic64_inc_return(&r->clock);
			iolat_spans_move(r->hwq, q, &r->home, w[q], &r->all,
					 w[HOME_RACE_Q], -1, -1, t, t);
		}
		preempt_enable();
		if (READ_ONCE(r->home) != home) {
			home = READ_ONCE(r->home);
			r->moves[x->id]++;
		}
	}
	complete(&r->done[x->id]);
	while (!kthread_should_stop())
		schedule_timeout_uninterruptible(1);
	return 0;
}

/*
 * Two CPUs move requests in and out of a device of three queues, in
 * runs of one queue each, so that the home moves while the other CPU
 * adds (with the windows between the steps of a move, and between a
 * read of the home and the add to its word, widened):
 * every count comes back (the home's word 0, the other away), and every
 * busy period opened on the queues and the device is closed.
 */
static void iolat_busy_home_race_test(struct kunit *test)
{
	struct home_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct home_racer x[2];
	struct task_struct *task[2];
	unsigned int cpu[2], i, q, sp;
	s64 sum;

	KUNIT_ASSERT_NOT_NULL(test, r);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	cpu[0] = cpumask_first(cpu_online_mask);
	cpu[1] = cpumask_next(cpu[0], cpu_online_mask);
	iolat_hwqs_init(r->hwq, HOME_RACE_Q);
	for (i = 0; i < 2; i++) {
		init_completion(&r->done[i]);
		x[i].r = r;
		x[i].id = i;
		task[i] = kthread_create(home_race_fn, &x[i], "iolat_race/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task[i]));
		kthread_bind(task[i], cpu[i]);
	}
	WRITE_ONCE(home_race_on, true);
	for (i = 0; i < 2; i++)
		wake_up_process(task[i]);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&r->done[i],
								  300 * HZ),
				0UL);
		kthread_stop(task[i]);
	}
	WRITE_ONCE(home_race_on, false);
	kunit_info(test, "home moved %u and %u times as seen by each CPU",
		   r->moves[0], r->moves[1]);
	KUNIT_EXPECT_GT(test, r->moves[0] + r->moves[1], 0U);
	for (q = 0; q < HOME_RACE_Q; q++)
		KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&r->hwq[q].n),
				    q == r->home ? 0LL : (s64)IOLAT_N_AWAY,
				    "queue %u, home %u", q, r->home);
	for (q = 0; q <= HOME_RACE_Q; q++)
		for (sp = 0; sp < IOLAT_NR_SPANS; sp++) {
			sum = local64_read(&r->words[0][q][sp]) +
			      local64_read(&r->words[1][q][sp]);
			KUNIT_EXPECT_EQ_MSG(test, iolat_busy_open_periods(sum),
					    0LL, "queue %u (%u: device), span %u",
					    q, HOME_RACE_Q, sp);
			KUNIT_EXPECT_LE(test,
					iolat_busy_read(sum,
							atomic64_read(&r->clock)),
					(u64)atomic64_read(&r->clock));
		}
}

/*
 * The instant in which one CPU's close and another's open are applied out
 * of order (two periods open, or minus one) reads within the gap between
 * the two events, and the word is exact again once both are applied.
 */
static void iolat_busy_transient_test(struct kunit *test)
{
	s64 word = 0, closed;

	word += iolat_busy_open_delta(100);
	word += iolat_busy_close_delta(300);
	closed = word;				/* 200 ns busy */
	KUNIT_EXPECT_EQ(test, iolat_busy_open_periods(word), 0LL);
	word += iolat_busy_open_delta(400);
	KUNIT_EXPECT_EQ(test, iolat_busy_open_periods(word), 1LL);
	KUNIT_EXPECT_EQ(test, iolat_busy_read(word, 450), 250ULL);
	/* the next open (at 1001) lands before the close (at 1000) */
	word += iolat_busy_open_delta(1001);
	KUNIT_EXPECT_EQ(test, iolat_busy_open_periods(word), 2LL);
	KUNIT_EXPECT_LE(test, iolat_busy_read(word, 1002) - (200 + 600 + 1),
			2ULL);
	word += iolat_busy_close_delta(1000);
	KUNIT_EXPECT_EQ(test, iolat_busy_read(word, 1002), 200ULL + 600 + 1);
	/* a close applied before its open: minus one period */
	word = closed + iolat_busy_close_delta(500);
	KUNIT_EXPECT_EQ(test, iolat_busy_open_periods(word), -1LL);
	word += iolat_busy_open_delta(499);
	KUNIT_EXPECT_EQ(test, iolat_busy_read(word, 600), 201ULL);
}

/*
 * In-flight integral from modular per-CPU sums: starts subtracted on one
 * CPU, ends added on another, open intervals counted up to now, and
 * clock values near 2^64 wrap harmlessly.
 */
static void iolat_integral_test(struct kunit *test)
{
	u64 base = U64_MAX - 1000, cpu0_sum = 0, cpu0_n = 0, cpu1_sum = 0,
	    cpu1_n = 0;

	cpu0_sum -= base + 10;			/* [10, 110) */
	cpu0_n++;
	cpu0_sum -= base + 50;			/* [50, 250) */
	cpu0_n++;
	cpu1_sum += base + 110;
	cpu1_n--;
	KUNIT_EXPECT_EQ(test, iolat_integral_read(cpu0_sum + cpu1_sum,
						  cpu0_n + cpu1_n, base + 200),
			100ULL + 150);
	cpu1_sum += base + 250;
	cpu1_n--;
	KUNIT_EXPECT_EQ(test, iolat_integral_read(cpu0_sum + cpu1_sum,
						  cpu0_n + cpu1_n, base + 900),
			100ULL + 200);
}

/*
 * Queue-depth buckets: exact below 16, then 2 wide from 16 (20 and 21
 * share one); each bucket's low edge maps back; BLK_MQ_MAX_DEPTH fits.
 */
static void iolat_qd_bucket_test(struct kunit *test)
{
	unsigned int b;

	for (b = 0; b < IOLAT_QD_EXACT; b++)
		KUNIT_EXPECT_EQ(test, iolat_qd_bucket(b), b);
	for (b = 0; b < IOLAT_QD_BUCKETS; b++) {
		KUNIT_EXPECT_EQ(test, iolat_qd_bucket(iolat_qd_bucket_low(b)), b);
		if (b)
			KUNIT_EXPECT_GT(test, iolat_qd_bucket_low(b),
					iolat_qd_bucket_low(b - 1));
		if (b + 1 < IOLAT_QD_BUCKETS)
			KUNIT_EXPECT_EQ(test,
					iolat_qd_bucket(iolat_qd_bucket_low(b + 1) - 1),
					b);
	}
	KUNIT_EXPECT_EQ(test, iolat_qd_bucket(20), IOLAT_QD_EXACT + 2U);
	KUNIT_EXPECT_LT(test, iolat_qd_bucket(10240), IOLAT_QD_BUCKETS - 1U);
	KUNIT_EXPECT_EQ(test, iolat_qd_bucket(U32_MAX), IOLAT_QD_BUCKETS - 1U);
}

static struct kunit_case iolat_busy_cases[] = {
	KUNIT_CASE(iolat_busy_union_test),
	KUNIT_CASE(iolat_busy_backdate_test),
	KUNIT_CASE(iolat_busy_home_test),
	KUNIT_CASE(iolat_busy_home_race_test),
	KUNIT_CASE(iolat_busy_transient_test),
	KUNIT_CASE(iolat_integral_test),
	KUNIT_CASE(iolat_qd_bucket_test),
	{}
};

struct kunit_suite iolat_busy_suite = {
	.name = "iolat_busy",
	.test_cases = iolat_busy_cases,
};
