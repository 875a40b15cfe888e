// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the record file itself (user/file/recfile.c): its checksum,
 * a file of more devices than its header holds, and a file of an older
 * version, each read back by `iolat report` (IOLAT_CLI, default
 * build/iolat).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "file/recfile.h"
#include "file_blocks.h"
#include "unit.h"
#include "kselftest_harness.h"

#define DIR "/tmp/iolat_recfile_test"

/* CRC32C bit by bit, the definition the file's blocks follow. */
static uint32_t crc32c_bitwise(uint32_t crc, const unsigned char *p,
			       size_t len)
{
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78U : crc >> 1;
	}
	return ~crc;
}

/*
 * The blocks' CRC32C (the CPU's crc32 instruction where it has one) is
 * CRC32C: the standard check value of "123456789", and the bitwise
 * definition over buffers of every length from 0 to 300 at every
 * alignment, whole and continued in two parts, so that files written by
 * one CLI are read by another.
 */
TEST(crc32c_is_crc32c)
{
	unsigned char buf[320];
	size_t len, off, cut;
	unsigned int i;

	EXPECT_EQ(0xe3069283U, iolat_crc32c(0, "123456789", 9));
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = uniform() * 256;
	for (off = 0; off < 8; off++) {
		for (len = 0; len <= 300; len++) {
			uint32_t want = crc32c_bitwise(0, buf + off, len);

			cut = len / 3;
			ASSERT_EQ(want, iolat_crc32c(0, buf + off, len))
				TH_LOG("offset %zu, length %zu", off, len);
			ASSERT_EQ(want, iolat_crc32c(iolat_crc32c(0, buf + off,
								  cut),
						     buf + off + cut, len - cut));
		}
	}
}

/*
 * A session of more devices than the file's header holds (the rest in the
 * block after it): report finds each one's requests and counters, -d
 * finds one beyond the header, and a file whose block of devices is cut
 * or damaged is refused with one clear line.
 */
