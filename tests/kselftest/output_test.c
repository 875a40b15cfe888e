// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests of the CLI's own work on a live session: JSON against CSV
 * of the same requests, record files that survive signals, the wall
 * clock, a reader of a pipe, and the one-line error without the module.
 * Run as root inside a guest of tests/guest/run, by tests/check.sh, with
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

FIXTURE(output) {
	int unused;
};

FIXTURE_SETUP(output)
{
	if (sh("command -v fio >/dev/null") != 0)
		SKIP(return, "fio is not installed");
	ASSERT_EQ(0, module_load());
	ASSERT_EQ(0, nullb0_ready("poll_queues=2"));
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(output)
{
	EXPECT_EQ(0, dmesg_bad_reports());
}

/* Without the module: one clear line naming modprobe, and a failure. */
TEST_F_TIMEOUT(output, no_module_clear_error, 300)
{
	const char *err;
	int st;

	ASSERT_EQ(0, module_unload());
	st = sh("%s record -d nullb0 -t 1 >%s 2>%s", env("IOLAT_CLI"), OUT, ERR);
	err = slurp(ERR);
	TH_LOG("stderr: %s", err);
	EXPECT_NE(0, st);
	EXPECT_EQ(1, count_lines(err));
	EXPECT_NE(NULL, strstr(err, "modprobe iolat"));
	EXPECT_EQ(0U, strlen(slurp(OUT)));
	ASSERT_EQ(0, module_load());
}

/*
 * `trace -o json` against `trace -o csv` of the same requests: two
 * sessions at once, the CSV one around the JSON one, both on nullb0
 * while fio's 500 reads and writes run; tests/kselftest/json_vs_csv.py
 * parses every JSON line and pairs the requests one to one, every field
 * equal but the times each session's probes take themselves.  Those are
 * checked by their order, not within a tolerance (under TCG on a busy
 * host the vCPU can be descheduled between the two sessions' probes of
 * one event for longer than any bound): the CSV session's probe runs
 * first, so each JSON stamp lies between the CSV's of the same stage and
 * of the next.  The queue depths too are each session's own count at its
 * probe, which a completion on another CPU or in a softirq between the
 * two probes changes for one of them: 90% of them must agree.  The
 * kernel's count of the device's requests is the rows'.
 */
TEST_F_TIMEOUT(output, trace_json_matches_csv, 300)
{
	long long before = completed("nullb0"), done;
	int st;

	st = sh("%s trace -o csv -d nullb0 -- sh -c '%s trace -o json -d nullb0 -- fio --name=j --filename=/dev/nullb0 --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=500 --size=64M --eta=never --output=/dev/null >/tmp/iolat_trace.jsonl 2>/tmp/iolat_trace.jerr' >" CSV " 2>%s",
		env("IOLAT_CLI"), env("IOLAT_CLI"), ERR);
	ASSERT_EQ(0, st) TH_LOG("%s %s", slurp(ERR), slurp("/tmp/iolat_trace.jerr"));
	done = completed("nullb0") - before;
	TH_LOG("nullb0 completed %lld requests", done);
	EXPECT_EQ(done, sh_number("wc -l </tmp/iolat_trace.jsonl%s", ""));
	st = sh("python3 " IOLAT_KSFT_DIR "/json_vs_csv.py /tmp/iolat_trace.jsonl " CSV " >" OUT " 2>&1");
	TH_LOG("%s", slurp(OUT));
	EXPECT_EQ(0, st);
}

/*
 * A recorder ended by SIGHUP (an ssh session that drops) or SIGTERM
 * writes its summary and a whole file, which report reads with exit 0;
 * one killed with SIGKILL leaves a file that report reads up to the last
 * second's flush, with a warning and exit 1 (a 0-byte file).
 */
TEST_F_TIMEOUT(output, record_file_survives_signals, 300)
{
	static const int sigs[] = { SIGHUP, SIGTERM, SIGKILL };
	char cmd[512], *err;
	unsigned int i;
	pid_t cli;
	int st;

	for (i = 0; i < 3; i++) {
		unlink("/tmp/iolat_sig.rec");
		snprintf(cmd, sizeof(cmd),
			 "exec %s record -d nullb0 -w /tmp/iolat_sig.rec -o json >%s 2>%s",
			 env("IOLAT_CLI"), OUT, ERR);
		cli = spawn_tracing(cmd, 60);
		ASSERT_LT(0, cli) TH_LOG("%s", slurp(ERR));
		/* 2 s of reads: the file was flushed at least once */
		ASSERT_EQ(0, sh("fio --name=s --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=psync --runtime=2 --time_based --size=64M --eta=never --output=/dev/null"));
		kill(cli, sigs[i]);
		ASSERT_EQ(0, wait_for(cli, 60, &st));
		st = sh("%s report -o json /tmp/iolat_sig.rec >%s.report 2>%s.report",
			env("IOLAT_CLI"), OUT, ERR);
		err = slurp(ERR ".report");
		TH_LOG("signal %d: report exit %d, %lld records; %s", sigs[i], st,
		       (long long)json_num(strstr(slurp(OUT ".report"), "\"Q2C\""), "count"),
		       err);
		EXPECT_LT(0, json_num(strstr(slurp(OUT ".report"), "\"Q2C\""), "count"));
		if (sigs[i] == SIGKILL) {
			/* cut at the last flush, or in a block stdio wrote */
			EXPECT_EQ(1, st);
			EXPECT_NE(NULL, strstr(err, "iolat: warning: /tmp/iolat_sig.rec "));
			EXPECT_NE(NULL, strstr(err, " bytes from there on are lost"));
		} else {
			EXPECT_EQ(0, st) TH_LOG("%s", err);
			/* the live summary is there, and the file says the same */
			EXPECT_EQ(json_sum(slurp(OUT), "delivered"),
				  json_sum(slurp(OUT ".report"), "delivered"));
			EXPECT_LT(0, json_sum(slurp(OUT), "delivered"));
		}
		free(err);
	}
}

/*
 * record --save-only writes the records to the file and nothing else:
 * no report on its output, a line saying how many were saved, and the
 * file holds every read fio did (the device's only I/O), which report
 * reads back.  Without -w it is refused.
 */
TEST_F_TIMEOUT(output, record_save_only, 180)
{
	char *out, *err;

	unlink("/tmp/iolat_save.rec");
	ASSERT_EQ(0, sh("%s record -d nullb0 -w /tmp/iolat_save.rec --save-only -- fio --name=s --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=3000 --size=64M --eta=never --output=/dev/null >%s 2>%s",
			env("IOLAT_CLI"), OUT, ERR)) TH_LOG("%s", slurp(ERR));
	out = slurp(OUT);
	err = slurp(ERR);
	EXPECT_STREQ("", out);
	EXPECT_NE(NULL, strstr(err, "iolat: 3000 records saved to /tmp/iolat_save.rec, 0 dropped"))
		TH_LOG("%s", err);
	ASSERT_EQ(0, sh("%s report -o json /tmp/iolat_save.rec >%s 2>%s",
			env("IOLAT_CLI"), OUT, ERR)) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(3000, json_num(strstr(slurp(OUT), "\"Q2C\""), "count"));
	EXPECT_EQ(2, sh("%s record -d nullb0 --save-only -t 1 >%s 2>%s",
			env("IOLAT_CLI"), OUT, ERR));
	EXPECT_NE(NULL, strstr(slurp(ERR), "--save-only needs -w FILE"));
	free(out);
	free(err);
}

/*
 * trace's CSV and JSON carry the wall clock (no anchor to join
 * other logs by): c_real_ns, the completion on CLOCK_REALTIME, within a
 * minute of the guest's own clock, in every row of both.
 */
TEST_F_TIMEOUT(output, trace_wall_clock, 120)
{
	struct timespec ts;
	double now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec * 1e9 + ts.tv_nsec;
	ASSERT_EQ(0, sh("%s trace -o csv -d nullb0 -- dd if=/dev/nullb0 of=/dev/null bs=4k count=8 iflag=direct >%s 2>%s",
			env("IOLAT_CLI"), CSV, ERR)) TH_LOG("%s", slurp(ERR));
	/* the last column, by its header's name */
	EXPECT_EQ(0, sh("awk -F, -v now=%.0f 'NR == 1 { if ($(NF-1) != \"c_real_ns\") exit 1; next } { n++; d = $(NF-1) - now; if (d < -60e9 || d > 60e9) exit 1 } END { exit !(n >= 8) }' %s",
			now, CSV)) TH_LOG("%s", slurp(CSV));
	ASSERT_EQ(0, sh("%s trace -o json -d nullb0 -- dd if=/dev/nullb0 of=/dev/null bs=4k count=8 iflag=direct >%s 2>%s",
			env("IOLAT_CLI"), OUT, ERR)) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("/usr/bin/python3 -c 'import json, sys\n"
			"rows = [json.loads(l) for l in open(\"%s\")]\n"
			"ok = len(rows) >= 8 and all(abs(r[\"c_real_ns\"] - %.0f) < 60e9 and r[\"c_real_ns\"] - r[\"c_ns\"] == rows[0][\"c_real_ns\"] - rows[0][\"c_ns\"] for r in rows)\n"
			"sys.exit(0 if ok else 1)'", OUT, now)) TH_LOG("%s", slurp(OUT));
}

