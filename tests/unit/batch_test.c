// SPDX-License-Identifier: GPL-2.0
/*
 * The stream's records taken in runs, in place (iolat_session_take(),
 * iolat_an_records(), iolat_hist_add_many()), give the analysis that
 * taking each record on its own (iolat_an_record()) gives: every
 * histogram to the bit, every table, the processes and their order, the
 * late records and the device's span.  The records mix runs of every
 * length with what a run leaves to the record's own path: NVMe commands,
 * bios of a stack, records without Q or out of order, other processes
 * and ops, a scheduler's I or none, two devices, intervals already shown;
 * a block session's records, and with their cgroups.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "out/output.h"
#include "unit.h"
#include "kselftest_harness.h"

#define NR	20000
#define T0	1000000000000ULL

#define next_rand rnd64

static const struct iolat_output quiet = { .name = "quiet" };

/* Record @i of a stream whose runs change key now and then. */
static void fill(struct iolat_record *r, unsigned int i, unsigned int *key)
{
	static const char *const comms[] = { "fio", "postgres", "kworker/u8:1" };
	uint64_t q = T0 - 2000000000ULL + i * 200000ULL + next_rand() % 1000;

	/* a new run about every 16 records, of any length */
	if (!(next_rand() % 16))
		*key = next_rand();
	memset(r, 0, sizeof(*r));
	r->q_ns = q;
	r->g_ns = q + 300 + next_rand() % 300;
	r->i_ns = *key & 1 ? r->g_ns + 200 : 0;
	r->d_ns = r->g_ns + 500 + next_rand() % 5000;
	r->c_ns = r->d_ns + (20000ULL << (next_rand() % 10)) + next_rand() % 9999;
	r->sector = next_rand() % (1ULL << 30);
	r->major = 259;
	r->minor = (*key >> 1) % 4 == 3;
	r->bytes = 4096U << (next_rand() % 4);
	r->flags = IOLAT_F_SUBMITTER;
	r->pid = 1000 + (*key >> 3) % 3;
	r->tgid = r->pid;
	snprintf(r->comm, sizeof(r->comm), "%s", comms[(*key >> 3) % 3]);
	r->nr_bios = 1 + (next_rand() % 8 == 0);
	r->qd_issue = next_rand() % 64;
	r->op = (*key >> 5) % 3 ? IOLAT_OP_READ : IOLAT_OP_WRITE;
	r->cgroup = 1 + (*key >> 7) % 3;
	switch (next_rand() % 64) {
	case 0:		/* a bio's, of a stack */
		r->flags |= IOLAT_F_BIO;
		r->d_ns = 0;
		break;
	case 1:		/* no Q seen */
		r->q_ns = 0;
		break;
	case 2:		/* out of order */
		r->g_ns = r->q_ns - 5;
		break;
	case 3:		/* an NVMe command's */
		r->flags |= IOLAT_F_NVME;
		break;
	case 4:		/* a flush */
		r->op = IOLAT_OP_WRITE;
		r->bytes = 0;
		break;
	case 5:		/* a huge latency: the histograms' overflow */
		r->c_ns = r->d_ns + (1ULL << 37);
		break;
	case 6:		/* an I before its G: I2D known, G2I not */
		r->i_ns = r->g_ns - 1;
		break;
	case 7:		/* an I after its D: G2I known, I2D not */
		r->i_ns = r->d_ns + 1;
		break;
	case 8:		/* done as it was issued: D2C 0 */
		r->c_ns = r->d_ns;
		break;
	case 9:		/* another cgroup's, alone */
		r->cgroup = 4;
		break;
	}
}

static void one(void *arg, unsigned int dev, const struct iolat_record *r)
{
	iolat_an_record(arg, dev, r);
}

static void runs(void *arg, unsigned int dev, const void *base,
		 unsigned int n, size_t stride, size_t size)
{
	iolat_an_records(arg, dev, base, n, stride, size);
}

