// SPDX-License-Identifier: GPL-2.0
/*
 * The smoke version of `make bench` (tests/bench/bench.py run --smoke):
 * fio 4k random reads on null_blk at QD 1 and QD 32 under no tracing,
 * iolat's counters, its in-kernel aggregation, its record stream and
 * blktrace.  The IOPS ratios are printed, not judged: they are wall-clock
 * rates under TCG, which move by 10% from run to run and with the host's
 * load, and make check may not depend on the host's speed.  The overhead
 * is judged by make check's cost stage instead (tests/bench/cost.sh):
 * guest instructions per I/O under -icount, deterministic, against
 * budgets, with a negative control that must exceed them; the ratios
 * are `make bench`'s, with rounds and medians.  What is checked here is
 * that every mode ran and that each iolat mode accounted for exactly the
 * I/Os fio did, without a drop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"
#include "kselftest_harness.h"

#define DIR "/tmp/iolat-bench-smoke"
#define MODES 5

static const char *const modes[MODES] = {
	"none", "counters", "aggregate", "stream", "blktrace",
};

/* A run of runs.txt: "key=value ..." */
struct run {
	int qd, jobs, mode;
	long long iops, fio_ios, delivered, written, dropped, counted;
	int cli_status;
};

static long long field(const char *line, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p && !strncmp(line, pat + 1, strlen(pat + 1)))
		p = line - 1;
	return p ? atoll(p + strlen(pat)) : -1;
}

static int parse(const char *line, struct run *r)
{
	char mode[32];
	const char *p = strstr(line, "mode=");
	int i;

	if (!p || sscanf(p, "mode=%31s", mode) != 1)
		return -1;
	r->mode = -1;
	for (i = 0; i < MODES; i++)
		if (!strcmp(mode, modes[i]))
			r->mode = i;
	r->qd = field(line, "qd");
	r->jobs = field(line, "jobs");
	r->iops = field(line, "iops");
	r->fio_ios = field(line, "fio_ios");
	r->delivered = field(line, "delivered");
	r->written = field(line, "written");
	r->dropped = field(line, "dropped");
	r->counted = field(line, "counted");
	r->cli_status = field(line, "cli_status");
	return r->mode < 0 ? -1 : 0;
}

FIXTURE(bench) {
};

FIXTURE_SETUP(bench)
{
	if (sh("command -v fio >/dev/null && command -v blktrace >/dev/null && command -v python3 >/dev/null"))
		SKIP(return, "fio, blktrace or python3 is not installed");
	/* bench.py loads null_blk with its one device: not an earlier test's */
	ASSERT_EQ(0, sh("! test -d /sys/module/null_blk || modprobe -r null_blk"))
		TH_LOG("null_blk is in use: an earlier test left a device");
}

FIXTURE_TEARDOWN(bench)
{
	sh("rmmod null_blk 2>/dev/null; true");
}

/* 10 runs of 2 s, each with its tracer's start and stop: well under 600 s */
TEST_F_TIMEOUT(bench, smoke_every_mode_accounts_for_every_io, 600)
{
	struct run runs[16], *base;
	char line[1024];
	int n = 0, i, j, seen[2][MODES] = { 0 };
	FILE *f;

	/* the CLI is build/iolat of the tree that has the bench */
	ASSERT_EQ(0, sh("rm -rf %s && python3 \"$(dirname %s)/../tests/bench/bench.py\" run --smoke --out %s >%s 2>&1",
			DIR, env("IOLAT_CLI"), DIR, OUT)) {
		char *log = slurp(OUT);

		TH_LOG("bench.py failed:\n%s", log ? log : "");
		free(log);
	}
	f = fopen(DIR "/runs.txt", "r");
	ASSERT_NE(NULL, f);
	while (n < 16 && fgets(line, sizeof(line), f)) {
		ASSERT_EQ(0, parse(line, &runs[n])) TH_LOG("bad line: %s", line);
		n++;
	}
	fclose(f);
	ASSERT_EQ(2 * MODES, n);
	for (i = 0; i < n; i++) {
		struct run *r = &runs[i];

		seen[r->qd == 32][r->mode]++;
		EXPECT_GT(r->fio_ios, 0);
		EXPECT_GT(r->iops, 0);
		switch (r->mode) {
		case 1:	/* counters: the device's reads, exactly fio's */
			EXPECT_EQ(0, r->cli_status);
			EXPECT_EQ(r->fio_ios, r->counted);
			break;
		case 2:	/* aggregate and stream: every I/O, none dropped */
		case 3:
			EXPECT_EQ(0, r->cli_status);
			EXPECT_EQ(0, r->dropped);
			EXPECT_EQ(r->fio_ios, r->written);
			EXPECT_EQ(r->fio_ios, r->delivered);
			EXPECT_EQ(r->fio_ios, r->counted);
			break;
		case 4:
			EXPECT_EQ(0, r->dropped);
			break;
		}
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < MODES; j++)
			EXPECT_EQ(1, seen[i][j]) TH_LOG("QD %d, mode %d", i ? 32 : 1,
						       j);
	/* the ratios, for the log */
	for (i = 0; i < n; i++) {
		base = NULL;
		for (j = 0; j < n; j++)
			if (runs[j].qd == runs[i].qd && runs[j].mode == 0)
				base = &runs[j];
		if (base && base->iops)
			TH_LOG("QD %2d %-9s %8lld IOPS, %.3f of no tracing",
			       runs[i].qd, modes[runs[i].mode], runs[i].iops,
			       (double)runs[i].iops / base->iops);
	}
	EXPECT_EQ(0, dmesg_bad_reports());
}

IOLAT_HARNESS_MAIN
