// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "iolat": the per-CPU ring and record encoding as built into
 * iolat.ko (reached through EXPORT_SYMBOL_IF_KUNIT), and the pure logic of
 * lib/, compiled in here from the same sources the CLI uses.  Loaded on
 * the debug kernel by `make check` (tests/check.sh).
 */
#include <kunit/test.h>
#include <linux/blk_types.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "iolat.h"
#include "submit.h"
#include "../lib/hist.c"
#include "../lib/record.c"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* iolat_hist_bin(): one row per edge of the bin layout. */
struct hist_bin_case {
	const char *desc;
	u64 value;
	unsigned int bin;
};

static const struct hist_bin_case hist_bin_cases[] = {
	{ "zero", 0, 0 },
	{ "one", 1, 1 },
	{ "last exact bin", 127, 127 },
	{ "first log-linear value", 128, 128 },
	{ "end of the first group", 255, 255 },
	{ "2^8 starts group 2", 256, 256 },
	{ "2^8+1 shares a width-2 bin", 257, 256 },
	{ "2^8+2 is the next bin", 258, 257 },
	{ "1 ms: group 13, sub-bin 116", 1000000, 13 * 128 + 116 },
	{ "2^35 starts the last group", 1ULL << 35, 29 * 128 },
	{ "largest value in range", (1ULL << 36) - 1, IOLAT_HIST_NR_BINS - 1 },
	{ "2^36 overflows", 1ULL << 36, IOLAT_HIST_NR_BINS },
	{ "U64_MAX overflows", U64_MAX, IOLAT_HIST_NR_BINS },
};

static void hist_bin_case_desc(const struct hist_bin_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hist_bin, hist_bin_cases, hist_bin_case_desc);

static void iolat_hist_bin_test(struct kunit *test)
{
	const struct hist_bin_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, iolat_hist_bin(c->value), c->bin);
}

/* Every bin: contiguous with the next, its bounds map back to it, and no
 * wider than 1/128 of its lower bound.
 */
static void iolat_hist_bounds_test(struct kunit *test)
{
	unsigned int b;

	for (b = 0; b < IOLAT_HIST_NR_BINS; b++) {
		u64 lo = iolat_hist_bin_lo(b), hi = iolat_hist_bin_hi(b);

		KUNIT_ASSERT_LT(test, lo, hi);
		KUNIT_ASSERT_EQ(test, iolat_hist_bin(lo), b);
		KUNIT_ASSERT_EQ(test, iolat_hist_bin(hi - 1), b);
		if (b + 1 < IOLAT_HIST_NR_BINS)
			KUNIT_ASSERT_EQ(test, hi, iolat_hist_bin_lo(b + 1));
		if (lo >= IOLAT_HIST_SUB)
			KUNIT_ASSERT_LE(test, (hi - lo) * IOLAT_HIST_SUB, lo);
	}
	KUNIT_EXPECT_EQ(test, iolat_hist_bin_hi(IOLAT_HIST_NR_BINS - 1),
			1ULL << IOLAT_HIST_MAX_SHIFT);
}

/* Percentiles of 1..100000 ns: within 0.4% of the exact rank value. */
static void iolat_hist_percentile_test(struct kunit *test)
{
	static const u32 ppms[] = { 1, 500000, 900000, 990000, 999000,
				    999900, 1000000 };
	struct iolat_hist *h;
	unsigned int i;
	u64 v;

	h = vmalloc(sizeof(*h));
	KUNIT_ASSERT_NOT_NULL(test, h);
	iolat_hist_init(h);
	KUNIT_EXPECT_EQ(test, iolat_hist_percentile(h, 500000), 0ULL);
	for (v = 1; v <= 100000; v++)
		iolat_hist_add(h, v);
	KUNIT_EXPECT_EQ(test, h->count, 100000ULL);
	KUNIT_EXPECT_EQ(test, h->min, 1ULL);
	KUNIT_EXPECT_EQ(test, h->max, 100000ULL);
	KUNIT_EXPECT_EQ(test, h->overflow, 0ULL);
	for (i = 0; i < ARRAY_SIZE(ppms); i++) {
		u64 exact = DIV_ROUND_UP_ULL(100000ULL * ppms[i], 1000000);
		u64 got = iolat_hist_percentile(h, ppms[i]);
		u64 diff = got > exact ? got - exact : exact - got;

		KUNIT_EXPECT_LE_MSG(test, diff * 1000, exact * 4,
				    "ppm %u: got %llu, exact %llu", ppms[i],
				    got, exact);
	}
	vfree(h);
}

