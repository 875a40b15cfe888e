// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "iolat": the per-CPU ring, record encoding and accounting
 * helpers as built into
 * iolat.ko (reached through EXPORT_SYMBOL_IF_KUNIT), and the pure logic of
 * lib/, compiled in here from the same sources the CLI uses.  Loaded on
 * the debug kernel by `make check` (tests/check.sh).
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

#include <linux/blk_types.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "iolat.h"
#include "stash.h"
#include "acct.h"
#include "upper.h"
#include "../lib/hist.c"
#include "../lib/record.c"
#include "../lib/busy.c"
#include "../lib/nvme_names.c"

IOLAT_KUNIT_IMPORT_NS();

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
		KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 40, sizeof(*out)), 40U);
		KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out + 40, 64, sizeof(*out)), 24U);
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
	struct iolat_ring *r = ring_new(test, 64);
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
	KUNIT_EXPECT_EQ(test, iolat_ring_readable(r, 4), 0U);
	KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 4, sizeof(*out)), 0U);
	outer->rec.sector = 1;
	iolat_ring_publish(outer, opos);
	KUNIT_EXPECT_EQ(test, iolat_ring_read(r, out, 4, sizeof(*out)), 2U);
	KUNIT_EXPECT_EQ(test, out[0].sector, 1ULL);
	KUNIT_EXPECT_EQ(test, out[1].sector, 2ULL);
	iolat_ring_free(r);
}

/*
 * A session without NVMe reads the block part of each record: the CLI
 * decodes it with the NVMe part zero, the block part whole.
 */