TEST(more_devices_than_the_header)
{
	const unsigned int n = 3 * IOLAT_FILE_HEADER_DEVS - 2;
	struct iolat_session s = { .nr_devs = n };
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	struct iolat_info info = { .abi_version = IOLAT_ABI_VERSION };
	struct iolat_run run = { .seconds = 1 };
	struct iolat_dev_counters *c;
	struct iolat_record r;
	struct iolat_file *f;
	char name[40], *out, *at;
	unsigned int d, i;
	long hdr;

	ASSERT_EQ(0, sh("mkdir -p " DIR));
	s.devs = calloc(n, sizeof(*s.devs));
	c = calloc(n, sizeof(*c));
	ASSERT_TRUE(h && s.devs && c);
	for (d = 0; d < n; d++) {
		snprintf(s.devs[d].name, sizeof(s.devs[d].name), "nullb%u", d);
		s.devs[d].major = 250;
		s.devs[d].minor = d;
		s.devs[d].nr_hwq = 1;
		s.devs[d].depth = 64;
		s.devs[d].nvme_ctrl = -1;
		s.devs[d].sectors = 1 << 21;
	}
	iolat_file_header_fill(h, &s, &info, 1000000000ULL, 0);
	f = iolat_file_create(DIR "/many.rec", h);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, iolat_file_devices(f, &s));
	/* device d: d + 1 reads of (d + 1) us */
	for (d = 0; d < n; d++) {
		for (i = 0; i <= d; i++) {
			memset(&r, 0, sizeof(r));
			r.major = 250;
			r.minor = d;
			r.q_ns = 1000000000ULL + 1000 * (d * n + i);
			r.c_ns = r.q_ns + 1000 * (d + 1);
			r.bytes = 4096;
			r.nr_bios = 1;
			r.op = IOLAT_OP_READ;
			ASSERT_EQ(0, iolat_file_records(f, &r));
		}
		c[d].valid = true;
		c[d].major = 250;
		c[d].minor = d;
		c[d].ios[IOLAT_OP_READ] = d + 1;
		c[d].start_ns = 1000000000ULL;
		c[d].now_ns = 2000000000ULL;
	}
	run.delivered = (uint64_t)n * (n + 1) / 2;
	run.stats.written = run.delivered;
	ASSERT_EQ(0, iolat_file_end(f, 2000000000ULL, &run, n, c));
	ASSERT_EQ(0, iolat_file_close(f));
	ASSERT_EQ(0, sh("%s report -o json %s/many.rec >%s/many.json 2>%s/err",
			cli(), DIR, DIR, DIR)) TH_LOG("%s", slurp(DIR "/err"));
	out = slurp(DIR "/many.json");
	for (d = 0; d < n; d++) {
		snprintf(name, sizeof(name), "\"name\": \"nullb%u\"", d);
		at = strstr(out, name);
		ASSERT_NE(NULL, at) TH_LOG("no %s", name);
		at = strstr(at, "\"Q2C\": ");
		ASSERT_NE(NULL, at);
		EXPECT_EQ(d + 1, json_after(at, "\"count\": "))
			TH_LOG("nullb%u", d);
	}
	free(out);
	ASSERT_EQ(0, sh("%s report -o json -d nullb%u %s/many.rec >%s/one.json 2>%s/err",
			cli(), n - 1, DIR, DIR, DIR)) TH_LOG("%s", slurp(DIR "/err"));
	out = slurp(DIR "/one.json");
	snprintf(name, sizeof(name), "\"name\": \"nullb%u\"", n - 1);
	EXPECT_NE(NULL, strstr(out, name));
	EXPECT_EQ(NULL, strstr(out, "\"name\": \"nullb0\""));
	free(out);
	/* the devices' block cut short, then one byte of it changed */
	hdr = sizeof(*h) + 16 + (long)(n - IOLAT_FILE_HEADER_DEVS) *
			  sizeof(struct iolat_file_dev);
	ASSERT_EQ(0, sh("head -c %ld %s/many.rec >%s/cut.rec", hdr - 1, DIR, DIR));
	EXPECT_EQ(1, sh("%s report %s/cut.rec >/dev/null 2>%s/err", cli(), DIR,
			DIR));
	out = slurp(DIR "/err");
	EXPECT_NE(NULL, strstr(out, "the devices after its header"))
		TH_LOG("%s", out);
	free(out);
	ASSERT_EQ(0, sh("cp %s/many.rec %s/flip.rec && printf '\\125' | dd of=%s/flip.rec bs=1 seek=%ld conv=notrunc status=none && ! cmp -s %s/many.rec %s/flip.rec",
			DIR, DIR, DIR, hdr - 40, DIR, DIR));
	EXPECT_EQ(1, sh("%s report %s/flip.rec >/dev/null 2>%s/err", cli(), DIR,
			DIR));
	out = slurp(DIR "/err");
	EXPECT_NE(NULL, strstr(out, "the devices after its header"))
		TH_LOG("%s", out);
	free(out);
	free(s.devs);
	free(c);
	free(h);
}

/*
 * A version 3 file (ABI 4's records of 176 bytes, the end block without
 * the stack's counters), written here byte by byte as the CLI of ABI 4
 * wrote it, is still read: every request, at its latency.
 */
