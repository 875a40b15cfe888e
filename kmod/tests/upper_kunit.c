// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "iolat_upper": a bio-based device's table of I/Os and the
 * link table of the requests below them (kmod/upper.h), and how those
 * requests fold into their I/O.
 */
#include <kunit/test.h>
#include "../upper.h"
#include "suites.h"

/*
 * A bio-based device's table (upper.h): a bio's slot is found again by
 * its address until released; bios whose hashes collide take the next
 * slots, up to IOLAT_UPPER_PROBES from the hash, after which a claim
 * fails (and the bio's completion is one not seen whole); a released
 * slot is free again, and a freed slot in the middle of a run does not
 * hide the slots after it.
 */
static void iolat_upper_table_test(struct kunit *test)
{
	struct iolat_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	const struct bio *b[IOLAT_UPPER_PROBES + 1];
	struct iolat_upper_slot *u[IOLAT_UPPER_PROBES + 1];
	unsigned long p;
	unsigned int n = 0, i;
	u32 h0;

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->depth = 4 * IOLAT_UPPER_PROBES;
	d->upper = kunit_kcalloc(test, d->depth, sizeof(*d->upper), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d->upper);
	/* addresses that all hash to the first one's slot */
	b[n++] = (const struct bio *)0x1000UL;
	h0 = iolat_upper_hash(d, b[0]);
	for (p = 0x1040UL; n < ARRAY_SIZE(b) && p < 0x10000000UL; p += 0x40)
		if (iolat_upper_hash(d, (const struct bio *)p) == h0)
			b[n++] = (const struct bio *)p;
	KUNIT_ASSERT_EQ(test, n, (unsigned int)ARRAY_SIZE(b));
	for (i = 0; i < IOLAT_UPPER_PROBES; i++) {
		u[i] = iolat_upper_claim(d, b[i]);
		KUNIT_ASSERT_NOT_NULL(test, u[i]);
		KUNIT_EXPECT_PTR_EQ(test, u[i],
				    &d->upper[(h0 + i) % d->depth]);
	}
	KUNIT_EXPECT_NULL(test, iolat_upper_claim(d, b[IOLAT_UPPER_PROBES]));
	for (i = 0; i < IOLAT_UPPER_PROBES; i++)
		KUNIT_EXPECT_PTR_EQ(test, iolat_upper_find(d, b[i]), u[i]);
	KUNIT_EXPECT_NULL(test, iolat_upper_find(d, b[IOLAT_UPPER_PROBES]));
	/* a hole in the run: the later ones are still found */
	iolat_upper_release(u[3]);
	KUNIT_EXPECT_NULL(test, iolat_upper_find(d, b[3]));
	KUNIT_EXPECT_PTR_EQ(test, iolat_upper_find(d, b[9]), u[9]);
	KUNIT_EXPECT_PTR_EQ(test,
			    iolat_upper_claim(d, b[IOLAT_UPPER_PROBES]), u[3]);
	KUNIT_EXPECT_PTR_EQ(test,
			    iolat_upper_find(d, b[IOLAT_UPPER_PROBES]), u[3]);
}

/*
 * A stack's links (upper.h): a remapped bio's link is found by its
 * address and takes its I/O's submitter into the stash entry of its
 * queueing, marked IOLAT_F_STACK, without freeing it (the request's
 * record reads it at completion); a claim for a bio that still has a
 * link (a bio freed and allocated again before its link was) takes that
 * link over instead of leaving it to shadow the new one.  An I/O is
 * found by its first sector through the index, and a sector is held by
 * the I/O whose range it lies in, not by a piece split off it.
 */
