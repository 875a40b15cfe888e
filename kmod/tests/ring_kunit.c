// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "iolat_ring": the per-CPU ring of kmod/ring.c, as built
 * into iolat.ko (reached through EXPORT_SYMBOL_IF_KUNIT): order, overflow
 * and wrap, a writer interrupted by another, the block size of a drain
 * and of a slot, a flight recorder's overwriting (watch.h), and the page
 * a reader maps (ring_map.c).
 */
#include <kunit/test.h>
#include "../iolat.h"
#include "../../lib/record.h"
#include "suites.h"

/* A ring of records sent as far as @size (ring.h). */
static struct iolat_ring *ring_new(struct kunit *test, unsigned int slots,
				   unsigned int size)
{
	struct iolat_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, iolat_ring_init(r, slots, iolat_ring_stride(size),
					      NUMA_NO_NODE), 0);
	return r;
}

#define WHOLE	sizeof(struct iolat_record)

static void ring_put(struct kunit *test, struct iolat_ring *r, u64 id)
{
	struct iolat_ring_slot *slot;
	unsigned long pos;

	slot = iolat_ring_reserve(r, &pos);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	slot->rec.sector = id;
	iolat_ring_publish(slot, pos);
}

/* Fill, overflow, drain in order, and wrap around. */
static void iolat_ring_order_test(struct kunit *test)
{
	struct iolat_record *out;
	struct iolat_ring *r = ring_new(test, 64, WHOLE), bad;
	unsigned long pos;
	unsigned int i, round;
	u64 id = 0, want = 0;

	KUNIT_EXPECT_EQ(test, iolat_ring_init(&bad, 48, iolat_ring_stride(WHOLE),
					      NUMA_NO_NODE), -EINVAL);
	out = kunit_kcalloc(test, 64, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (round = 0; round < 5; round++) {
		for (i = 0; i < 64; i++)
			ring_put(test, r, id++);
		KUNIT_EXPECT_NULL(test, iolat_ring_reserve(r, &pos));
		KUNIT_EXPECT_EQ(test, iolat_ring_pending(r), 64UL);
		KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 40, sizeof(*out)), 40U);
		KUNIT_EXPECT_EQ(test, iolat_ring_pending(r), 24UL);
		KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out + 40, 64, sizeof(*out)), 24U);
		for (i = 0; i < 64; i++)
			KUNIT_EXPECT_EQ(test, out[i].sector, want++);
		KUNIT_EXPECT_EQ(test, iolat_ring_pending(r), 0UL);
	}
	iolat_ring_free(r);
}

/*
 * A slot reserved but not yet published (a writer interrupted by a
 * nested one) holds back the reader, and nothing after it is lost.
 */
static void iolat_ring_nested_test(struct kunit *test)
{
	struct iolat_ring *r = ring_new(test, 64, WHOLE);
	struct iolat_ring_slot *outer, *inner;
	struct iolat_record *out;
	unsigned long opos, ipos;

	out = kunit_kcalloc(test, 4, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);

	outer = iolat_ring_reserve(r, &opos);
	inner = iolat_ring_reserve(r, &ipos);
	KUNIT_ASSERT_TRUE(test, outer && inner);
	KUNIT_EXPECT_EQ(test, ipos, opos + 1);
	inner->rec.sector = 2;
	iolat_ring_publish(inner, ipos);
	/* both reserved, neither readable */
	KUNIT_EXPECT_EQ(test, iolat_ring_pending(r), 2UL);
	KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 4, sizeof(*out)), 0U);
	outer->rec.sector = 1;
	iolat_ring_publish(outer, opos);
	KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 4, sizeof(*out)), 2U);
	KUNIT_EXPECT_EQ(test, out[0].sector, 1ULL);
	KUNIT_EXPECT_EQ(test, out[1].sector, 2ULL);
	iolat_ring_free(r);
}

/*
 * A session without NVMe or a stack keeps the block part of each record,
 * in slots of two cache lines, and reads that: the CLI decodes it with
 * the NVMe part zero, the block part whole.  Writing a slot's block part
 * touches no byte of the next slot; one with its cgroup also takes two,
 * one up to its link (NVMe) three, a whole one (a stack's link) four.
 */
