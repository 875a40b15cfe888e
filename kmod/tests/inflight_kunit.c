// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the in-flight tables (kmod/inflight.c): each slot's index and
 * extension in its queue's table; every queue's table where the disk's
 * map of CPUs to queues cannot be read; with a map, a CPU's queues'
 * tables once each; what they take, counted as allocated.  And an NVMe
 * controller's command tables (kmod/nvme_ctrl.c), made the same way.
 */
#include <kunit/test.h>
#include <linux/kdev_t.h>
#include "../inflight.h"
#include "../probe_nvme.h"
#include "../alloc.h"
#include "suites.h"

/* A disk number no disk has: its map cannot be read. */
static const struct iolat_dev_spec iolat_spec_nodisk = {
	.major = 511, .minor = 0, .disk_major = 511, .disk_minor = 0,
	.nr_hwq = 4, .depth = 8,
};

/*
 * @d's table of queue @q: its slots' indexes, each slot in one cache
 * line, their extensions after them.
 */
static void iolat_table_check(struct kunit *test, struct iolat_dev *d, u32 q,
			      bool ext)
{
	struct iolat_slot *t = d->tables[q];
	size_t size = 1 << d->slot_shift;
	struct iolat_slot *slot;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)t, size));
	KUNIT_EXPECT_TRUE(test, (void *)t + (d->depth + 1) * size <=
				d->tables_mem[q] + d->table_size);
	for (i = 0; i <= d->depth; i++) {
		slot = iolat_table_slot(d, t, i);
		KUNIT_EXPECT_PTR_EQ(test, (void *)slot, (void *)t + i * size);
		KUNIT_EXPECT_EQ(test, (unsigned long)slot / SMP_CACHE_BYTES,
				((unsigned long)slot + size - 1) /
				SMP_CACHE_BYTES);
		KUNIT_EXPECT_EQ(test, (u32)slot->index, i);
		KUNIT_EXPECT_PTR_EQ(test, iolat_slot_ext(d, slot),
				    (struct iolat_slot_ext *)((void *)t +
				    (d->depth + 1) * size) + i);
	}
	if (ext)
		KUNIT_EXPECT_TRUE(test,
				  (void *)(iolat_slot_ext(d,
					iolat_table_slot(d, t, d->depth)) + 1) <=
				  d->tables_mem[q] + d->table_size);
}

/* No map: every queue's table at once, counted; a CPU adds nothing. */
static void iolat_inflight_unmapped_test(struct kunit *test)
{
	struct iolat_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	atomic64_t bytes = ATOMIC64_INIT(0);
	u32 q;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_EQ(test, 0, iolat_inflight_init(d, &iolat_spec_nodisk,
						     IOLAT_MODE_WHO, &bytes));
	KUNIT_EXPECT_NULL(test, d->cpu_hwqs);
	for (q = 0; q < d->nr_hwq; q++)
		iolat_table_check(test, d, q, true);
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&bytes),
			4 * (u64)iolat_alloc_bytes(d->table_size));
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&bytes),
			iolat_inflight_held(d));
	KUNIT_EXPECT_EQ(test, 0, iolat_inflight_cpu(d, 0, &bytes));
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&bytes),
			iolat_inflight_held(d));
	iolat_inflight_free(d);
	KUNIT_EXPECT_NULL(test, d->tables);
}

/*
 * A map: CPU 0's requests go to queues 2 and 1 (and one beyond the
 * disk's, left out); its tables come once, the others' never.
 */
static void iolat_inflight_mapped_test(struct kunit *test)
{
	struct iolat_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	atomic64_t bytes = ATOMIC64_INIT(0);
	u16 *map;
	u64 one;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_EQ(test, 0, iolat_inflight_init(d, &iolat_spec_nodisk,
						     IOLAT_MODE_COUNTERS_ONLY,
						     &bytes));
	one = iolat_alloc_bytes(d->table_size);
	/* a counters session's table: its slots' heads alone (inflight.h) */
	KUNIT_EXPECT_EQ(test, 1U << d->slot_shift, (u32)IOLAT_SLOT_HEAD);
	KUNIT_EXPECT_EQ(test, d->table_size,
			(u32)((d->depth + 2) * IOLAT_SLOT_HEAD));
	iolat_inflight_free(d);
	/* the tables as a map leaves them before any CPU is counted */
	d->nr_hwq = 4;
	d->tables = iolat_zalloc(2 * d->nr_hwq * sizeof(void *), NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, d->tables);
	d->tables_mem = (void **)(d->tables + d->nr_hwq);
	map = iolat_zalloc(nr_cpu_ids * IOLAT_CPU_HWQS * sizeof(*map),
			   NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, map);
	memset(map, 0xff, nr_cpu_ids * IOLAT_CPU_HWQS * sizeof(*map));
	map[0] = 2;
	map[1] = 1;
	map[2] = 9;
	d->cpu_hwqs = map;
	atomic64_set(&bytes, 0);
	KUNIT_EXPECT_EQ(test, 0, iolat_inflight_cpu(d, 0, &bytes));
	KUNIT_EXPECT_EQ(test, 0, iolat_inflight_cpu(d, 0, &bytes));
	KUNIT_EXPECT_NULL(test, d->tables[0]);
	KUNIT_EXPECT_NULL(test, d->tables[3]);
	iolat_table_check(test, d, 1, false);
	iolat_table_check(test, d, 2, false);
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&bytes), 2 * one);
	if (nr_cpu_ids > 1) {
		/* a CPU with no queue of this disk: nothing */
		KUNIT_EXPECT_EQ(test, 0, iolat_inflight_cpu(d, 1, &bytes));
		KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&bytes), 2 * one);
	}
	iolat_inflight_free(d);
}