#define N_V3 1000
TEST(reads_version_3_files)
{
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	unsigned char end[sizeof(struct iolat_file_end_v4) +
			  sizeof(struct iolat_file_counters)] = { 0 };
	static unsigned char recs[N_V3 * IOLAT_FILE_V3_RECORD];
	uint64_t t0 = 1000000000000ULL, mark;
	struct iolat_record r;
	struct iolat_file_end_v4 e = { 0 };
	unsigned int i;
	char *out;
	FILE *f;

	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, sh("mkdir -p " DIR));
	header_init(h, t0);
	h->version = 3;
	h->abi_version = 4;
	h->record_size = IOLAT_FILE_V3_RECORD;
	header_one_dev(h, "nullb0", 250);
	f = fopen(DIR "/v3.rec", "w");
	ASSERT_NE(NULL, f);
	fwrite(h, sizeof(*h), 1, f);
	free(h);
	for (i = 0; i < N_V3; i++) {
		memset(&r, 0, sizeof(r));
		r.major = 250;
		r.op = IOLAT_OP_READ;
		r.bytes = 4096;
		r.nr_bios = 1;
		r.q_ns = t0 + i * 1000000ULL;
		/* Q2C of 100 us to 199.9 us: the median 150 us */
		r.c_ns = r.q_ns + 100000 + i * 100;
		r.link = 7;	/* not in a version 3 record: must read as 0 */
		memcpy(recs + i * IOLAT_FILE_V3_RECORD, &r, IOLAT_FILE_V3_RECORD);
	}
	put_block(f, IOLAT_FB_RECORDS, recs, sizeof(recs));
	mark = t0 + N_V3 * 1000000ULL;
	put_block(f, IOLAT_FB_MARK, &mark, sizeof(mark));
	e.end_ns = mark;
	e.seconds_ns = N_V3 * 1000000ULL;
	e.delivered = N_V3;
	e.stats[0] = N_V3;
	memcpy(end, &e, IOLAT_FILE_V3_END);
	put_block(f, IOLAT_FB_END, end,
		  IOLAT_FILE_V3_END + sizeof(struct iolat_file_counters));
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, sh("%s report -o json %s/v3.rec >%s/v3.json", cli(), DIR,
			DIR));
	out = slurp(DIR "/v3.json");
	ASSERT_NE(NULL, out);
	EXPECT_EQ(N_V3, json_after(strstr(out, "\"Q2C\": "), "\"count\": "));
	EXPECT_GE(1000, fabs(json_after(strstr(out, "\"Q2C\": "), "\"p50_ns\": ") -
			     150000));
	EXPECT_EQ(NULL, strstr(out, "\"stack\""));
	free(out);
	ASSERT_EQ(0, sh("%s report -o csv %s/v3.rec | awk -F, 'NR > 1 && $29 != \"\" { exit 1 }'",
			cli(), DIR));
}

/* A session's one device, nullb0, as a file's header takes it. */
static struct iolat_dev_req *nullb0_dev(void)
{
	struct iolat_dev_req *d = calloc(1, sizeof(*d));

	if (d) {
		strcpy(d->name, "nullb0");
		d->major = 250;
		d->nr_hwq = 1;
		d->depth = 64;
		d->nvme_ctrl = -1;
	}
	return d;
}

/*
 * A file of records with their cgroups (record -w --cgroups) names them
 * wherever it is read: its cgroups block, written before the records
 * that first have each, holds their paths (here taught to the resolver,
 * as a live hierarchy would give them), and report, another process on
 * a machine without those cgroups, shows its table per cgroup with
 * those paths and their names; its CSV has the cgroup column.
 */