static void iolat_ring_block_size_test(struct kunit *test)
{
	struct iolat_ring *r = ring_new(test, 64, IOLAT_RECORD_BLOCK_SIZE), bad;
	struct iolat_record *want, out;
	struct iolat_ring_slot *slot, *next;
	unsigned long pos;
	u8 *buf;

	KUNIT_EXPECT_EQ(test, iolat_ring_stride(IOLAT_RECORD_BLOCK_SIZE),
			2U * SMP_CACHE_BYTES);
	KUNIT_EXPECT_EQ(test, iolat_ring_stride(IOLAT_RECORD_CGROUP_SIZE),
			2U * SMP_CACHE_BYTES);
	KUNIT_EXPECT_EQ(test, iolat_ring_stride(IOLAT_RECORD_NVME_SIZE),
			3U * SMP_CACHE_BYTES);
	KUNIT_EXPECT_EQ(test, iolat_ring_stride(WHOLE), 4U * SMP_CACHE_BYTES);
	KUNIT_EXPECT_EQ(test, iolat_ring_stride(WHOLE),
			sizeof(struct iolat_ring_slot));
	KUNIT_EXPECT_EQ(test, iolat_ring_init(&bad, 64, SMP_CACHE_BYTES,
					      NUMA_NO_NODE), -EINVAL);
	KUNIT_EXPECT_EQ(test, iolat_ring_init(&bad, 64, 200, NUMA_NO_NODE),
			-EINVAL);
	buf = kunit_kzalloc(test, 2 * IOLAT_RECORD_BLOCK_SIZE, GFP_KERNEL);
	want = kunit_kzalloc(test, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, buf && want);
	slot = iolat_ring_reserve(r, &pos);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	next = iolat_ring_slot(r, pos + 1);
	KUNIT_EXPECT_EQ(test, (u8 *)next - (u8 *)slot,
			(long)iolat_ring_stride(IOLAT_RECORD_BLOCK_SIZE));
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)next, SMP_CACHE_BYTES));
	memset(&slot->rec, 0x5a, IOLAT_RECORD_BLOCK_SIZE);
	KUNIT_EXPECT_EQ(test, next->seq, 0UL);
	slot->rec.sector = 42;
	slot->rec.error = -5;
	memcpy(want, &slot->rec, IOLAT_RECORD_BLOCK_SIZE);
	iolat_ring_publish(slot, pos);
	KUNIT_EXPECT_EQ(test, iolat_ring_read(r, buf, 2, IOLAT_RECORD_BLOCK_SIZE),
			1U);
	KUNIT_EXPECT_EQ(test, iolat_record_decode(buf, IOLAT_RECORD_BLOCK_SIZE,
						  IOLAT_RECORD_BLOCK_SIZE, 0,
						  &out), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&out, want, sizeof(out)), 0);
	KUNIT_EXPECT_EQ(test, out.sector, 42ULL);
	KUNIT_EXPECT_EQ(test, out.nvme_done_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, out.status, 0);
	iolat_ring_free(r);
}

/* A flight recorder's record completed at @c_ns; false if not written. */
static bool ring_over(struct iolat_ring *r, u64 c_ns, u64 floor)
{
	struct iolat_ring_slot *slot;
	unsigned long pos;

	slot = iolat_ring_reserve_over(r, &pos, floor);
	if (!slot)
		return false;
	slot->rec.c_ns = c_ns;
	iolat_ring_publish(slot, pos);
	return true;
}

/*
 * Armed, the oldest record goes and the latest completion overwritten
 * is kept; triggered, a record completed at or after the floor is not
 * overwritten (the new one is not written); frozen as watch.c does it,
 * READ gets the ring's records from its oldest, in order.
 */
