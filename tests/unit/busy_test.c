// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of lib/busy.c (busy time, in-flight integrals and
 * queue-depth buckets, shared by the module and the CLI), on
 * kselftest_harness.h.  The KUnit suite iolat_busy (kmod/tests/) tests
 * the module's use of them, per-CPU words and races included; these
 * test the arithmetic alone, against sweeps over the same intervals.
 */
#include <stdint.h>
#include <stdlib.h>
#include "../../lib/busy.h"
#include "unit.h"
#include "kselftest_harness.h"

#define N_REQ 2000

#define rnd rnd64

struct ev {
	int64_t t;
	int d;			/* +1 a request begins, -1 one ends */
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d;	/* at one instant, ends first */
}

/* Measure of the union of the intervals up to @now, by a sweep. */
static int64_t union_upto(const struct ev *ev, int n, int64_t now)
{
	int64_t busy = 0, from = 0;
	int depth = 0, i;

	for (i = 0; i < n && ev[i].t <= now; i++) {
		if (depth == 0 && ev[i].d > 0)
			from = ev[i].t;
		depth += ev[i].d;
		if (depth == 0)
			busy += ev[i].t - from;
	}
	return depth ? busy + now - from : busy;
}

/*
 * N_REQ random overlapping requests after @base: the word, changed only
 * when the span goes idle to busy and back, reads the union's measure
 * exactly at every event and between events.
 */
static int replay(struct __test_metadata *_metadata, int64_t base)
{
	static struct ev ev[2 * N_REQ];
	int64_t word = 0, t;
	int depth = 0, i, n = 0;

	for (i = 0; i < N_REQ; i++) {
		t = base + (int64_t)(rnd() % 100000000);
		ev[n++] = (struct ev){ t, 1 };
		ev[n++] = (struct ev){ t + 1 + (int64_t)(rnd() % 200000), -1 };
	}
	qsort(ev, n, sizeof(ev[0]), cmp_ev);
	for (i = 0; i < n; i++) {
		if (ev[i].d > 0 && depth++ == 0)
			word += iolat_busy_open_delta(ev[i].t);
		if (ev[i].d < 0 && --depth == 0)
			word += iolat_busy_close_delta(ev[i].t);
		EXPECT_EQ(depth ? 1 : 0, iolat_busy_open_periods(word));
		t = ev[i].t;
		EXPECT_EQ(union_upto(ev, n, t), (int64_t)iolat_busy_read(word, t));
		if (i + 1 < n) {
			t += (ev[i + 1].t - t) / 2;
			EXPECT_EQ(union_upto(ev, n, t),
				  (int64_t)iolat_busy_read(word, t));
		}
	}
	return depth;
}

TEST(busy_is_the_union)
{
	EXPECT_EQ(0, replay(_metadata, 0));
}

/* 30 days into a session: R stays far inside K / 2 (36 years). */
TEST(busy_is_the_union_late)
{
	EXPECT_EQ(0, replay(_metadata, 30LL * 86400 * 1000000000));
}

/*
 * One CPU's close and another's open of the same span, applied out of
 * order: for that instant the word has two periods open (the open
 * first) or minus one (the close of a period whose open is not yet
 * added); each decodes, and once both are in, the busy time is exact.
 */
TEST(close_and_open_out_of_order)
{
	int64_t t1 = 1000, tc = 5000, t2 = 5200, now = 9000, word;

	/* open at t1; then the open at t2 lands before the close at tc */
	word = iolat_busy_open_delta(t1);
	word += iolat_busy_open_delta(t2);
	EXPECT_EQ(2, iolat_busy_open_periods(word));
	word += iolat_busy_close_delta(tc);
	EXPECT_EQ(1, iolat_busy_open_periods(word));
	EXPECT_EQ((tc - t1) + (now - t2), (int64_t)iolat_busy_read(word, now));

	/* idle; a close at tc applied before its own open at t1 */
	word = iolat_busy_close_delta(tc);
	EXPECT_EQ(-1, iolat_busy_open_periods(word));
	word += iolat_busy_open_delta(t1);
	EXPECT_EQ(0, iolat_busy_open_periods(word));
	EXPECT_EQ(tc - t1, (int64_t)iolat_busy_read(word, now));
	/* a reading before the period began is 0, never negative */
	EXPECT_EQ(0, (int64_t)iolat_busy_read(iolat_busy_open_delta(t1), 0));
}

/*
 * The in-flight integral: the sum of ends minus starts, modulo 2^64,
 * plus the number open times now, is the sum of the durations up to now,
 * even where the clock's values wrap the sums (a base near 2^64).
 */
TEST(integral_is_the_sum)
{
	static uint64_t start[N_REQ], end[N_REQ];
	uint64_t base = UINT64_MAX - 50000000, sum = 0, n = 0, now, want;
	int i, k, step;

	for (i = 0; i < N_REQ; i++) {
		start[i] = base + rnd() % 100000000;
		end[i] = start[i] + 1 + rnd() % 200000;
	}
	for (step = 0; step <= 20; step++) {
		now = base + step * 5500000ULL;
		sum = 0;
		n = 0;
		want = 0;
		for (k = 0; k < N_REQ; k++) {
			if ((int64_t)(start[k] - now) > 0)
				continue;
			sum -= start[k];
			n++;
			if ((int64_t)(end[k] - now) <= 0) {
				sum += end[k];
				n--;
				want += end[k] - start[k];
			} else {
				want += now - start[k];
			}
		}
		EXPECT_EQ(want, iolat_integral_read(sum, n, now));
	}
	/* nothing begun: 0 */
	EXPECT_EQ(0ULL, iolat_integral_read(0, 0, base));
}

/*
 * Queue-depth buckets: exact below IOLAT_QD_EXACT, then eight per power
 * of two, each no wider than an eighth of its lowest depth, contiguous,
 * its lowest depth mapping back to it; the last takes everything above.
 */
TEST(qd_buckets)
{
	unsigned int b, prev = 0;
	uint32_t qd, lo, hi;

	for (qd = 0; qd < IOLAT_QD_EXACT; qd++)
		EXPECT_EQ(qd, iolat_qd_bucket(qd));
	for (qd = 0; qd <= 1U << 15; qd++) {
		b = iolat_qd_bucket(qd);
		ASSERT_LE(prev, b);
		ASSERT_GE(prev + 1, b);
		prev = b;
	}
	for (b = 0; b + 1 < IOLAT_QD_BUCKETS; b++) {
		lo = iolat_qd_bucket_low(b);
		hi = iolat_qd_bucket_low(b + 1) - 1;
		EXPECT_EQ(b, iolat_qd_bucket(lo));
		EXPECT_EQ(b, iolat_qd_bucket(hi));
		EXPECT_GE(lo / IOLAT_QD_PER_POW2 + (lo < IOLAT_QD_EXACT), hi - lo + 1)
			TH_LOG("bucket %u: %u..%u", b, lo, hi);
	}
	EXPECT_EQ(IOLAT_QD_BUCKETS - 1, iolat_qd_bucket(UINT32_MAX));
	EXPECT_EQ(IOLAT_QD_BUCKETS - 1,
		  iolat_qd_bucket(iolat_qd_bucket_low(IOLAT_QD_BUCKETS - 1)));
}

TEST_HARNESS_MAIN
