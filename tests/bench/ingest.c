// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI's ingest rate: synthetic records, as the module writes them
 * in its rings, through the same device lookup and analysis as
 * `iolat record -i 1` takes them in place from the rings mapped
 * (histograms per device, op and stage, per interval and over the run;
 * sizes, queue depths, offsets, processes), on one core.  Prints one
 * JSON line; exits 1 if the rate is below --min (records/s).
 *
 *   ingest [--records N] [--runs R] [--min RATE] [--plain]
 *
 * --plain: the cost stage's stream instead (tests/bench/cost.py): one
 * device, one process, reads without a scheduler's I, no intervals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "out/output.h"

#define PER_MSG		600	/* records per READ message (~64 KiB) */
#define REC_SIZE	IOLAT_RECORD_BLOCK_SIZE	/* a block session's */
#define NR_MSGS		256	/* distinct payloads, reused in turn */
#define T0		1000000000ULL

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static int plain;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Latency-like values: 20 us to ~2.6 ms, log-uniform-ish. */
static uint64_t lat_ns(void)
{
	return (20000ULL << (next_rand() % 8)) + next_rand() % 20000;
}

static void fill(struct iolat_record *r, unsigned int n)
{
	static const char *const comms[] = { "fio", "postgres", "kworker/u8:1",
					     "jbd2/nvme0n1-8" };
	unsigned int i, p;

	memset(r, 0, n * sizeof(*r));
	for (i = 0; i < n; i++) {
		p = plain ? 0 : next_rand() % 4;
		r[i].q_ns = 1000 + next_rand() % 1000;
		r[i].g_ns = r[i].q_ns + 300;
		r[i].i_ns = plain ? 0 : r[i].g_ns + 200;
		r[i].d_ns = r[i].g_ns + 700 + next_rand() % 5000;
		r[i].c_ns = r[i].d_ns + lat_ns();
		r[i].sector = next_rand() % (1ULL << 30);
		r[i].major = 259;
		r[i].minor = plain ? 0 : next_rand() % 2;
		r[i].bytes = 4096U << (next_rand() % 4);
		r[i].flags = IOLAT_F_SUBMITTER;
		r[i].pid = 1000 + p;
		r[i].tgid = 1000 + p;
		snprintf(r[i].comm, sizeof(r[i].comm), "%s", comms[p]);
		r[i].nr_bios = 1;
		r[i].qd_issue = next_rand() % 32;
		r[i].op = plain || next_rand() % 10 < 7 ? IOLAT_OP_READ :
							 IOLAT_OP_WRITE;
	}
}

struct ctx {
	struct iolat_an an;
	struct iolat_session s;
	struct iolat_dev_req devs[2];
	uint64_t base;		/* the last payload's time */
};

/* The session's own (record's, in place from the rings mapped). */
static void on_records(void *arg, unsigned int dev, const void *base,
		       unsigned int n, size_t stride, size_t size)
{
	struct ctx *c = arg;

	iolat_an_records(&c->an, dev, base, n, stride, size);
}

static void on_record(void *arg, unsigned int dev, const struct iolat_record *r)
{
	struct ctx *c = arg;

	iolat_an_record(&c->an, dev, r);
}

static void __attribute__((noinline, noclone))
take(struct iolat_session *s, const unsigned char *p, unsigned int n)
{
	iolat_session_take(s, p, n, REC_SIZE, REC_SIZE);
}

/* Move a payload's records on in time by @by (not timed). */
static void shift(struct iolat_record *r, unsigned int n, uint64_t by)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		r[i].q_ns += by;
		r[i].g_ns += by;
		r[i].i_ns += r[i].i_ns ? by : 0;
		r[i].d_ns += by;
		r[i].c_ns += by;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One pass of @records records at 1M records/s of simulated time. */
static double ingest(struct iolat_record *msgs, uint64_t records)
{
	struct ctx c = { 0 };
	struct iolat_run run = { 0 };
	struct iolat_an_opts o = { .interval_ns = plain ? 0 : 1000000000ULL,
				   .stage = IOLAT_STAGE_Q2C };
	uint64_t done = 0, m = 0, base = T0, *at;
	struct iolat_record *msg;
	unsigned char *payload = malloc(PER_MSG * REC_SIZE);
	double t = 0, t1;
	unsigned int i;
	unsigned int d;

	iolat_an_default_pct(&o);
	iolat_an_init(&c.an, &o, &iolat_out_text);
	c.an.meta.t0_ns = T0;
	for (d = 0; d < 2; d++) {
		snprintf(c.devs[d].name, sizeof(c.devs[d].name), "nvme%un1", d);
		c.devs[d].major = 259;
		c.devs[d].minor = d;
		c.devs[d].nvme_ctrl = -1;
		iolat_an_add_dev(&c.an, c.devs[d].name, 1ULL << 30);
	}
	c.s.devs = c.devs;
	c.s.nr_devs = 2;
	c.s.record = on_record;
	c.s.records = on_records;
	c.s.arg = &c;
	at = calloc(NR_MSGS, sizeof(*at));
	if (!at || !payload)
		exit(2);
	while (done < records) {
		/* PER_MSG records take PER_MSG us of simulated time */
		base = T0 + done * 1000;
		msg = &msgs[(m % NR_MSGS) * PER_MSG];
		shift(msg, PER_MSG, base - at[m % NR_MSGS]);
		at[m++ % NR_MSGS] = base;
		for (i = 0; i < PER_MSG; i++)
			memcpy(payload + i * REC_SIZE, &msg[i], REC_SIZE);
		t1 = now_s();
		take(&c.s, payload, PER_MSG);
		if (!(m % 16))
			iolat_an_mark(&c.an, base);
		t += now_s() - t1;
		done += PER_MSG;
	}
	free(at);
	free(payload);
	c.base = base;
	run.seconds = records / 1e6;
	run.delivered = done;
	iolat_an_finish(&c.an, c.base + 1000000, &run, NULL);
	if (c.an.records != done) {
		fprintf(stderr, "ingest: %llu records in, %llu analysed\n",
			(unsigned long long)done,
			(unsigned long long)c.an.records);
		exit(2);
	}
	iolat_an_free(&c.an);
	iolat_dev_lookup_free(&c.s.lookup);
	return done / t;
}

int main(int argc, char **argv)
{
	uint64_t records = 10000000;
	double min = 0, best = 0, r;
	int runs = 3, i;
	struct iolat_record *msgs;

	for (i = 1; i < argc; i++) {
		const char *val = i + 1 < argc ? argv[i + 1] : "0";

		if (!strcmp(argv[i], "--plain"))
			plain = 1;
		else if (!strcmp(argv[i], "--records") && ++i)
			records = strtoull(val, NULL, 10);
		else if (!strcmp(argv[i], "--runs") && ++i)
			runs = atoi(val);
		else if (!strcmp(argv[i], "--min") && ++i)
			min = strtod(val, NULL);
	}
	msgs = malloc(sizeof(*msgs) * PER_MSG * NR_MSGS);
	if (!msgs)
		return 2;
	fill(msgs, PER_MSG * NR_MSGS);
	/* the analysis' text goes nowhere: only its cost is measured */
	if (!freopen("/dev/null", "w", stdout))
		return 2;
	for (i = 0; i < runs; i++) {
		r = ingest(msgs, records);
		if (r > best)
			best = r;
	}
	fprintf(stderr, "{\"records\":%llu,\"runs\":%d,\"record_size\":%d,\"best_records_per_s\":%.0f,\"min\":%.0f}\n",
		(unsigned long long)records, runs, REC_SIZE, best, min);
	free(msgs);
	return best >= min ? 0 : 1;
}