static void iolat_ring_overwrite_test(struct kunit *test)
{
	struct iolat_ring *r = ring_new(test, 8, IOLAT_RECORD_BLOCK_SIZE);
	struct iolat_record *out;
	unsigned long head;
	unsigned int i;

	out = kunit_kcalloc(test, 16, IOLAT_RECORD_BLOCK_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_TRUE(test, ring_over(r, 100 + i, U64_MAX));
	/* 0 to 11 overwritten: 111 the latest */
	KUNIT_EXPECT_EQ(test, r->lost_ns, 111ULL);
	/* the floor at 115: 112 to 114 may go, 115 stays */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, ring_over(r, 120 + i, 115));
	KUNIT_EXPECT_FALSE(test, ring_over(r, 123, 115));
	KUNIT_EXPECT_FALSE(test, ring_over(r, 124, 115));
	KUNIT_EXPECT_EQ(test, r->lost_ns, 114ULL);
	head = local_read(&r->head);
	KUNIT_EXPECT_EQ(test, head, 23UL);
	iolat_ring_set_tail(r, head - r->mask - 1);
	KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 16, IOLAT_RECORD_BLOCK_SIZE),
			8U);
	for (i = 0; i < 8; i++) {
		struct iolat_record *o = (void *)out + i * IOLAT_RECORD_BLOCK_SIZE;

		KUNIT_EXPECT_EQ(test, o->c_ns, i < 5 ? 115ULL + i : 120ULL + i - 5);
	}
	iolat_ring_free(r);
}

/*
 * The page a reader maps (linux/iolat.h, struct iolat_ring_map): the
 * geometry it reads, the slots a page on, the tail it writes being the
 * one the writers check, and a slot's record 8 bytes after its sequence.
 */
static void iolat_ring_map_test(struct kunit *test)
{
	struct iolat_ring *r = ring_new(test, 64, IOLAT_RECORD_BLOCK_SIZE);
	struct iolat_ring_slot *slot;
	unsigned long pos;
	unsigned int i;

	iolat_ring_describe(r, IOLAT_RECORD_BLOCK_SIZE, 3);
	KUNIT_EXPECT_EQ(test, r->map->version, (u32)IOLAT_RING_MAP_VERSION);
	KUNIT_EXPECT_EQ(test, r->map->slots, 64U);
	KUNIT_EXPECT_EQ(test, r->map->stride, 2U * SMP_CACHE_BYTES);
	KUNIT_EXPECT_EQ(test, r->map->record_size, (u32)IOLAT_RECORD_BLOCK_SIZE);
	KUNIT_EXPECT_EQ(test, r->map->cpu, 3U);
	KUNIT_EXPECT_EQ(test, r->map->data_offset, (u32)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, r->map->bytes,
			(u64)(PAGE_SIZE + PAGE_ALIGN(64 * 2 * SMP_CACHE_BYTES)));
	KUNIT_EXPECT_EQ(test, r->map->bytes,
			(u64)iolat_ring_bytes(64, r->stride));
	KUNIT_EXPECT_PTR_EQ(test, r->slots, (void *)r->map + r->map->data_offset);
	KUNIT_EXPECT_EQ(test, offsetof(struct iolat_ring_slot, rec), 8UL);
	for (i = 0; i < 64; i++)
		ring_put(test, r, i);
	slot = iolat_ring_reserve(r, &pos);
	KUNIT_EXPECT_NULL(test, slot);
	/* a reader's tail, stored where it maps it, frees the slots */
	WRITE_ONCE(r->map->tail, 10);
	KUNIT_EXPECT_EQ(test, iolat_ring_pending(r), 54UL);
	slot = iolat_ring_reserve(r, &pos);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_EXPECT_EQ(test, pos, 64UL);
	KUNIT_EXPECT_PTR_EQ(test, (void *)slot, r->slots);
	iolat_ring_free(r);
}

static struct kunit_case iolat_ring_cases[] = {
	KUNIT_CASE(iolat_ring_overwrite_test),
	KUNIT_CASE(iolat_ring_order_test),
	KUNIT_CASE(iolat_ring_map_test),
	KUNIT_CASE(iolat_ring_nested_test),
	KUNIT_CASE(iolat_ring_block_size_test),
	{}
};

struct kunit_suite iolat_ring_suite = {
	.name = "iolat_ring",
	.test_cases = iolat_ring_cases,
};