/*
 * `iolat trace | grep` is live: into a pipe, each request's
 * line arrives while the trace runs, not at its exit.  The trace runs
 * for 600 s; the reads' lines must come through the pipe long before,
 * within 60 s (they come in as many drains as the reads took: counting
 * at the first line's arrival saw 2 of the 9 lines on a busy host).
 */
TEST_F_TIMEOUT(output, trace_live_in_a_pipe, 300)
{
	char cmd[512];
	pid_t cli;
	int st, lines, i;

	unlink(CSV);
	snprintf(cmd, sizeof(cmd),
		 "exec %s trace -o csv -d nullb0 -t 600 2>%s | exec cat >%s",
		 env("IOLAT_CLI"), ERR, CSV);
	cli = spawn_tracing(cmd, 30);
	ASSERT_LT(0, cli) TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, sh("dd if=/dev/nullb0 of=/dev/null bs=4k count=8 iflag=direct 2>/dev/null"));
	EXPECT_EQ(0, wait_text(CSV, "nullb0", 60));
	for (i = 0; (lines = count_lines(slurp(CSV))) < 1 + 8 && i < 600; i++)
		usleep(100000);
	EXPECT_EQ(-1, wait_for(cli, 0, &st)) TH_LOG("the trace ended early");
	sh("pkill -INT -x iolat");
	EXPECT_EQ(cli, waitpid(cli, &st, 0));
	TH_LOG("%d lines through the pipe while tracing", lines);
	EXPECT_LE(1 + 8, lines);
}