static void setup(struct iolat_an *an, struct iolat_dev_req *devs,
		  bool cgroups)
{
	struct iolat_an_opts o = { .interval_ns = 1000000000ULL,
				   .stage = IOLAT_STAGE_Q2C,
				   .cgroups = cgroups };
	unsigned int d;

	iolat_an_default_pct(&o);
	iolat_an_init(an, &o, &quiet);
	an->meta.t0_ns = T0 - 3000000000ULL;
	/* intervals before T0 are shown: records completed then are late */
	an->ival_index = 3;
	for (d = 0; d < 2; d++) {
		snprintf(devs[d].name, sizeof(devs[d].name), "nvme%un1", d);
		devs[d].major = 259;
		devs[d].minor = d;
		devs[d].nvme_ctrl = -1;
		iolat_an_add_dev(an, devs[d].name, 1ULL << 30);
	}
}

static int hist_same(const struct iolat_hist *a, const struct iolat_hist *b)
{
	if (!a || !b)
		return a == b;
	return !memcmp(a, b, sizeof(*a));
}

static int op_same(const struct iolat_an_op *a, const struct iolat_an_op *b)
{
	unsigned int s;

	if (a->ios != b->ios || a->bytes != b->bytes || a->bios != b->bios)
		return 0;
	for (s = 0; s < IOLAT_AN_STAGES; s++)
		if (!hist_same(a->hist[s], b->hist[s]))
			return 0;
	return 1;
}

TEST(add_many_is_add_each)
{
	static struct iolat_hist a, b;
	__u64 v[257];
	unsigned int i, n;

	iolat_hist_init(&a);
	iolat_hist_init(&b);
	for (n = 0; n <= 256; n += 1 + n / 3) {
		for (i = 0; i < n; i++) {
			v[i] = next_rand() >> (next_rand() % 64);
			iolat_hist_add(&a, v[i]);
		}
		iolat_hist_add_many(&b, v, n);
	}
	ASSERT_NE(0, a.overflow);
	ASSERT_EQ(0, memcmp(&a, &b, sizeof(a)));
}

/*
 * @size bytes a record (a block session's, or with its cgroup): each taken
 * on its own, and the same in runs, in place, from slots of @size + 8
 * whose bytes past @size are another's.
 */
