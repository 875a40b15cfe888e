// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "iolat_stash": the per-CPU stash of bios' early stamps
 * (kmod/stash.h) and the stamps' 51-bit clock: lookup newest first,
 * reuse in order, release, a request first seen on another CPU, a bio
 * split after its submitter moved.
 */
#include <kunit/test.h>
#include <linux/blk_types.h>
#include <linux/percpu.h>
#include "../stash.h"
#include "../cpus.h"
#include "suites.h"

/* Fake bios: only their addresses are used as keys. */
static struct bio stash_bios[IOLAT_STASH_ENTRIES + 2];

static void stash_put(struct iolat_stash *st, int i, u64 q_ns)
{
	struct iolat_stash_entry *e = iolat_stash_claim(st);

	e->q_ns = q_ns;
	iolat_stash_publish(e, &stash_bios[i]);
}

/*
 * The stash finds entries by bio, newest first; entries are reused in
 * order, so the oldest is lost when a 65th is claimed; a claimed entry is
 * invisible until published, as for a probe interrupted by another.
 */
static void iolat_stash_test(struct kunit *test)
{
	struct iolat_stash *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct iolat_stash_entry *outer, *e;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_EXPECT_NULL(test, iolat_stash_find(st, &stash_bios[0]));
	for (i = 0; i < IOLAT_STASH_ENTRIES; i++)
		stash_put(st, i, 1000 + i);
	for (i = 0; i < IOLAT_STASH_ENTRIES; i++) {
		e = iolat_stash_find(st, &stash_bios[i]);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_EXPECT_EQ(test, e->q_ns, 1000ULL + i);
	}
	stash_put(st, IOLAT_STASH_ENTRIES, 7);
	KUNIT_EXPECT_NULL(test, iolat_stash_find(st, &stash_bios[0]));
	KUNIT_EXPECT_NOT_NULL(test, iolat_stash_find(st, &stash_bios[1]));

	/* the same bio again: the newest entry wins */
	stash_put(st, 5, 99);
	KUNIT_EXPECT_EQ(test, iolat_stash_find(st, &stash_bios[5])->q_ns, 99ULL);

	/* claiming reuses bio 2's entry; the entry is unseen until published */
	outer = iolat_stash_claim(st);
	outer->q_ns = 1;
	KUNIT_EXPECT_NULL(test, iolat_stash_find(st, &stash_bios[2]));
	stash_put(st, IOLAT_STASH_ENTRIES + 1, 2);	/* the nested probe */
	KUNIT_EXPECT_NULL(test, iolat_stash_find(st, &stash_bios[2]));
	iolat_stash_publish(outer, &stash_bios[2]);
	KUNIT_EXPECT_PTR_EQ(test, iolat_stash_find(st, &stash_bios[2]), outer);
	KUNIT_EXPECT_EQ(test,
			iolat_stash_find(st, &stash_bios[IOLAT_STASH_ENTRIES + 1])->q_ns,
			2ULL);
}

/*
 * A merged bio's entry is given back when it is the newest, so a run of
 * merges keeps older entries; an older entry is only freed.
 */
static void iolat_stash_release_test(struct kunit *test)
{
	struct iolat_stash *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, st);
	stash_put(st, 0, 1);
	for (i = 0; i < 10 * IOLAT_STASH_ENTRIES; i++) {
		stash_put(st, 1, 2);
		iolat_stash_release(st, iolat_stash_find(st, &stash_bios[1]));
	}
	KUNIT_EXPECT_EQ(test, local_read(&st->head), 1L);
	KUNIT_EXPECT_NOT_NULL(test, iolat_stash_find(st, &stash_bios[0]));
	KUNIT_EXPECT_NULL(test, iolat_stash_find(st, &stash_bios[1]));

	stash_put(st, 2, 3);
	iolat_stash_release(st, iolat_stash_find(st, &stash_bios[0]));
	KUNIT_EXPECT_EQ(test, local_read(&st->head), 2L);
	KUNIT_EXPECT_NULL(test, iolat_stash_find(st, &stash_bios[0]));
	KUNIT_EXPECT_NOT_NULL(test, iolat_stash_find(st, &stash_bios[2]));
}

/*
 * A bio's stamp keeps the low 51 bits of the clock: put back on a reading
 * before it (the probe's last) or after it (a fresh one), it is the
 * clock's whole value again, across the bits' wrap and at its edges.
 */
static void iolat_stamp_test(struct kunit *test)
{
	const u64 mask = (1ULL << 51) - 1;
	static const u64 t[] = {
		0, 1, 1000, (1ULL << 51) - 1, 1ULL << 51, (1ULL << 51) + 5,
		(7ULL << 51) - 3, 3ULL << 60, U64_MAX - 10,
	};
	static const u64 d[] = { 0, 1, 999, 1ULL << 40, (1ULL << 51) - 1 };
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		for (k = 0; k < ARRAY_SIZE(d); k++) {
			KUNIT_EXPECT_EQ(test,
					iolat_stamp_after(t[i] - d[k], t[i] & mask,
							  mask), t[i]);
			KUNIT_EXPECT_EQ(test,
					iolat_stamp_before(t[i] + d[k],
							   t[i] & mask, mask),
					t[i]);
		}
	}
	/* a reading 2^51 ns away or more cannot tell the stamp's epoch */
	KUNIT_EXPECT_NE(test, iolat_stamp_after(1000 - (1ULL << 51), 1000,
						 mask), 1000ULL);
}

/*
 * A session with parts for two CPUs, this one (@mine) and another
 * (@theirs); every other CPU has none, as if it had not been online.
 * Preemption is off from here to the caller's put_cpu().  The test is
 * skipped where there is no other possible CPU.
 */