/* Merging two histograms equals adding all values to one. */
static void iolat_hist_merge_test(struct kunit *test)
{
	struct iolat_hist *a, *b, *all;
	u64 v;

	a = vmalloc(sizeof(*a));
	b = vmalloc(sizeof(*b));
	all = vmalloc(sizeof(*all));
	KUNIT_ASSERT_TRUE(test, a && b && all);
	iolat_hist_init(a);
	iolat_hist_init(b);
	iolat_hist_init(all);
	for (v = 0; v < 5000; v++) {
		u64 x = v * v * 7919 + (v << 37) * (v % 3 == 0);

		iolat_hist_add(v & 1 ? a : b, x);
		iolat_hist_add(all, x);
	}
	iolat_hist_merge(a, b);
	KUNIT_EXPECT_EQ(test, a->count, all->count);
	KUNIT_EXPECT_EQ(test, a->sum, all->sum);
	KUNIT_EXPECT_EQ(test, a->min, all->min);
	KUNIT_EXPECT_EQ(test, a->max, all->max);
	KUNIT_EXPECT_EQ(test, a->overflow, all->overflow);
	KUNIT_EXPECT_GT(test, all->overflow, 0ULL);
	KUNIT_EXPECT_EQ(test, memcmp(a->bins, all->bins, sizeof(a->bins)), 0);
	vfree(a);
	vfree(b);
	vfree(all);
}

static struct iolat_ring *ring_new(struct kunit *test, unsigned int slots)
{
	struct iolat_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, iolat_ring_init(r, slots, NUMA_NO_NODE), 0);
	return r;
}

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
	struct iolat_ring *r = ring_new(test, 64), bad;
	unsigned long pos;
	unsigned int i, round;
	u64 id = 0, want = 0;

	KUNIT_EXPECT_EQ(test, iolat_ring_init(&bad, 48, NUMA_NO_NODE), -EINVAL);
	out = kunit_kcalloc(test, 64, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (round = 0; round < 5; round++) {
		for (i = 0; i < 64; i++)
			ring_put(test, r, id++);
		KUNIT_EXPECT_NULL(test, iolat_ring_reserve(r, &pos));
		KUNIT_EXPECT_EQ(test, iolat_ring_readable(r, 1000), 64U);
		KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 40), 40U);
		KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out + 40, 64), 24U);
		for (i = 0; i < 64; i++)
			KUNIT_EXPECT_EQ(test, out[i].sector, want++);
		KUNIT_EXPECT_EQ(test, iolat_ring_readable(r, 1000), 0U);
	}
	iolat_ring_free(r);
}

/*
 * A slot reserved but not yet published (a writer interrupted by a
 * nested one) holds back the reader, and nothing after it is lost.
 */
static void iolat_ring_nested_test(struct kunit *test)
{
	struct iolat_record out[4];
	struct iolat_ring *r = ring_new(test, 64);
	struct iolat_ring_slot *outer, *inner;
	unsigned long opos, ipos;

	outer = iolat_ring_reserve(r, &opos);
	inner = iolat_ring_reserve(r, &ipos);
	KUNIT_ASSERT_TRUE(test, outer && inner);
	KUNIT_EXPECT_EQ(test, ipos, opos + 1);
	inner->rec.sector = 2;
	iolat_ring_publish(inner, ipos);
	KUNIT_EXPECT_EQ(test, iolat_ring_readable(r, 4), 0U);
	KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 4), 0U);
	outer->rec.sector = 1;
	iolat_ring_publish(outer, opos);
	KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 4), 2U);
	KUNIT_EXPECT_EQ(test, out[0].sector, 1ULL);
	KUNIT_EXPECT_EQ(test, out[1].sector, 2ULL);
	iolat_ring_free(r);
}

/* iolat_record_op() and iolat_record_flags(): kernel op -> ABI values. */
struct op_case {
	const char *desc;
	blk_opf_t opf;
	u8 op;
	u32 flags;
};

static const struct op_case op_cases[] = {
	{ "read", REQ_OP_READ, IOLAT_OP_READ, 0 },
	{ "sync write", REQ_OP_WRITE | REQ_SYNC, IOLAT_OP_WRITE, IOLAT_F_SYNC },
	{ "fua meta write", REQ_OP_WRITE | REQ_FUA | REQ_META, IOLAT_OP_WRITE,
	  IOLAT_F_FUA | IOLAT_F_META },
	{ "preflush", REQ_OP_FLUSH | REQ_PREFLUSH, IOLAT_OP_FLUSH,
	  IOLAT_F_PREFLUSH },
	{ "discard", REQ_OP_DISCARD, IOLAT_OP_DISCARD, 0 },
	{ "write zeroes", REQ_OP_WRITE_ZEROES, IOLAT_OP_WRITE_ZEROES, 0 },
	{ "secure erase is other", REQ_OP_SECURE_ERASE, IOLAT_OP_OTHER, 0 },
	{ "driver in is other", REQ_OP_DRV_IN, IOLAT_OP_OTHER, 0 },
};

static void op_case_desc(const struct op_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(op, op_cases, op_case_desc);

static void iolat_record_op_test(struct kunit *test)
{
	const struct op_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, iolat_record_op(c->opf), c->op);
	KUNIT_EXPECT_EQ(test, iolat_record_flags(c->opf), c->flags);
	KUNIT_EXPECT_STRNEQ(test, iolat_op_name(c->op), "");
}

