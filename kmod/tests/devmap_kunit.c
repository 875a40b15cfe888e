// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a session's devices by number (kmod/devmap.h) and the session's
 * lookups through it (iolat_session_dev() and its kin, kmod/iolat.h);
 * the sessions' disks for the shared probes (kmod/dispatch.h).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include "../iolat.h"
#include "../alloc.h"
#include "../dispatch.h"
#include "suites.h"

/*
 * Numbers anywhere in a major's minors, several majors, the last major a
 * block device can have: each found, its neighbours not; a number given
 * twice or a major beyond refused; the memory counted and given back.
 */
static void iolat_devmap_numbers_test(struct kunit *test)
{
	static const dev_t devts[] = {
		MKDEV(8, 0), MKDEV(8, 63), MKDEV(8, 64), MKDEV(8, 16 * 255),
		MKDEV(259, 0), MKDEV(259, (1U << 20) - 1), MKDEV(511, 7),
		MKDEV(0, 1),
	};
	struct iolat_devmap *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct iolat_dev *d;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	d = kunit_kcalloc(test, ARRAY_SIZE(devts), sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_EXPECT_NULL(test, iolat_devmap_find(m, MKDEV(8, 0)));
	for (i = 0; i < ARRAY_SIZE(devts); i++)
		KUNIT_ASSERT_EQ(test, 0, iolat_devmap_add(m, devts[i], &d[i], NULL));
	for (i = 0; i < ARRAY_SIZE(devts); i++) {
		KUNIT_EXPECT_PTR_EQ(test, iolat_devmap_find(m, devts[i]), &d[i]);
		KUNIT_EXPECT_PTR_NE(test, iolat_devmap_find(m, devts[i] + 1),
				    &d[i]);
	}
	KUNIT_EXPECT_NULL(test, iolat_devmap_find(m, MKDEV(8, 1)));
	KUNIT_EXPECT_NULL(test, iolat_devmap_find(m, MKDEV(8, 16 * 256)));
	KUNIT_EXPECT_NULL(test, iolat_devmap_find(m, MKDEV(9, 0)));
	KUNIT_EXPECT_NULL(test, iolat_devmap_find(m, MKDEV(512, 0)));
	KUNIT_EXPECT_NULL(test, iolat_devmap_find(m, MKDEV(4095, 0)));
	KUNIT_EXPECT_EQ(test, -EEXIST, iolat_devmap_add(m, MKDEV(8, 63), d, NULL));
	KUNIT_EXPECT_EQ(test, -ERANGE, iolat_devmap_add(m, MKDEV(512, 0), d, NULL));
	/*
	 * chunks: 8's 0, 1, 63; 259's 0 and last; 511's 0; 0's 0; as the
	 * allocator takes them
	 */
	KUNIT_EXPECT_EQ(test, m->bytes,
			7 * iolat_alloc_bytes(sizeof(struct iolat_map_chunk)) +
			iolat_alloc_bytes(struct_size((struct iolat_map_major *)NULL,
						      chunk, 64)) +
			iolat_alloc_bytes(struct_size((struct iolat_map_major *)NULL,
						      chunk, 1U << 14)) +
			2 * iolat_alloc_bytes(struct_size((struct iolat_map_major *)NULL,
							  chunk, 1)));
	iolat_devmap_free(m);
	KUNIT_EXPECT_EQ(test, m->bytes, (size_t)0);
	for (i = 0; i < ARRAY_SIZE(devts); i++)
		KUNIT_EXPECT_NULL(test, iolat_devmap_find(m, devts[i]));
}

/*
 * A session of a whole disk, two partitions of another (given out of
 * order), and a bio-based device above one of them: each I/O goes to
 * its device by number and sector, and the other lookups say what each
 * number is.
 */
static void iolat_devmap_session_test(struct kunit *test)
{
	struct iolat_session *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	const dev_t disk = MKDEV(8, 0), parted = MKDEV(8, 16),
		    upper = MKDEV(253, 0);
	struct iolat_dev *d;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	d = kunit_kcalloc(test, 4, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d[0] = (struct iolat_dev){ .devt = disk, .last = U64_MAX,
				   .kind = IOLAT_DEV_DISK };
	d[1] = (struct iolat_dev){ .devt = parted, .first = 4096,
				   .last = 4095, .kind = IOLAT_DEV_PART,
				   .lower = true };
	d[2] = (struct iolat_dev){ .devt = parted, .first = 2048,
				   .last = 2047, .kind = IOLAT_DEV_PART };
	d[3] = (struct iolat_dev){ .devt = upper, .last = U64_MAX,
				   .kind = IOLAT_DEV_UPPER };
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, 0, iolat_session_map(s, &d[i], NULL));
	KUNIT_EXPECT_PTR_EQ(test, iolat_session_dev(s, disk, 0), &d[0]);
	KUNIT_EXPECT_PTR_EQ(test, iolat_session_dev(s, disk, U64_MAX - 1),
			    &d[0]);
	KUNIT_EXPECT_NULL(test, iolat_session_dev(s, parted, 2047));
	KUNIT_EXPECT_PTR_EQ(test, iolat_session_dev(s, parted, 2048), &d[2]);
	KUNIT_EXPECT_PTR_EQ(test, iolat_session_dev(s, parted, 4095), &d[2]);
	KUNIT_EXPECT_PTR_EQ(test, iolat_session_dev(s, parted, 4096), &d[1]);
	KUNIT_EXPECT_PTR_EQ(test, iolat_session_dev(s, parted, 8191), &d[1]);
	KUNIT_EXPECT_NULL(test, iolat_session_dev(s, parted, 8192));
	KUNIT_EXPECT_NULL(test, iolat_session_dev(s, upper, 0));
	KUNIT_EXPECT_NULL(test, iolat_session_dev(s, MKDEV(8, 32), 0));
	KUNIT_EXPECT_PTR_EQ(test, iolat_session_upper(s, upper), &d[3]);
	KUNIT_EXPECT_NULL(test, iolat_session_upper(s, disk));
	KUNIT_EXPECT_TRUE(test, iolat_dev_disk(iolat_devmap_find(&s->map, disk)));
	KUNIT_EXPECT_TRUE(test, iolat_dev_disk(iolat_devmap_find(&s->map, parted)));
	KUNIT_EXPECT_FALSE(test, iolat_dev_disk(iolat_devmap_find(&s->map, upper)));
	KUNIT_EXPECT_TRUE(test, iolat_session_lower_disk(s, parted));
	KUNIT_EXPECT_FALSE(test, iolat_session_lower_disk(s, disk));
	KUNIT_EXPECT_FALSE(test, iolat_session_lower_disk(s, upper));
	/* a number taken by a disk takes no partition, nor a second disk */
	KUNIT_EXPECT_EQ(test, -EEXIST, iolat_session_map(s, &d[0], NULL));
	d[2].kind = IOLAT_DEV_PART;
	d[2].devt = disk;
	KUNIT_EXPECT_EQ(test, -EEXIST, iolat_session_map(s, &d[2], NULL));
	iolat_devmap_free(&s->map);
}

/*
 * Disks added while probes may read the map (a running session): a
 * major's table that grows is handed back to be freed later, not freed,
 * and the new one finds every disk the old one did; a chunk or a table
 * with room retires nothing.
 */
static void iolat_devmap_running_test(struct kunit *test)
{
	struct iolat_devmap *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	const struct iolat_map_major *before;
	struct iolat_dev *d;
	void *retired;

	KUNIT_ASSERT_NOT_NULL(test, m);
	d = kunit_kcalloc(test, 3, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_EQ(test, 0, iolat_devmap_add(m, MKDEV(251, 0), &d[0],
						  &retired));
	KUNIT_EXPECT_NULL(test, retired);	/* a first table replaces none */
	KUNIT_ASSERT_EQ(test, 0, iolat_devmap_add(m, MKDEV(251, 5), &d[1],
						  &retired));
	KUNIT_EXPECT_NULL(test, retired);	/* the same chunk */
	before = m->major[251];
	KUNIT_ASSERT_EQ(test, 0, iolat_devmap_add(m, MKDEV(251, 200), &d[2],
						  &retired));
	KUNIT_EXPECT_PTR_EQ(test, retired, (void *)before);
	KUNIT_EXPECT_PTR_NE(test, (const void *)m->major[251], (void *)before);
	/* the old table is whole until freed: a probe may be reading it */
	KUNIT_EXPECT_PTR_EQ(test, before->chunk[0]->dev[5], &d[1]);
	KUNIT_EXPECT_PTR_EQ(test, iolat_devmap_find(m, MKDEV(251, 0)), &d[0]);
	KUNIT_EXPECT_PTR_EQ(test, iolat_devmap_find(m, MKDEV(251, 5)), &d[1]);
	KUNIT_EXPECT_PTR_EQ(test, iolat_devmap_find(m, MKDEV(251, 200)), &d[2]);
	kvfree(retired);
	iolat_devmap_free(m);
}

/* The sessions' devices of disk @devt that use @use, in the chain's order. */
static unsigned int iolat_dispatch_walk(dev_t devt, unsigned int use,
					struct iolat_dev **seen,
					unsigned int max)
{
	struct iolat_dev *d;
	unsigned int n = 0;

	iolat_for_each_sub_using(d, devt, use)
		if (n < max)
			seen[n++] = d;
	return n;
}

/*
 * The map of the sessions' disks (dispatch.h): three sessions' devices
 * of one disk in the order they came, a probe's use picking those that
 * use it, another disk apart; each leaves its chain, first, middle or
 * last, and the others stay; the map is given back with the last.
 */
static void iolat_dispatch_chain_test(struct kunit *test)
{
	struct iolat_dev *d, *seen[4];
	unsigned int i;

	d = kunit_kcalloc(test, 4, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	for (i = 0; i < 4; i++) {
		d[i].devt = MKDEV(252, i == 3 ? 64 : 0);
		d[i].uses = BIT(IOLAT_USE_ALL) |
			    (i != 1 ? BIT(IOLAT_USE_STAGES) : 0);
		KUNIT_ASSERT_EQ(test, 0, iolat_dispatch_add(&d[i]));
	}
	iolat_dispatch_free_retired();
	KUNIT_ASSERT_EQ(test, 3U, iolat_dispatch_walk(MKDEV(252, 0),
						      IOLAT_USE_ALL, seen, 4));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_PTR_EQ(test, seen[i], &d[i]);
	/* the counters session (1) takes no bio stage */
	KUNIT_ASSERT_EQ(test, 2U, iolat_dispatch_walk(MKDEV(252, 0),
						      IOLAT_USE_STAGES, seen, 4));
	KUNIT_EXPECT_PTR_EQ(test, seen[0], &d[0]);
	KUNIT_EXPECT_PTR_EQ(test, seen[1], &d[2]);
	KUNIT_EXPECT_EQ(test, 0U, iolat_dispatch_walk(MKDEV(252, 0),
						      IOLAT_USE_STACK, seen, 4));
	KUNIT_ASSERT_EQ(test, 1U, iolat_dispatch_walk(MKDEV(252, 64),
						      IOLAT_USE_ALL, seen, 4));
	KUNIT_EXPECT_PTR_EQ(test, seen[0], &d[3]);
	KUNIT_EXPECT_EQ(test, 0U, iolat_dispatch_walk(MKDEV(252, 1),
						      IOLAT_USE_ALL, seen, 4));
	iolat_dispatch_del(&d[1]);	/* the middle */
	KUNIT_ASSERT_EQ(test, 2U, iolat_dispatch_walk(MKDEV(252, 0),
						      IOLAT_USE_ALL, seen, 4));
	KUNIT_EXPECT_PTR_EQ(test, seen[0], &d[0]);
	KUNIT_EXPECT_PTR_EQ(test, seen[1], &d[2]);
	iolat_dispatch_del(&d[0]);	/* the first */
	KUNIT_ASSERT_EQ(test, 1U, iolat_dispatch_walk(MKDEV(252, 0),
						      IOLAT_USE_ALL, seen, 4));
	KUNIT_EXPECT_PTR_EQ(test, seen[0], &d[2]);
	/* one that comes goes after those there */
	KUNIT_ASSERT_EQ(test, 0, iolat_dispatch_add(&d[1]));
	KUNIT_ASSERT_EQ(test, 2U, iolat_dispatch_walk(MKDEV(252, 0),
						      IOLAT_USE_ALL, seen, 4));
	KUNIT_EXPECT_PTR_EQ(test, seen[1], &d[1]);
	iolat_dispatch_del(&d[1]);	/* the last */
	iolat_dispatch_del(&d[2]);
	iolat_dispatch_del(&d[3]);
	KUNIT_EXPECT_EQ(test, 0U, iolat_dispatch_walk(MKDEV(252, 0),
						      IOLAT_USE_ALL, seen, 4));
	KUNIT_EXPECT_NE(test, iolat_subs.bytes, (size_t)0);
	iolat_dispatch_exit();
	KUNIT_EXPECT_EQ(test, iolat_subs.bytes, (size_t)0);
}

static struct kunit_case iolat_devmap_cases[] = {
	KUNIT_CASE(iolat_devmap_numbers_test),
	KUNIT_CASE(iolat_devmap_running_test),
	KUNIT_CASE(iolat_devmap_session_test),
	KUNIT_CASE(iolat_dispatch_chain_test),
	{}
};

struct kunit_suite iolat_devmap_suite = {
	.name = "iolat_devmap",
	.test_cases = iolat_devmap_cases,
};
