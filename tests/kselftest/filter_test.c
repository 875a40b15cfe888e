// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests of who and what is traced: the process attribution of each
 * request, and the filters (pid, tid, comm, op, latency, device), each
 * against fio's own counts.  Run as root inside a guest of tests/guest/run, by tests/check.sh, with
 * IOLAT_KO (the module built for the running kernel) and IOLAT_CLI (the
 * iolat binary).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(filter) {
	int unused;
};

FIXTURE_SETUP(filter)
{
	if (sh("command -v fio >/dev/null") != 0)
		SKIP(return, "fio is not installed");
	ASSERT_EQ(0, module_load());
	ASSERT_EQ(0, nullb0_ready("poll_queues=2"));
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(filter)
{
	EXPECT_EQ(0, dmesg_bad_reports());
}

struct proc_check {
	unsigned int tgid[2];
	const char *comm[2];
	long mine[2], other;
};

static void proc_row(void *arg, const struct row *r)
{
	struct proc_check *c = arg;
	int k;

	for (k = 0; k < 2; k++) {
		if (r->tgid == c->tgid[k] && !strcmp(r->comm, c->comm[k])) {
			c->mine[k]++;
			return;
		}
	}
	c->other++;
}

/* Start fio as @comm (a symlink named so) with @args; its pid. */
static pid_t fio_as(const char *comm, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "ln -sf \"$(command -v fio)\" /tmp/%s && exec /tmp/%s %s",
		 comm, comm, args);
	return spawn_sh(cmd);
}

static long long fio_total_ios(const char *path)
{
	return json_sum(slurp(path), "total_ios");
}

/* How two_processes() traces: every process, or a pid filter. */
enum two_ways {
	TWO_ALL,	/* trace, no filter */
	TWO_PID,	/* trace -p */
	TWO_PID_AGG,	/* record -A -p: histograms, submitters for the filter */
};

/*
 * Two fio processes with different names, direct I/O: every request is
 * attributed to its own process (tgid and comm, from the submitter's
 * context), none to a kworker; with a pid filter, exactly one process's
 * requests are recorded and the other's are counted as filtered.  An
 * aggregating session with a pid filter keeps the submitters only for
 * it (kmod/inflight.c): its histograms count exactly the one process's.
 */
static void two_processes(struct __test_metadata *_metadata,
			  enum two_ways way)
{
	const char *job = "--thread --startdelay=3 --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=3000 --size=256M --eta=never --output-format=json";
	struct proc_check c = { .comm = { "fio-alpha", "fio-beta" } };
	char args[512], pidopt[32] = "";
	long long before = completed("nullb0"), ios[2];
	bool filter = way != TWO_ALL;
	const char *out;
	pid_t pid[2];
	int k, st;

	for (k = 0; k < 2; k++) {
		snprintf(args, sizeof(args), "--name=%s %s --output=/tmp/%s.json",
			 c.comm[k], job, c.comm[k]);
		pid[k] = fio_as(c.comm[k], args);
		ASSERT_LT(0, pid[k]);
		c.tgid[k] = pid[k];
	}
	if (filter)
		snprintf(pidopt, sizeof(pidopt), "-p %d", pid[0]);
	/* until both have exited: they stay zombies, our children, till reaped */
	st = sh("%s %s -d nullb0 %s -- sh -c 'alive() { s=$(sed \"s/.*) //\" /proc/$1/stat 2>/dev/null | cut -c1); [ -n \"$s\" ] && [ \"$s\" != Z ]; }; while alive %d || alive %d; do sleep 0.1; done' >" CSV " 2>%s",
		env("IOLAT_CLI"),
		way == TWO_PID_AGG ? "record -A -o json --summary /tmp/agg.sum" :
				     "trace -o csv",
		pidopt, pid[0], pid[1], ERR);
	for (k = 0; k < 2; k++)
		waitpid(pid[k], NULL, 0);
	out = slurp(ERR);
	TH_LOG("%s", out);
	ASSERT_EQ(0, st);
	if (way == TWO_PID_AGG) {
		/* the session's read I/Os, from its histograms */
		ASSERT_EQ(0, sh("python3 -c 'import json\n"
				"j = json.load(open(\"" CSV "\"))\n"
				"print(sum(o[\"ios\"] for d in j[\"devices\"] for o in d[\"ops\"] if o[\"op\"] == \"read\"))' >/tmp/agg.n"));
		c.mine[0] = strtol(slurp("/tmp/agg.n"), NULL, 10);
	} else {
		ASSERT_LE(0, csv_rows(CSV, proc_row, &c));
	}
	ios[0] = fio_total_ios("/tmp/fio-alpha.json");
	ios[1] = fio_total_ios("/tmp/fio-beta.json");
	TH_LOG("alpha %lld I/Os, %ld recorded; beta %lld, %ld recorded; others %ld; device completed %lld",
	       ios[0], c.mine[0], ios[1], c.mine[1], c.other,
	       completed("nullb0") - before);
	EXPECT_EQ(3000, ios[0]);
	EXPECT_EQ(3000, ios[1]);
	EXPECT_EQ(ios[0], c.mine[0]);
	EXPECT_EQ(filter ? 0 : ios[1], c.mine[1]);
	EXPECT_EQ(0, c.other);
	if (way == TWO_PID_AGG) {
		EXPECT_EQ(3000, json_sum(slurp("/tmp/agg.sum"), "filtered"));
	} else if (filter) {
		EXPECT_NE(NULL, strstr(out, "3000 filtered"));
	}
	EXPECT_EQ(ios[0] + ios[1], completed("nullb0") - before);
}