IOLAT_HARNESS_MAIN

/*
 * The commands' tables in CSV (user/out/table.c): stat's total row of
 * 64 direct reads on nullb0 says 64 reads, nvme's read row of 32 on the
 * NVMe drive 32 commands, clocktest names the clock in use; each line
 * has the header's number of fields, as Python's csv module reads them.
 */
TEST_F_TIMEOUT(output, tables_in_csv, 300)
{
	static const char *const py =
		"import csv, sys\n"
		"rows = list(csv.DictReader(open(sys.argv[2])))\n"
		"ok = rows and all(None not in r and None not in r.values() for r in rows)\n"
		"if sys.argv[1] == 'stat':\n"
		"    t = [r for r in rows if r['total'] == 'true' and r['device'] == 'nullb0']\n"
		"    ok = ok and len(t) == 1 and round(float(t[0]['r_s']) * float(t[0]['seconds'])) == 64 and 'kernel.util' in t[0]\n"
		"elif sys.argv[1] == 'nvme':\n"
		"    t = [r for r in rows if r['opcode'] == 'read' and r['admin'] == '0']\n"
		"    q = sum(int(r['commands']) for r in rows if r['qid'] and r['admin'] == '0')\n"
		"    ok = ok and len(t) == 1 and int(t[0]['commands']) == 32 and q >= 32\n"
		"else:\n"
		"    ok = ok and [r['name'] for r in rows if r['in_use'] == 'true'] != []\n"
		"sys.exit(0 if ok else 1)\n";
	FILE *f = fopen("/tmp/iolat_tables.py", "w");

	ASSERT_NE(NULL, f);
	fputs(py, f);
	fclose(f);
	ASSERT_EQ(0, sh("%s stat -o csv -d nullb0 1 -- dd if=/dev/nullb0 of=/dev/null bs=4k count=64 iflag=direct >%s 2>%s",
			env("IOLAT_CLI"), CSV, ERR)) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("/usr/bin/python3 /tmp/iolat_tables.py stat %s", CSV))
		TH_LOG("%s", slurp(CSV));
	ASSERT_EQ(0, sh("%s nvme -o csv -d nvme0n1 -- dd if=/dev/nvme0n1 of=/dev/null bs=4k count=32 iflag=direct >%s 2>%s",
			env("IOLAT_CLI"), CSV, ERR)) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("/usr/bin/python3 /tmp/iolat_tables.py nvme %s", CSV))
		TH_LOG("%s", slurp(CSV));
	ASSERT_EQ(0, sh("%s clocktest -o csv -n 1000 >%s 2>%s",
			env("IOLAT_CLI"), CSV, ERR)) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("/usr/bin/python3 /tmp/iolat_tables.py clocktest %s",
			CSV)) TH_LOG("%s", slurp(CSV));
}