/*
 * An NVMe controller from a namespace with a map: its own copy of the
 * map, the command tables of the present CPUs' queues (CPU 0's: 2 and
 * 1), another CPU's when it comes, each once, counted; from one without
 * a map, every queue's table.
 */
static void iolat_nvme_ctrl_tables_test(struct kunit *test)
{
	struct iolat_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct iolat_nvme_ctrl *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	size_t size = nr_cpu_ids * IOLAT_CPU_HWQS * sizeof(u16);
	atomic64_t bytes = ATOMIC64_INIT(0);
	u64 map_bytes, one;
	u16 *map;
	u32 q;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_NOT_NULL(test, c);
	d->nr_hwq = 4;
	d->depth = 8;
	one = iolat_alloc_bytes(d->depth * sizeof(struct iolat_nvme_slot));
	map_bytes = iolat_alloc_bytes(iolat_cpu_map_size());
	map = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, map);
	memset(map, 0xff, size);
	map[0] = 2;
	map[1] = 1;
	map[2] = 9;
	d->cpu_hwqs = map;
	KUNIT_ASSERT_EQ(test, 0, iolat_nvme_ctrl_init(c, 3, d, &bytes));
	KUNIT_EXPECT_EQ(test, c->instance, 3U);
	KUNIT_ASSERT_NOT_NULL(test, c->cpu_hwqs);
	KUNIT_EXPECT_PTR_NE(test, c->cpu_hwqs, (u16 *)map);
	KUNIT_EXPECT_EQ(test, 0, memcmp(c->cpu_hwqs, map, size));
	KUNIT_EXPECT_NULL(test, c->io[0]);
	KUNIT_EXPECT_NOT_NULL(test, c->io[1]);
	KUNIT_EXPECT_NOT_NULL(test, c->io[2]);
	KUNIT_EXPECT_NULL(test, c->io[3]);
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&bytes), map_bytes + 2 * one);
	KUNIT_EXPECT_EQ(test, 0, iolat_nvme_ctrl_cpu(c, 0, &bytes));
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&bytes), map_bytes + 2 * one);
	if (nr_cpu_ids > 1) {
		/* a CPU made present since, on queue 3 */
		c->cpu_hwqs[IOLAT_CPU_HWQS] = 3;
		KUNIT_EXPECT_EQ(test, 0, iolat_nvme_ctrl_cpu(c, 1, &bytes));
		KUNIT_EXPECT_NOT_NULL(test, c->io[3]);
		KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&bytes),
				map_bytes + 3 * one);
	}
	iolat_nvme_ctrl_free(c);
	KUNIT_EXPECT_NULL(test, c->io);
	d->cpu_hwqs = NULL;
	atomic64_set(&bytes, 0);
	KUNIT_ASSERT_EQ(test, 0, iolat_nvme_ctrl_init(c, 3, d, &bytes));
	KUNIT_EXPECT_NULL(test, c->cpu_hwqs);
	for (q = 0; q < d->nr_hwq; q++)
		KUNIT_EXPECT_NOT_NULL(test, c->io[q]);
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&bytes), 4 * one);
	iolat_nvme_ctrl_free(c);
}

static struct kunit_case iolat_inflight_cases[] = {
	KUNIT_CASE(iolat_inflight_unmapped_test),
	KUNIT_CASE(iolat_inflight_mapped_test),
	KUNIT_CASE(iolat_nvme_ctrl_tables_test),
	{}
};

struct kunit_suite iolat_inflight_suite = {
	.name = "iolat_inflight",
	.test_cases = iolat_inflight_cases,
};