TEST(cgroups_named_from_the_file)
{
	static const char *const docker =
		"/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope";
	struct iolat_session s = { .nr_devs = 1, .cgroups = true };
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	struct iolat_info info = { .abi_version = IOLAT_ABI_VERSION };
	struct iolat_run run = { .seconds = 1 };
	struct iolat_dev_counters c = { .valid = true, .major = 250 };
	struct iolat_record r;
	struct iolat_file *f;
	char *out;
	unsigned int i;

	ASSERT_EQ(0, sh("mkdir -p " DIR));
	s.devs = nullb0_dev();
	ASSERT_TRUE(h && s.devs);
	iolat_file_header_fill(h, &s, &info, 1000000000ULL, 0);
	EXPECT_EQ(IOLAT_FILE_F_CGROUPS, h->flags);
	iolat_cgroup_learn(0x100000077ULL, docker);
	iolat_cgroup_learn(0x100000099ULL, "/system.slice/postgresql.service");
	f = iolat_file_create(DIR "/cg.rec", h);
	ASSERT_NE(NULL, f);
	/* 3000 records, over three blocks: docker's from the first on, the other's from the third */
	for (i = 0; i < 3000; i++) {
		memset(&r, 0, sizeof(r));
		r.major = 250;
		r.q_ns = 1000000000ULL + 100000ULL * i;
		r.c_ns = r.q_ns + 50000;
		r.bytes = 4096;
		r.nr_bios = 1;
		r.cgroup = i < 2500 ? 0x100000077ULL : 0x100000099ULL;
		ASSERT_EQ(0, iolat_file_records(f, &r));
	}
	run.delivered = 3000;
	run.stats.written = 3000;
	c.ios[IOLAT_OP_READ] = 3000;
	ASSERT_EQ(0, iolat_file_end(f, 2000000000ULL, &run, 1, &c));
	ASSERT_EQ(0, iolat_file_close(f));
	ASSERT_EQ(0, sh("%s report -o json %s/cg.rec >%s/cg.json && %s report %s/cg.rec >%s/cg.txt && %s report -o csv %s/cg.rec >%s/cg.csv",
			cli(), DIR, DIR, cli(), DIR, DIR, cli(), DIR, DIR));
	out = slurp(DIR "/cg.json");
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, docker));
	EXPECT_NE(NULL, strstr(out, "\"name\": \"docker:0123456789ab\""));
	EXPECT_EQ(2500, json_after(strstr(out, docker), "\"ios\": "));
	EXPECT_EQ(500, json_after(strstr(out, "/system.slice/postgresql.service"),
				  "\"ios\": "));
	free(out);
	EXPECT_EQ(0, sh("grep -q '^docker:0123456789ab  *nullb0  *2500 ' %s/cg.txt", DIR));
	EXPECT_EQ(0, sh("test $(grep -c ',/system.slice/postgresql.service,4294967449$' %s/cg.csv) = 500", DIR));
	free(s.devs);
	free(h);
}

/*
 * Write @n records of ABI 6 from @src into @out as a version 6 or 7 file
 * has them (ABI 5's layout): the block part, then the NVMe part and the
 * link, then (version 7) the cgroup; @size 184 or 192.
 */
static void put_old_records(FILE *out, const unsigned char *src,
			    unsigned int n, unsigned int size)
{
	static unsigned char old[1 << 20];
	const unsigned int rest = sizeof(struct iolat_record) -
				  IOLAT_RECORD_CGROUP_SIZE;
	struct iolat_record r;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memcpy(&r, src + i * sizeof(r), sizeof(r));
		memcpy(old + i * size, &r, IOLAT_RECORD_BLOCK_SIZE);
		memcpy(old + i * size + IOLAT_RECORD_BLOCK_SIZE,
		       &r.nvme_setup_ns, rest);
		if (size == sizeof(r))
			memcpy(old + i * size + IOLAT_RECORD_BLOCK_SIZE + rest,
			       &r.cgroup, sizeof(r.cgroup));
	}
	put_block(out, IOLAT_FB_RECORDS, old, n * size);
}

/*
 * Files of versions 6 (records of 184 bytes, without the cgroup) and 7
 * (192, the cgroup at the end), made here from a version 8 one that this
 * CLI wrote, block by block, each records block's records laid out as
 * ABI 5's and its checksum made again: report reads both as the same
 * run, the stack's links where they were (the JSON and the CSV of all
 * three the same).
 */
