// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the cgroup slots of a device (kmod/cgstat.h): which slot a
 * cgroup's request counts in, as slots are taken, retired, released and
 * taken again, and the others' slot holding what the freed ones counted.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include "../iolat.h"
#include "../cgstat.h"
#include "suites.h"

/* A device with @nr slots, counts only, and the online CPUs' parts. */
static struct iolat_dev *cg_dev(struct kunit *test, unsigned int nr)
{
	struct iolat_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_EQ(test, 0, iolat_cgstat_init(d, IOLAT_MODE_COUNTERS_ONLY |
						    IOLAT_MODE_CG_SLOTS(nr)));
	for_each_online_cpu(cpu)
		KUNIT_ASSERT_EQ(test, 0, iolat_cgstat_cpu_init(d, cpu));
	return d;
}

/* One read of cgroup @id, as the completion counts it; its slot. */
static unsigned int cg_count(struct iolat_dev *d, u32 id)
{
	struct iolat_cgstat *t = d->cg;
	unsigned int i = iolat_cgstat_slot(t, id);
	struct iolat_cg_count *c;

	preempt_disable();
	c = &iolat_cg_counts(t->cpu[smp_processor_id()])[i];
	c->ios[IOLAT_OP_READ]++;
	c->bytes[IOLAT_OP_READ] += 4096;
	preempt_enable();
	return i;
}

static u64 cg_reads(struct iolat_dev *d, unsigned int slot)
{
	struct iolat_cg_count c;

	iolat_cgstat_read(d, slot, &c);
	return c.ios[IOLAT_OP_READ];
}

/* Slots go in order to the cgroups seen; the rest, and none, are others. */
static void iolat_cgstat_taken_in_order(struct kunit *test)
{
	struct iolat_dev *d = cg_dev(test, 3);

	KUNIT_EXPECT_EQ(test, 0U, cg_count(d, 100));
	KUNIT_EXPECT_EQ(test, 1U, cg_count(d, 200));
	KUNIT_EXPECT_EQ(test, 0U, cg_count(d, 100));
	KUNIT_EXPECT_EQ(test, 2U, cg_count(d, 300));
	KUNIT_EXPECT_EQ(test, 3U, cg_count(d, 400));	/* full: the others' */
	KUNIT_EXPECT_EQ(test, 3U, cg_count(d, 0));	/* no bio */
	KUNIT_EXPECT_EQ(test, 2ULL, cg_reads(d, 0));
	KUNIT_EXPECT_EQ(test, 2ULL, cg_reads(d, 3));
	iolat_cgstat_free(d);
}

/*
 * A slot freed: its counts are the others', and the next cgroup takes
 * it; a cgroup past the hole still finds its own; one retired and not
 * yet released is counted in no slot of its own.
 */
static void iolat_cgstat_freed_and_taken(struct kunit *test)
{
	struct iolat_dev *d = cg_dev(test, 3);

	cg_count(d, 100);
	cg_count(d, 200);
	cg_count(d, 200);
	cg_count(d, 300);
	KUNIT_EXPECT_EQ(test, 1U, iolat_cgstat_retire(d, 200));
	KUNIT_EXPECT_EQ(test, IOLAT_CG_RETIRED, READ_ONCE(d->cg->ids[1]));
	KUNIT_EXPECT_EQ(test, 3U, cg_count(d, 500));	/* no free slot yet */
	iolat_cgstat_release(d);
	KUNIT_EXPECT_EQ(test, 0U, READ_ONCE(d->cg->ids[1]));
	KUNIT_EXPECT_EQ(test, 0ULL, cg_reads(d, 1));
	KUNIT_EXPECT_EQ(test, 3ULL, cg_reads(d, 3));	/* 200's two, 500's */
	KUNIT_EXPECT_EQ(test, 2U, cg_count(d, 300));	/* past the hole */
	KUNIT_EXPECT_EQ(test, 1U, cg_count(d, 500));	/* takes the hole */
	KUNIT_EXPECT_EQ(test, 3U, cg_count(d, 200));	/* full again */
	/* an id in no slot, and the retired value, are left */
	KUNIT_EXPECT_EQ(test, 0U, iolat_cgstat_retire(d, 999));
	KUNIT_EXPECT_EQ(test, 0U, iolat_cgstat_retire(d, IOLAT_CG_RETIRED));
	iolat_cgstat_release(d);
	KUNIT_EXPECT_EQ(test, 500U, READ_ONCE(d->cg->ids[1]));
	KUNIT_EXPECT_EQ(test, 4ULL, cg_reads(d, 3));
	iolat_cgstat_free(d);
}

static struct kunit_case iolat_cgstat_cases[] = {
	KUNIT_CASE(iolat_cgstat_taken_in_order),
	KUNIT_CASE(iolat_cgstat_freed_and_taken),
	{}
};

struct kunit_suite iolat_cgstat_suite = {
	.name = "iolat_cgstat",
	.test_cases = iolat_cgstat_cases,
};