TEST_F_TIMEOUT(filter, per_process_attribution, 300)
{
	two_processes(_metadata, TWO_ALL);
}

TEST_F_TIMEOUT(filter, pid_filter_exact, 300)
{
	two_processes(_metadata, TWO_PID);
}

TEST_F_TIMEOUT(filter, pid_filter_aggregated, 300)
{
	two_processes(_metadata, TWO_PID_AGG);
}

struct op_check {
	long rows, writes, gamma;
};

static void op_row(void *arg, const struct row *r)
{
	struct op_check *c = arg;

	c->rows++;
	c->writes += !strcmp(r->op, "write");
	c->gamma += !strcmp(r->comm, "fio-gamma");
}

/* Each row's latency (first stage to completion), by device, for -m. */
struct lat_rows {
	const char *slow;	/* the device whose rows are counted apart */
	long n, slow_n, shorter;
	unsigned long long min_ns;	/* the threshold */
};

static void lat_row(void *arg, const struct row *r)
{
	struct lat_rows *l = arg;

	l->n++;
	l->slow_n += !strcmp(r->dev, l->slow);
	l->shorter += r->t[4] - row_first(r) < l->min_ns;
}

/*
 * -m at a threshold between devices' latencies, in one session: nullb0,
 * which completes at once (microseconds), and two null_blk devices whose
 * timers (0.6 ms and 2 ms) never fire early.  -m 1ms keeps every request
 * of the slow one (its timer says so), never a row shorter than 1 ms
 * (the middle one's 0.6 ms requests are just below it: a threshold
 * taken for half of it keeps them), and counts the rest filtered: most
 * of nullb0's and the middle one's (a request the guest delayed past
 * 1 ms is kept).  A threshold from another run of the same job would not
 * do: the guest's speed moves between runs (on 5.4 a whole run once lay
 * above the median of the one before).
 */
static void latency_split(struct __test_metadata *_metadata)
{
	struct lat_rows l = { .min_ns = 1000000 };
	char slow[32], mid[32], want[64], *err;
	int st;

	ASSERT_EQ(0, nullb_configfs());
	ASSERT_EQ(0, nullb_create("iolat_slow", 2000000, slow, sizeof(slow)));
	ASSERT_EQ(0, nullb_create("iolat_mid", 600000, mid, sizeof(mid)));
	l.slow = slow;
	st = sh("%s trace -o csv -d nullb0 -d %s -d %s -m 1ms -- sh -c '"
		"fio --name=f --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=500 --size=64M --output=/dev/null & "
		"fio --name=m --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=100 --size=64M --output=/dev/null & "
		"fio --name=s --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=100 --size=64M --output=/dev/null; wait' >" CSV " 2>%s",
		env("IOLAT_CLI"), slow, mid, mid, slow, ERR);
	err = slurp(ERR);
	nullb_remove("iolat_slow");
	nullb_remove("iolat_mid");
	ASSERT_EQ(0, st) TH_LOG("%s", err);
	ASSERT_LE(0, csv_rows(CSV, &lat_row, &l));
	TH_LOG("-m 1ms: %ld of 700 kept, %ld of them %s's, %ld shorter; %s",
	       l.n, l.slow_n, slow, l.shorter, err);
	EXPECT_EQ(0, l.shorter);
	EXPECT_EQ(100, l.slow_n);
	EXPECT_GT(600, l.n);
	snprintf(want, sizeof(want), " %ld filtered", 700 - l.n);
	EXPECT_NE(NULL, strstr(err, want));
}