static void iolat_ring_block_size_test(struct kunit *test)
{
	struct iolat_ring *r = ring_new(test, 64);
	struct iolat_record *want, out;
	struct iolat_ring_slot *slot;
	unsigned long pos;
	u8 *buf;

	buf = kunit_kzalloc(test, 2 * IOLAT_RECORD_BLOCK_SIZE, GFP_KERNEL);
	want = kunit_kzalloc(test, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, buf && want);
	slot = iolat_ring_reserve(r, &pos);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	memset(&slot->rec, 0x5a, sizeof(slot->rec));
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

/* NVMe opcodes and statuses, named from the specification's values. */
static void iolat_nvme_names_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, iolat_nvme_opcode_name(0, 0x02), "read");
	KUNIT_EXPECT_STREQ(test, iolat_nvme_opcode_name(0, 0x09), "dsm");
	KUNIT_EXPECT_STREQ(test, iolat_nvme_opcode_name(0, 0x08),
			   "write_zeroes");
	KUNIT_EXPECT_STREQ(test, iolat_nvme_opcode_name(1, 0x06), "identify");
	KUNIT_EXPECT_STREQ(test, iolat_nvme_opcode_name(1, 0x02),
			   "get_log_page");
	KUNIT_EXPECT_NULL(test, iolat_nvme_opcode_name(0, 0x99));
	KUNIT_EXPECT_STREQ(test, iolat_nvme_status_name(0), "success");
	KUNIT_EXPECT_STREQ(test, iolat_nvme_status_name(0x080), "lba_range");
	/* do-not-retry and more bits are not part of the name */
	KUNIT_EXPECT_STREQ(test, iolat_nvme_status_name(0x4000 | 0x6000 | 0x002),
			   "invalid_field");
	KUNIT_EXPECT_STREQ(test, iolat_nvme_status_name(0x281), "read_error");
	KUNIT_EXPECT_STREQ(test, iolat_nvme_status_name(0x371),
			   "host_aborted_cmd");
	KUNIT_EXPECT_STREQ(test,
			   iolat_nvme_status_name(IOLAT_NVME_STATUS_UNKNOWN),
			   "unknown");
	KUNIT_EXPECT_NULL(test, iolat_nvme_status_name(0x0ff));
	KUNIT_EXPECT_TRUE(test, iolat_nvme_io_has_lba(0x02));
	KUNIT_EXPECT_TRUE(test, iolat_nvme_io_has_lba(0x08));
	KUNIT_EXPECT_FALSE(test, iolat_nvme_io_has_lba(0x09));
	KUNIT_EXPECT_FALSE(test, iolat_nvme_io_has_lba(0x00));
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
	static const struct iolat_record in[2] = {
		{ .d_ns = 10, .c_ns = 25, .sector = 7, .error = -5 },
		{ .d_ns = 30, .c_ns = 20, .sector = 9 },
	};
	u8 (*big)[sizeof(struct iolat_record) + 16];
	struct iolat_record out;

	big = kunit_kzalloc(test, 2 * sizeof(*big), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);

	KUNIT_EXPECT_EQ(test, iolat_record_decode(in, sizeof(in), sizeof(in[0]),
						  1, &out), 0);
	KUNIT_EXPECT_EQ(test, out.sector, 9ULL);
	KUNIT_EXPECT_EQ(test, iolat_record_latency(&out), 0ULL);
	KUNIT_EXPECT_EQ(test, iolat_record_latency(&in[0]), 15ULL);
	KUNIT_EXPECT_EQ(test, iolat_record_decode(in, sizeof(in), sizeof(in[0]),
						  2, &out), -1);
	KUNIT_EXPECT_EQ(test, iolat_record_decode(in, sizeof(in), 0, 0, &out),
			-1);

	memset(big, 0xff, 2 * sizeof(*big));
	memcpy(big[1], &in[0], sizeof(in[0]));
	KUNIT_EXPECT_EQ(test, iolat_record_decode(big, 2 * sizeof(*big),
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

	d = &s->devs[0];
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

/*
 * A request first seen on a CPU other than its submitter's takes its
 * entry from that CPU's stash, once; entries of this CPU and entries
 * claimed for another bio are left alone.
 */
static void iolat_stash_remote_test(struct kunit *test)
{
	struct iolat_stash __percpu *stash = alloc_percpu(struct iolat_stash);
	struct iolat_stash_entry copy, *e;
	int self, other;

	KUNIT_ASSERT_NOT_NULL(test, stash);
	self = get_cpu();
	for_each_possible_cpu(other)
		if (other != self)
			break;
	if (other >= nr_cpu_ids) {
		put_cpu();
		free_percpu(stash);
		kunit_skip(test, "one possible CPU: no other stash");
	}
	e = iolat_stash_claim(per_cpu_ptr(stash, other));
	e->q_ns = 11;
	e->g_ns = 12;
	e->who.pid = 13;
	e->flags = IOLAT_F_SUBMITTER;
	iolat_stash_publish(e, &stash_bios[0]);
	stash_put(per_cpu_ptr(stash, other), 1, 21);
	stash_put(per_cpu_ptr(stash, self), 2, 31);

	KUNIT_EXPECT_TRUE(test, iolat_stash_take_remote(stash, &stash_bios[0],
							&copy));
	KUNIT_EXPECT_EQ(test, copy.q_ns, 11ULL);
	KUNIT_EXPECT_EQ(test, copy.g_ns, 12ULL);
	KUNIT_EXPECT_EQ(test, copy.who.pid, 13U);
	KUNIT_EXPECT_EQ(test, copy.flags, (u32)IOLAT_F_SUBMITTER);
	/* taken: not found twice, and not in the owner's own search */
	KUNIT_EXPECT_FALSE(test, iolat_stash_take_remote(stash, &stash_bios[0],
							 &copy));
	KUNIT_EXPECT_NULL(test, iolat_stash_find(per_cpu_ptr(stash, other),
						 &stash_bios[0]));
	/* the owner's other entry is untouched */
	KUNIT_EXPECT_NOT_NULL(test, iolat_stash_find(per_cpu_ptr(stash, other),
						     &stash_bios[1]));
	/* this CPU's stash is not searched again */
	KUNIT_EXPECT_FALSE(test, iolat_stash_take_remote(stash, &stash_bios[2],
							 &copy));
	/* an entry claimed again (key cleared) is not found */
	e = iolat_stash_find(per_cpu_ptr(stash, other), &stash_bios[1]);
	if (e)	/* found above; no assertion with preemption off */
		WRITE_ONCE(e->bio, NULL);
	KUNIT_EXPECT_FALSE(test, iolat_stash_take_remote(stash, &stash_bios[1],
							 &copy));
	put_cpu();
	free_percpu(stash);
}

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

static struct kunit_case iolat_test_cases[] = {
	KUNIT_CASE_PARAM(iolat_hist_bin_test, hist_bin_gen_params),
	KUNIT_CASE(iolat_hist_bounds_test),
	KUNIT_CASE(iolat_hist_percentile_test),
	KUNIT_CASE(iolat_hist_merge_test),
	KUNIT_CASE(iolat_ring_order_test),
	KUNIT_CASE(iolat_ring_nested_test),
	KUNIT_CASE(iolat_ring_block_size_test),
	KUNIT_CASE(iolat_nvme_names_test),
	KUNIT_CASE_PARAM(iolat_record_op_test, op_gen_params),
	KUNIT_CASE(iolat_record_decode_test),
	KUNIT_CASE_PARAM(iolat_record_stage_test, stage_gen_params),
	KUNIT_CASE(iolat_stash_test),
	KUNIT_CASE(iolat_stash_release_test),
	KUNIT_CASE(iolat_stash_remote_test),
	KUNIT_CASE(iolat_stamp_test),
	KUNIT_CASE(iolat_upper_table_test),
	KUNIT_CASE(iolat_link_table_test),
	KUNIT_CASE(iolat_upper_fold_test),
	KUNIT_CASE(iolat_busy_union_test),
	KUNIT_CASE(iolat_busy_backdate_test),
	KUNIT_CASE(iolat_busy_home_test),
	KUNIT_CASE(iolat_busy_home_race_test),
	KUNIT_CASE(iolat_busy_transient_test),
	KUNIT_CASE(iolat_integral_test),
	KUNIT_CASE(iolat_qd_bucket_test),
	{}
};

static struct kunit_suite iolat_test_suite = {
	.name = "iolat",
	.test_cases = iolat_test_cases,
};
kunit_test_suite(iolat_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for iolat");
