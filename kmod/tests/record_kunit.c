// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "iolat_record": lib/record.c and lib/nvme_names.c, the
 * encoding of a completed request (its op and flags, its stages) and the
 * names of NVMe opcodes and statuses, as the module and the CLI use them.
 */
#include <kunit/test.h>
#include <linux/blk_types.h>
#include "../iolat.h"
#include "../../lib/record.h"
#include "../../lib/nvme_names.h"
#include "suites.h"

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

/*
 * iolat_stages_ns(), all stages at once with a path for the usual order,
 * against iolat_stage_ns() of each stage: every Q, G, I, D and C from
 * {0, 10, 20, 30}, zeros and disorder included.
 */
static void iolat_stages_ns_test(struct kunit *test)
{
	static const u64 v[] = { 0, 10, 20, 30 };
	u64 ns[IOLAT_STAGE_NR], one, t[5];
	unsigned int n, known, st, i;
	int want;

	for (n = 0; n < 1024; n++) {
		for (i = 0; i < 5; i++)
			t[i] = v[(n >> (2 * i)) & 3];
		memset(ns, 0xff, sizeof(ns));
		known = iolat_stages_ns(t[0], t[1], t[2], t[3], t[4], ns);
		for (st = 0; st < IOLAT_STAGE_NR; st++) {
			want = iolat_stage_ns(t[0], t[1], t[2], t[3], t[4], st,
					      &one);
			KUNIT_EXPECT_EQ_MSG(test, !!(known & (1U << st)), want,
					    "case %u stage %u", n, st);
			if (want)
				KUNIT_EXPECT_EQ_MSG(test, ns[st], one,
						    "case %u stage %u", n, st);
		}
	}
}

static struct kunit_case iolat_record_cases[] = {
	KUNIT_CASE(iolat_nvme_names_test),
	KUNIT_CASE_PARAM(iolat_record_op_test, op_gen_params),
	KUNIT_CASE(iolat_record_decode_test),
	KUNIT_CASE_PARAM(iolat_record_stage_test, stage_gen_params),
	KUNIT_CASE(iolat_stages_ns_test),
	{}
};

struct kunit_suite iolat_record_suite = {
	.name = "iolat_record",
	.test_cases = iolat_record_cases,
};