/*
 * The op and comm filters keep exactly the writes of fio-gamma; a
 * minimum latency of 10 s keeps nothing; one between two devices'
 * latencies splits their requests (latency_split()).  What they drop is
 * counted.
 */
TEST_F_TIMEOUT(filter, op_comm_latency_filters, 300)
{
	const char *job = "--name=g --filename=/dev/nullb0 --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=2000 --size=64M --eta=never --output-format=json --output=/tmp/fio-gamma.json";
	struct op_check c = { 0 };
	long long w0 = completed_writes("nullb0"), writes, fio_ios;
	char want[64];
	const char *err;
	int st, n;

	st = sh("ln -sf \"$(command -v fio)\" /tmp/fio-gamma && %s trace -o csv -d nullb0 --op write -c fio-gamma -- /tmp/fio-gamma %s >" CSV " 2>%s",
		env("IOLAT_CLI"), job, ERR);
	err = slurp(ERR);
	TH_LOG("%s", err);
	ASSERT_EQ(0, st);
	ASSERT_LE(0, csv_rows(CSV, op_row, &c));
	writes = completed_writes("nullb0") - w0;
	fio_ios = json_sum(slurp("/tmp/fio-gamma.json"), "total_ios");
	TH_LOG("%ld records, %ld writes, %ld by fio-gamma; fio %lld I/Os, device %lld writes",
	       c.rows, c.writes, c.gamma, fio_ios, writes);
	EXPECT_EQ(2000, fio_ios);
	EXPECT_LT(0, writes);
	EXPECT_EQ(writes, c.rows);
	EXPECT_EQ(c.rows, c.writes);
	EXPECT_EQ(c.rows, c.gamma);
	snprintf(want, sizeof(want), "%lld filtered", fio_ios - writes);
	EXPECT_NE(NULL, strstr(err, want));

	st = sh("%s trace -o csv -d nullb0 -m 10s -- fio %s >" CSV " 2>%s",
		env("IOLAT_CLI"), job, ERR);
	err = slurp(ERR);
	TH_LOG("%s", err);
	ASSERT_EQ(0, st);
	n = csv_rows(CSV, op_row, &c);
	EXPECT_EQ(0, n);
	EXPECT_NE(NULL, strstr(err, " 0 requests traced"));
	EXPECT_NE(NULL, strstr(err, "2000 filtered"));

	latency_split(_metadata);
}

/* The rows' submitters, for the -p and --tid filters. */
struct who_rows {
	long rows, other_tgid;
	unsigned int pids[8];	/* distinct pids (thread ids) seen */
	unsigned int nr_pids;
	unsigned int tgid;	/* the process wanted */
};

static void who_row(void *arg, const struct row *r)
{
	struct who_rows *w = arg;
	unsigned int i;

	w->rows++;
	w->other_tgid += r->tgid != w->tgid;
	for (i = 0; i < w->nr_pids && w->pids[i] != r->pid; i++)
		;
	if (i == w->nr_pids && w->nr_pids < 8)
		w->pids[w->nr_pids++] = r->pid;
}

/*
 * -p takes a process, --tid one of its threads: fio with two job
 * threads (--thread) reading nullb0.  -p FIO keeps the reads of both
 * threads and no other process's; --tid, of one of them (which /proc
 * lists as fio's), keeps exactly its reads.
 */