TEST(reads_version_6_and_7_files)
{
	struct iolat_session s = { .nr_devs = 1 };
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	struct iolat_info info = { .abi_version = IOLAT_ABI_VERSION };
	struct iolat_run run = { .seconds = 1 };
	struct iolat_dev_counters c = { .valid = true, .major = 250 };
	struct iolat_file_block_head bh;
	static unsigned char buf[1 << 20];
	struct iolat_record r;
	struct iolat_file *f;
	FILE *in, *out[2];
	unsigned int i, v;

	ASSERT_EQ(0, sh("mkdir -p " DIR));
	s.devs = nullb0_dev();
	ASSERT_TRUE(h && s.devs);
	iolat_file_header_fill(h, &s, &info, 1000000000ULL, 0);
	EXPECT_EQ(8, h->version);
	EXPECT_EQ(sizeof(struct iolat_record), h->record_size);
	f = iolat_file_create(DIR "/v8.rec", h);
	ASSERT_NE(NULL, f);
	for (i = 0; i < 3000; i++) {
		memset(&r, 0, sizeof(r));
		r.major = 250;
		r.q_ns = 1000000000ULL + 100000ULL * i;
		r.c_ns = r.q_ns + 50000 + 10 * i;
		r.bytes = 4096;
		r.nr_bios = 1;
		r.op = i % 3 ? IOLAT_OP_READ : IOLAT_OP_WRITE;
		r.cgroup = 4242;
		/* a stack's request below an I/O: its link in the CSV */
		if (i % 5 == 0) {
			r.flags = IOLAT_F_STACK;
			r.link = 1 + i / 5;
		}
		ASSERT_EQ(0, iolat_file_records(f, &r));
	}
	c.ios[IOLAT_OP_READ] = 2000;
	c.ios[IOLAT_OP_WRITE] = 1000;
	run.delivered = 3000;
	run.stats.written = 3000;
	ASSERT_EQ(0, iolat_file_end(f, 2000000000ULL, &run, 1, &c));
	ASSERT_EQ(0, iolat_file_close(f));

	in = fopen(DIR "/v8.rec", "r");
	out[0] = fopen(DIR "/v6.rec", "w");
	out[1] = fopen(DIR "/v7.rec", "w");
	ASSERT_TRUE(in && out[0] && out[1]);
	ASSERT_EQ(1, fread(h, sizeof(*h), 1, in));
	for (v = 0; v < 2; v++) {
		h->version = 6 + v;
		h->record_size = v ? sizeof(struct iolat_record) :
				     IOLAT_FILE_V6_RECORD;
		fwrite(h, sizeof(*h), 1, out[v]);
	}
	while (fread(&bh, sizeof(bh), 1, in) == 1) {
		ASSERT_GE(sizeof(buf), bh.len);
		ASSERT_EQ(bh.len, fread(buf, 1, bh.len, in));
		for (v = 0; v < 2; v++) {
			if (bh.type != IOLAT_FB_RECORDS)
				put_block(out[v], bh.type, buf, bh.len);
			else
				put_old_records(out[v], buf,
						bh.len / sizeof(struct iolat_record),
						v ? sizeof(struct iolat_record) :
						    IOLAT_FILE_V6_RECORD);
		}
	}
	fclose(in);
	ASSERT_EQ(0, fclose(out[0]));
	ASSERT_EQ(0, fclose(out[1]));
	for (v = 6; v <= 8; v++)
		ASSERT_EQ(0, sh("%s report -o json %s/v%u.rec >%s/v%u.json 2>%s/err && %s report -o csv %s/v%u.rec >%s/v%u.csv 2>>%s/err",
				cli(), DIR, v, DIR, v, DIR, cli(), DIR, v, DIR, v, DIR))
			TH_LOG("%s", slurp(DIR "/err"));
	EXPECT_EQ(0, sh("cmp %s/v8.json %s/v6.json && cmp %s/v8.json %s/v7.json", DIR, DIR, DIR, DIR));
	EXPECT_EQ(0, sh("cmp %s/v8.csv %s/v6.csv && cmp %s/v8.csv %s/v7.csv", DIR, DIR, DIR, DIR));
	/* the links are in the CSV, where they were */
	EXPECT_EQ(0, sh("grep -q ',600$' %s/v6.csv", DIR));
	EXPECT_EQ(2000, json_after(strstr(slurp(DIR "/v6.json"), "\"op\": \"read\""),
				   "\"ios\": "));
	free(s.devs);
	free(h);
}

TEST_HARNESS_MAIN