/* Records of another size decode up to the fields both sides know. */
static void iolat_record_decode_test(struct kunit *test)
{
	struct iolat_record in[2] = {
		{ .d_ns = 10, .c_ns = 25, .sector = 7, .error = -5 },
		{ .d_ns = 30, .c_ns = 20, .sector = 9 },
	};
	u8 big[2][sizeof(struct iolat_record) + 16];
	struct iolat_record out;

	KUNIT_EXPECT_EQ(test, iolat_record_decode(in, sizeof(in), sizeof(in[0]),
						  1, &out), 0);
	KUNIT_EXPECT_EQ(test, out.sector, 9ULL);
	KUNIT_EXPECT_EQ(test, iolat_record_latency(&out), 0ULL);
	KUNIT_EXPECT_EQ(test, iolat_record_latency(&in[0]), 15ULL);
	KUNIT_EXPECT_EQ(test, iolat_record_decode(in, sizeof(in), sizeof(in[0]),
						  2, &out), -1);
	KUNIT_EXPECT_EQ(test, iolat_record_decode(in, sizeof(in), 0, 0, &out),
			-1);

	memset(big, 0xff, sizeof(big));
	memcpy(big[1], &in[0], sizeof(in[0]));
	KUNIT_EXPECT_EQ(test, iolat_record_decode(big, sizeof(big),
						  sizeof(big[0]), 1, &out), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&out, &in[0], sizeof(out)), 0);

	KUNIT_EXPECT_EQ(test, iolat_record_decode(in, sizeof(in), 8, 1, &out),
			0);
	KUNIT_EXPECT_EQ(test, out.q_ns, 0ULL);	/* byte 8 of in[0]: g_ns */
	KUNIT_EXPECT_EQ(test, out.c_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, out.error, 0);
}

/* Stage durations need both ends, in order; monotonic checks them all. */
struct stage_case {
	const char *desc;
	struct iolat_record r;
	s64 want[IOLAT_STAGE_NR];	/* -1: not known */
	int monotonic;
};

static const struct stage_case stage_cases[] = {
	{ "all five stages",
	  { .q_ns = 100, .g_ns = 110, .i_ns = 130, .d_ns = 160, .c_ns = 200 },
	  { 10, 20, 30, 40, 100 }, 1 },
	{ "issued directly, no insert",
	  { .q_ns = 100, .g_ns = 110, .d_ns = 160, .c_ns = 200 },
	  { 10, -1, -1, 40, 100 }, 1 },
	{ "first seen at issue",
	  { .d_ns = 160, .c_ns = 200 },
	  { -1, -1, -1, 40, -1 }, 1 },
	{ "insert before getrq is out of order",
	  { .q_ns = 100, .g_ns = 140, .i_ns = 130, .d_ns = 160, .c_ns = 200 },
	  { 40, -1, 30, 40, 100 }, 0 },
	{ "no completion",
	  { .q_ns = 100, .d_ns = 160 },
	  { -1, -1, -1, -1, -1 }, 0 },
};

static void stage_case_desc(const struct stage_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(stage, stage_cases, stage_case_desc);

static void iolat_record_stage_test(struct kunit *test)
{
	const struct stage_case *c = test->param_value;
	unsigned int st;
	u64 ns;

	for (st = 0; st < IOLAT_STAGE_NR; st++) {
		ns = 0;
		KUNIT_EXPECT_EQ_MSG(test, iolat_record_stage(&c->r, st, &ns),
				    c->want[st] >= 0, "stage %s",
				    iolat_stage_name(st));
		if (c->want[st] >= 0)
			KUNIT_EXPECT_EQ_MSG(test, ns, (u64)c->want[st],
					    "stage %s", iolat_stage_name(st));
	}
	KUNIT_EXPECT_EQ(test, iolat_record_stage(&c->r, IOLAT_STAGE_NR, &ns), 0);
	KUNIT_EXPECT_EQ(test, iolat_record_monotonic(&c->r), c->monotonic);
}

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

static struct kunit_case iolat_test_cases[] = {
	KUNIT_CASE_PARAM(iolat_hist_bin_test, hist_bin_gen_params),
	KUNIT_CASE(iolat_hist_bounds_test),
	KUNIT_CASE(iolat_hist_percentile_test),
	KUNIT_CASE(iolat_hist_merge_test),
	KUNIT_CASE(iolat_ring_order_test),
	KUNIT_CASE(iolat_ring_nested_test),
	KUNIT_CASE_PARAM(iolat_record_op_test, op_gen_params),
	KUNIT_CASE(iolat_record_decode_test),
	KUNIT_CASE_PARAM(iolat_record_stage_test, stage_gen_params),
	KUNIT_CASE(iolat_stash_test),
	KUNIT_CASE(iolat_stash_release_test),
	{}
};

static struct kunit_suite iolat_test_suite = {
	.name = "iolat",
	.test_cases = iolat_test_cases,
};
kunit_test_suite(iolat_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for iolat");