TEST_F_TIMEOUT(filter, pid_and_tid_filters, 300)
{
	struct who_rows w = { 0 };
	unsigned int tid;
	pid_t fio;
	int i, st;

	/* 200 reads/s a thread: every record fits the buffers */
	fio = spawn_sh("exec fio --thread --numjobs=2 --name=t --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=psync --rate_iops=200 --time_based --runtime=60 --size=64M --eta=never --output=/dev/null");
	ASSERT_LT(0, fio);
	/* fio's main thread and its two job threads (and its helper) */
	for (i = 0; i < 300; i++) {
		if (!sh("test $(ls /proc/%d/task | wc -l) -ge 3", fio))
			break;
		usleep(100000);
	}
	ASSERT_GT(300, i);
	usleep(500000);

	st = sh("%s trace -o csv -d nullb0 -p %d -t 1 >" CSV " 2>" ERR,
		env("IOLAT_CLI"), fio);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	w.tgid = fio;
	ASSERT_LE(0, csv_rows(CSV, who_row, &w));
	TH_LOG("-p %d: %ld rows, %u threads, %ld of another process", fio,
	       w.rows, w.nr_pids, w.other_tgid);
	EXPECT_LT(0, w.rows);
	EXPECT_EQ(0, w.other_tgid);
	EXPECT_EQ(2, w.nr_pids);
	/* a thread that read, which /proc lists as one of fio's */
	tid = w.pids[0];
	ASSERT_NE((unsigned int)fio, tid);
	ASSERT_EQ(0, sh("test -d /proc/%d/task/%u", fio, tid));

	memset(&w, 0, sizeof(w));
	w.tgid = fio;
	st = sh("%s trace -o csv -d nullb0 --tid %u -t 1 >" CSV " 2>" ERR,
		env("IOLAT_CLI"), tid);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LE(0, csv_rows(CSV, who_row, &w));
	TH_LOG("--tid %u: %ld rows, %u threads (first %u), %ld of another process",
	       tid, w.rows, w.nr_pids, w.pids[0], w.other_tgid);
	kill(-fio, SIGKILL);
	waitpid(fio, NULL, 0);
	EXPECT_LT(0, w.rows);
	EXPECT_EQ(0, w.other_tgid);
	EXPECT_EQ(1, w.nr_pids);
	EXPECT_EQ(tid, w.pids[0]);
}

/*
 * I/O on null_blk and on the NVMe drive at once, tracing null_blk only:
 * exactly its requests are recorded (the CLI fails on any other).
 */
TEST_F_TIMEOUT(filter, device_filter_exact, 300)
{
	long long before, delivered;
	const char *out;
	int st;

	if (access("/dev/nvme0n1", F_OK))
		SKIP(return, "no NVMe drive in this guest");
	before = completed("nullb0");
	st = sh("%s record -o json -d nullb0 -- sh -c 'fio --name=n --filename=/dev/nvme0n1 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=2000 --size=64M --eta=never --output=/dev/null & fio --name=b --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=3000 --size=64M --eta=never --output=/dev/null; wait' >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	out = slurp(OUT);
	TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, st);
	delivered = json_sum(out, "delivered");
	EXPECT_EQ(completed("nullb0") - before, delivered);
	EXPECT_EQ(3000, delivered);
	EXPECT_EQ(0, json_sum(out, "dropped"));
}

/*
 * Each request's cgroup against the kernel's own count per cgroup, the
 * fio jobs' clat, the --cgroup filter and writeback: cgroups_vs_io_stat.py
 * (its comment says what it checks) on cgroup v2, with a device of its
 * own for the writeback.
 */
TEST_F_TIMEOUT(filter, cgroups_match_io_stat, 600)
{
	char wb[32];
	int st;

	ASSERT_EQ(0, nullb_configfs());
	ASSERT_EQ(0, nullb_make("iolatwb", "size=256", wb, sizeof(wb)));
	st = sh("python3 " IOLAT_KSFT_DIR "/cgroups_vs_io_stat.py %s nullb0 /tmp v2 %s >/tmp/iolat_cg.out 2>&1",
		env("IOLAT_CLI"), wb);
	fprintf(stderr, "%s", slurp("/tmp/iolat_cg.out") ?: "");
	nullb_remove("iolatwb");
	EXPECT_EQ(0, st);
}

/*
 * The same on cgroup v1, blkio mounted on its own (after the test above
 * gave the io controller back), against blkio.throttle's counts.
 */
TEST_F_TIMEOUT(filter, cgroups_v1_match_blkio, 600)
{
	int st = sh("python3 " IOLAT_KSFT_DIR "/cgroups_vs_io_stat.py %s nullb0 /tmp v1 >/tmp/iolat_cg1.out 2>&1",
		    env("IOLAT_CLI"));

	fprintf(stderr, "%s", slurp("/tmp/iolat_cg1.out") ?: "");
	EXPECT_EQ(0, st);
}

IOLAT_HARNESS_MAIN