static void iolat_link_table_test(struct kunit *test)
{
	struct iolat_session *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	const struct bio *a = (const struct bio *)0x2000UL;
	struct iolat_submitter who = { .pid = 7 };
	struct iolat_upper_slot *u;
	struct iolat_link *l, *m;
	struct iolat_dev *d;
	u32 flags = IOLAT_F_SUBMITTER;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->nr_links = 64;
	s->links = kunit_kcalloc(test, s->nr_links, sizeof(*s->links),
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->links);
	l = iolat_link_claim(s, a);
	KUNIT_ASSERT_NOT_NULL(test, l);
	l->who.pid = 42;
	l->flags = IOLAT_F_SUBMITTER;
	l->link = 0x10001;
	KUNIT_EXPECT_PTR_EQ(test, iolat_link_find(s, a), l);
	iolat_link_take(s, a, &who, &flags);
	KUNIT_EXPECT_EQ(test, who.pid, 42U);
	KUNIT_EXPECT_EQ(test, flags, IOLAT_F_SUBMITTER | IOLAT_F_STACK);
	KUNIT_EXPECT_PTR_EQ(test, iolat_link_find(s, a), l);
	/* the same bio again, its link not freed: the same link */
	m = iolat_link_claim(s, a);
	KUNIT_EXPECT_PTR_EQ(test, m, l);
	KUNIT_EXPECT_NULL(test, iolat_link_find(s, (const struct bio *)0x2040UL));

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d->depth = 16;
	d->upper = kunit_kcalloc(test, d->depth, sizeof(*d->upper), GFP_KERNEL);
	d->by_sector = kunit_kcalloc(test, d->depth, sizeof(*d->by_sector),
				     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d->upper);
	KUNIT_ASSERT_NOT_NULL(test, d->by_sector);
	u = iolat_upper_claim(d, a);
	KUNIT_ASSERT_NOT_NULL(test, u);
	u->sector = 1024;
	u->bytes = 64 << 10;
	d->by_sector[hash_64(u->sector, ilog2(d->depth))] = u - d->upper + 1;
	KUNIT_EXPECT_PTR_EQ(test, iolat_upper_at(d, 1024), u);
	KUNIT_EXPECT_NULL(test, iolat_upper_at(d, 1032));
	KUNIT_EXPECT_TRUE(test, iolat_upper_holds(u, 1024 + 127));
	KUNIT_EXPECT_FALSE(test, iolat_upper_holds(u, 1024 + 128));
	KUNIT_EXPECT_FALSE(test, iolat_upper_holds(u, 1023));
	u->piece = 1;
	KUNIT_EXPECT_NULL(test, iolat_upper_at(d, 1024));
	KUNIT_EXPECT_FALSE(test, iolat_upper_holds(u, 1024));
	iolat_upper_release(u);
	KUNIT_EXPECT_NULL(test, iolat_upper_at(d, 1024));
}

/*
 * An I/O's requests below fold into its slot (upper.h): the earliest
 * first stage and the latest completion, whatever order they come in;
 * a request whose link names another I/O (the slot taken again since)
 * or a free slot leaves it alone.
 */
static void iolat_upper_fold_test(struct kunit *test)
{
	struct iolat_upper_slot *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, u);
	u->bio = (const struct bio *)0x3000UL;
	u->link = 0x20001;
	iolat_upper_fold(u, 0x20001, 5000, 9000);
	KUNIT_EXPECT_EQ(test, u->low_first, 5000ULL);
	KUNIT_EXPECT_EQ(test, u->low_last, 9000ULL);
	/* a mirror's request, inside: nothing moves */
	iolat_upper_fold(u, 0x20001, 6000, 8000);
	KUNIT_EXPECT_EQ(test, u->low_first, 5000ULL);
	KUNIT_EXPECT_EQ(test, u->low_last, 9000ULL);
	/* one that began earlier and one that ended later */
	iolat_upper_fold(u, 0x20001, 4000, 8500);
	iolat_upper_fold(u, 0x20001, 7000, 12000);
	KUNIT_EXPECT_EQ(test, u->low_first, 4000ULL);
	KUNIT_EXPECT_EQ(test, u->low_last, 12000ULL);
	/* another I/O's request, and a free slot: left alone */
	iolat_upper_fold(u, 0x30001, 100, 20000);
	u->bio = NULL;
	iolat_upper_fold(u, 0x20001, 100, 20000);
	KUNIT_EXPECT_EQ(test, u->low_first, 4000ULL);
	KUNIT_EXPECT_EQ(test, u->low_last, 12000ULL);
}

static struct kunit_case iolat_upper_cases[] = {
	KUNIT_CASE(iolat_upper_table_test),
	KUNIT_CASE(iolat_link_table_test),
	KUNIT_CASE(iolat_upper_fold_test),
	{}
};

struct kunit_suite iolat_upper_suite = {
	.name = "iolat_upper",
	.test_cases = iolat_upper_cases,
};