static struct iolat_session *stash_two_cpus(struct kunit *test,
					    struct iolat_cpu **mine,
					    struct iolat_cpu **theirs)
{
	struct iolat_session *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct iolat_cpu *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct iolat_cpu *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	int self, other;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	s->cpu = kunit_kcalloc(test, nr_cpu_ids, sizeof(*s->cpu), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->cpu);
	self = get_cpu();
	for_each_possible_cpu(other)
		if (other != self)
			break;
	if (other >= nr_cpu_ids) {
		put_cpu();
		kunit_skip(test, "one possible CPU: no other stash");
	}
	s->cpu[self] = a;
	s->cpu[other] = b;
	*mine = a;
	*theirs = b;
	return s;
}

/*
 * A request first seen on a CPU other than its submitter's takes its
 * entry from that CPU's stash, once; entries of this CPU and entries
 * claimed for another bio are left alone.
 */
static void iolat_stash_remote_test(struct kunit *test)
{
	struct iolat_stash_entry copy, *e;
	struct iolat_stash *mine, *theirs;
	struct iolat_cpu *a, *b;
	struct iolat_session *s = stash_two_cpus(test, &a, &b);

	mine = &a->stash;
	theirs = &b->stash;
	e = iolat_stash_claim(theirs);
	e->q_ns = 11;
	e->g_ns = 12;
	e->who.pid = 13;
	e->flags = IOLAT_F_SUBMITTER;
	iolat_stash_publish(e, &stash_bios[0]);
	stash_put(theirs, 1, 21);
	stash_put(mine, 2, 31);

	KUNIT_EXPECT_TRUE(test, iolat_cpus_take_remote(s, &stash_bios[0],
						       &copy));
	KUNIT_EXPECT_EQ(test, copy.q_ns, 11ULL);
	KUNIT_EXPECT_EQ(test, copy.g_ns, 12ULL);
	KUNIT_EXPECT_EQ(test, copy.who.pid, 13U);
	KUNIT_EXPECT_EQ(test, copy.flags, (u32)IOLAT_F_SUBMITTER);
	/* taken: not found twice, and not in the owner's own search */
	KUNIT_EXPECT_FALSE(test, iolat_cpus_take_remote(s, &stash_bios[0],
							&copy));
	KUNIT_EXPECT_NULL(test, iolat_stash_find(theirs, &stash_bios[0]));
	/* the owner's other entry is untouched */
	KUNIT_EXPECT_NOT_NULL(test, iolat_stash_find(theirs, &stash_bios[1]));
	/* this CPU's stash is not searched again */
	KUNIT_EXPECT_FALSE(test, iolat_cpus_take_remote(s, &stash_bios[2],
							&copy));
	/* an entry claimed again (key cleared) is not found */
	e = iolat_stash_find(theirs, &stash_bios[1]);
	if (e)	/* found above; no assertion with preemption off */
		WRITE_ONCE(e->bio, NULL);
	KUNIT_EXPECT_FALSE(test, iolat_cpus_take_remote(s, &stash_bios[1],
							&copy));
	put_cpu();
}

/*
 * block_split on a CPU whose stash has no entry for the bio being split
 * (its submitter moved between Q and X): the rest, still the original
 * bio, and the front cut off it both get the original's Q and submitter
 * and the split mark; the entry is moved from the other CPU's stash.
 */
static void iolat_split_moved_test(struct kunit *test)
{
	struct iolat_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct iolat_stash_entry *e, *rest, *front;
	struct bio *parent = &stash_bios[0], *split = &stash_bios[1];
	struct iolat_session *s;
	struct iolat_cpu *a, *b;

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->kind = IOLAT_DEV_DISK;
	s = stash_two_cpus(test, &a, &b);
	s->stop_ns = U64_MAX;		/* armed since 0 */
	s->want_who = true;
	split->bi_private = parent;
	/* Q on the other CPU */
	e = iolat_stash_claim(&b->stash);
	e->q_ns = 41;
	e->who.pid = 43;
	e->flags = IOLAT_F_SUBMITTER;
	iolat_stash_publish(e, parent);

	iolat_split(s, d, split);
	rest = iolat_stash_find(&a->stash, parent);
	front = iolat_stash_find(&a->stash, split);
	put_cpu();
	split->bi_private = NULL;

	KUNIT_EXPECT_NULL(test, iolat_stash_find(&b->stash, parent));
	KUNIT_ASSERT_NOT_NULL(test, rest);
	KUNIT_ASSERT_NOT_NULL(test, front);
	KUNIT_EXPECT_EQ(test, rest->q_ns, 41ULL);
	KUNIT_EXPECT_EQ(test, rest->who.pid, 43U);
	KUNIT_EXPECT_EQ(test, rest->flags,
			(u32)(IOLAT_F_SUBMITTER | IOLAT_F_SPLIT));
	KUNIT_EXPECT_EQ(test, front->q_ns, 41ULL);
	KUNIT_EXPECT_EQ(test, front->who.pid, 43U);
	KUNIT_EXPECT_EQ(test, front->flags,
			(u32)(IOLAT_F_SUBMITTER | IOLAT_F_SPLIT));
	KUNIT_EXPECT_EQ(test, local64_read(&a->stats[IOLAT_S_SPLITS]), 1);
}

static struct kunit_case iolat_stash_cases[] = {
	KUNIT_CASE(iolat_stash_test),
	KUNIT_CASE(iolat_stash_release_test),
	KUNIT_CASE(iolat_stash_remote_test),
	KUNIT_CASE(iolat_split_moved_test),
	KUNIT_CASE(iolat_stamp_test),
	{}
};

struct kunit_suite iolat_stash_suite = {
	.name = "iolat_stash",
	.test_cases = iolat_stash_cases,
};