static void runs_vs_each(struct __test_metadata *_metadata, size_t size)
{
	size_t stride = size + 8;	/* a ring's slots */
	unsigned char *buf = calloc(NR, stride);
	static struct iolat_an each, many;
	struct iolat_dev_req devs[2] = { 0 };
	struct iolat_session s = { 0 };
	struct iolat_record r;
	unsigned int i, d, key = 0, done, k;

	ASSERT_NE(NULL, buf);
	setup(&each, devs, size >= IOLAT_RECORD_CGROUP_SIZE);
	setup(&many, devs, size >= IOLAT_RECORD_CGROUP_SIZE);
	s.devs = devs;
	s.nr_devs = 2;
	s.record = one;
	s.records = runs;
	s.arg = &many;
	for (i = 0; i < NR; i++) {
		fill(&r, i, &key);
		/* @size bytes only: past them, the next slot's */
		memcpy(buf + i * stride, &r, size);
		memset(buf + i * stride + size, 0xa5, 8);
		memset((char *)&r + size, 0, sizeof(r) - size);
		iolat_an_record(&each, r.minor, &r);
	}
	/* in drains of any size, as the rings hand them over */
	for (done = 0; done < NR; done += k) {
		k = 1 + next_rand() % 300;
		if (k > NR - done)
			k = NR - done;
		iolat_session_take(&s, buf + done * stride, k, stride, size);
	}
	ASSERT_EQ(0, s.run.foreign);
	ASSERT_EQ(NR, many.records);
	ASSERT_EQ(each.records, many.records);
	ASSERT_NE(0, each.late);
	ASSERT_EQ(each.late, many.late);
	ASSERT_EQ(each.nomem, many.nomem);
	for (d = 0; d < 2; d++) {
		struct iolat_an_dev *x = &each.devs[d], *y = &many.devs[d];

		for (i = 0; i < IOLAT_AN_OPS; i++) {
			EXPECT_TRUE(op_same(&x->run[i], &y->run[i]));
			EXPECT_TRUE(op_same(&x->ival[i], &y->ival[i]));
		}
		EXPECT_EQ(0, memcmp(x->size, y->size, sizeof(x->size)));
		EXPECT_EQ(0, memcmp(x->qd, y->qd, sizeof(x->qd)));
		EXPECT_EQ(0, memcmp(x->ival_qd, y->ival_qd,
				    sizeof(x->ival_qd)));
		EXPECT_EQ(0, memcmp(x->lba, y->lba, sizeof(x->lba)));
		EXPECT_EQ(x->first_ns, y->first_ns);
		EXPECT_EQ(x->last_ns, y->last_ns);
	}
	ASSERT_EQ(each.nr_procs, many.nr_procs);
	for (i = 0; i < each.nr_procs; i++) {
		EXPECT_EQ(each.procs[i].pid, many.procs[i].pid);
		EXPECT_EQ(each.procs[i].dev, many.procs[i].dev);
		EXPECT_EQ(each.procs[i].ios, many.procs[i].ios);
		EXPECT_EQ(each.procs[i].bytes, many.procs[i].bytes);
		EXPECT_TRUE(hist_same(each.procs[i].lat, many.procs[i].lat));
	}
	ASSERT_EQ(each.nr_qids, many.nr_qids);
	ASSERT_EQ(each.nr_cgs, many.nr_cgs);
	if (size >= IOLAT_RECORD_CGROUP_SIZE)
		ASSERT_EQ(8, each.nr_cgs);	/* four on each device */
	for (i = 0; i < each.nr_cgs; i++) {
		EXPECT_EQ(each.cgs[i].id, many.cgs[i].id);
		EXPECT_EQ(each.cgs[i].dev, many.cgs[i].dev);
		EXPECT_EQ(each.cgs[i].ios, many.cgs[i].ios);
		EXPECT_EQ(each.cgs[i].bytes, many.cgs[i].bytes);
		EXPECT_EQ(each.cgs[i].q2c_ns, many.cgs[i].q2c_ns);
		EXPECT_TRUE(hist_same(each.cgs[i].q2c, many.cgs[i].q2c));
		EXPECT_TRUE(hist_same(each.cgs[i].d2c, many.cgs[i].d2c));
	}
	iolat_an_free(&each);
	iolat_an_free(&many);
	free(buf);
}

TEST(runs_in_place_are_records_one_by_one)
{
	runs_vs_each(_metadata, IOLAT_RECORD_BLOCK_SIZE);
}

/* with cgroups: each run one cgroup's, its group's sums and histograms */
TEST(runs_with_cgroups_are_records_one_by_one)
{
	runs_vs_each(_metadata, IOLAT_RECORD_CGROUP_SIZE);
}

/* the offset's bucket, one multiplication and one compare, is the quotient */
TEST(lba_bucket_is_the_quotient)
{
	static const uint64_t sizes[] = { 1, 19, 20, 21, 4096, 1000003,
					  (1ULL << 40) + 3, 1ULL << 62,
					  UINT64_MAX / 21 };
	static struct iolat_an an;
	unsigned int i, b, k;
	uint64_t S, s, want;

	iolat_an_init(&an, &(struct iolat_an_opts){ 0 }, &quiet);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		S = sizes[i];
		iolat_an_add_dev(&an, "d", S);
		for (k = 0; k < 20000; k++) {
			b = k % (IOLAT_LBA_BUCKETS + 1);
			/* the starts, either side, anywhere, past the end */
			s = b < IOLAT_LBA_BUCKETS ? an.devs[i].lba_start[b] : S;
			s += (int64_t)(k % 3) - 1;
			if (k % 7 == 6)
				s = rnd64() % S;
			if (k % 11 == 10)
				s = rnd64();
			want = (uint64_t)((unsigned __int128)s * IOLAT_LBA_BUCKETS /
					  S);
			if (want > IOLAT_LBA_BUCKETS - 1)
				want = IOLAT_LBA_BUCKETS - 1;
			ASSERT_EQ(want, iolat_an_lba_bucket(&an.devs[i], s));
		}
	}
	iolat_an_free(&an);
}

TEST_HARNESS_MAIN
