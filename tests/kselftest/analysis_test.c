// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests of iolat's analysis and outputs on real runs, on
 * kselftest_harness.h (TAP), as root in a guest of tests/guest/run
 * (IOLAT_KO, IOLAT_CLI as for records_test).  The device is a null_blk
 * device with a 100 us service time (irqmode=2), so that latencies have
 * a spread to take percentiles of.
 *   - fio's own completion latency (json+) against iolat's D2C and Q2C
 *     of the same requests;
 *   - `iolat report` on the saved run prints what the live run printed;
 *   - fio's fiologparser_hist.py on iolat's -o fio log agrees with
 *     iolat's percentiles of the same intervals, bin by bin;
 *   - promtool accepts the exposition of report, export --textfile and
 *     export --listen; two runs' expositions add up to the one of both;
 *   - iolat top shows the device and fio, and quits on q;
 *   - record -A: the module's histograms hold every request of the run.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define D "/tmp/iolat_analysis"
#define NOTE(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)
#define PY "/usr/bin/python3"	/* Debian's, with numpy and pandas */

FIXTURE(analysis) {
	char dev[32];
};

FIXTURE_SETUP(analysis)
{
	if (sh("command -v fio >/dev/null") != 0)
		SKIP(return, "fio is not installed");
	ASSERT_EQ(0, module_load());
	ASSERT_EQ(0, nullb_configfs());
	ASSERT_EQ(0, nullb_create("iolat_an", 100000, self->dev,
				  sizeof(self->dev)));
	ASSERT_EQ(0, sh("rm -rf " D " && mkdir -p " D));
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(analysis)
{
	sh("pkill -KILL -f -- --name=iolat_bg; while pgrep -f -- --name=iolat_bg >/dev/null; do sleep 0.1; done");
	nullb_remove("iolat_an");
	EXPECT_EQ(0, dmesg_bad_reports());
}

/* A number after @key in @text from @from on, or NAN. */
static double num_after(const char *from, const char *key)
{
	const char *p = from ? strstr(from, key) : NULL;

	return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* fio's json+ percentile @pct ("50.000000") of the read clat, in ns. */
static double fio_clat(const char *fio, const char *pct)
{
	char key[64];

	snprintf(key, sizeof(key), "\"%s\" : ", pct);
	return num_after(strstr(strstr(fio, "\"clat_ns\""), "\"percentile\""),
			 key);
}

/*
 * fio's histogram layout (FIO_IO_U_PLAT_BITS 6, stat.h), written here
 * from fio's definition rather than taken from the CLI: the lowest value
 * of bin @j; below 128 a bin is one nanosecond.
 */
static double fio_lo(int j)
{
	int eb = (j >> 6) - 1;

	return j < 128 ? j : ldexp(1, eb + 6) + ldexp(j % 64, eb);
}

/*
 * The value fiologparser_hist.py gives bin @j: plat_idx_to_val_coarse()
 * averages the bin's lower edge with the upper edge of the next one
 * (its _plat_idx_to_val() gives a bin below 128 its index, whatever
 * the edge), so a bin is valued at its upper edge.
 */
static double parser_val(int j)
{
	double up = j + 1 < 128 ? j + 1 : fio_lo(j + 2);

	return (fio_lo(j) + up) / 2;
}

#define FIO_BINS	1856
#define FIO_LINES	64

/* The read lines of a fio histogram log: their msec and bins. */
struct fio_log {
	int n;
	long long ms[FIO_LINES];
	long long (*bins)[FIO_BINS];
};

static int fio_log_read(const char *path, struct fio_log *log)
{
	char *text = slurp(path), *line, *save = NULL, *p;
	int j;

	log->n = 0;
	log->bins = calloc(FIO_LINES, sizeof(*log->bins));
	if (!text || !log->bins)
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long long ms = strtoll(line, &p, 10), ddir;

		ddir = strtoll(p + 1, &p, 10);
		strtoll(p + 1, &p, 10);		/* bs */
		if (ddir != 0)
			continue;
		if (log->n == FIO_LINES)
			return -1;
		log->ms[log->n] = ms;
		for (j = 0; j < FIO_BINS; j++)
			log->bins[log->n][j] = strtoll(p + 1, &p, 10);
		if (*p)
			return -1;
		log->n++;
	}
	free(text);
	return 0;
}

/*
 * Bin @k of @bins holds the request of rank ceil(@n * @ppm / 10^6), as
 * iolat_hist_percentile() ranks them (lib/hist.c); @exact is set when
 * the parser's rank, @n * @ppm / 10^6 as a real number, is the last
 * request of that bin.
 */
static int fio_rank_bin(const long long *bins, long long n, long long ppm,
			bool *exact)
{
	long long rank = (n * ppm + 999999) / 1000000, seen = 0;
	int k;

	for (k = 0; k < FIO_BINS - 1; k++) {
		seen += bins[k];
		if (seen >= rank)
			break;
	}
	*exact = seen * 1000000 == n * ppm;
	return k;
}

/*
 * One fio run under `iolat record -w -i 1 -o json`, then three checks on
 * it: fio's clat against D2C and Q2C; report reproducing the live JSON;
 * fiologparser_hist.py on the -o fio log against iolat's intervals.  The
 * parser's intervals must hold the 4000 requests that the p90 and p99 checks
 * need in one of them, and the guest's speed varies with the host and
 * the kernel, also during the test (a rate measured before the run was
 * once 4.5 times the run's own, the host having got busier): so the run
 * is a number of reads, as long as the guest needs for them, and the
 * intervals of the fio log are chosen after it, from the run's own mean
 * rate, to hold 6000 reads each: five intervals, whatever the speed.
 */
#define FIO_READS	30000

TEST_F_TIMEOUT(analysis, fio_report_fiologparser, 600)
{
	double c50, c99, d50, d99, q50, q99;
	char *live, *rep, *fio, *parsed, *line, *save = NULL;
	int st, rows = 0, checked = 0, ms;
	struct fio_log log;
	const char *dev_sum;
	double rate;

	st = sh("%s record -w " D "/run.rec -i 1 -o json -d %s -- fio --name=x --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=%d --size=512M --eta=never --output-format=json+ --output=" D "/fio.json >" D "/live.json 2>%s",
		env("IOLAT_CLI"), self->dev, self->dev, FIO_READS, ERR);
	ASSERT_EQ(0, st) TH_LOG("iolat record: %s", slurp(ERR));
	fio = slurp(D "/fio.json");
	rate = 1000 * json_num(strstr(fio, "\"read\""), "total_ios") /
	       json_num(strstr(fio, "\"read\""), "runtime");
	ASSERT_LT(0, rate);
	ms = ceil(1000 * FIO_READS / 5 / rate);
	NOTE("%d reads at %.0f a second: intervals of %d ms", FIO_READS, rate,
	     ms);
	live = slurp(D "/live.json");
	/* fio's clat of a sync engine is the whole pread(): above D2C */
	c50 = fio_clat(fio, "50.000000");
	c99 = fio_clat(fio, "99.000000");
	dev_sum = strstr(live, "], \"devices\": [");
	ASSERT_NE(NULL, dev_sum);
	d50 = num_after(strstr(dev_sum, "\"D2C\""), "\"p50_ns\": ");
	d99 = num_after(strstr(dev_sum, "\"D2C\""), "\"p99_ns\": ");
	q50 = num_after(strstr(dev_sum, "\"Q2C\""), "\"p50_ns\": ");
	q99 = num_after(strstr(dev_sum, "\"Q2C\""), "\"p99_ns\": ");
	NOTE("fio clat p50 %.0f p99 %.0f ns; iolat D2C p50 %.0f p99 %.0f, Q2C p50 %.0f p99 %.0f ns; fio - D2C at p50: %.0f ns (%.1f%%)",
	     c50, c99, d50, d99, q50, q99, c50 - d50, 100 * (c50 - d50) / c50);
	/* every read fio did, whatever the guest's speed */
	EXPECT_LT(0, json_num(strstr(fio, "\"read\""), "total_ios"));
	EXPECT_EQ(json_num(strstr(fio, "\"read\""), "total_ios"),
		  json_sum(live, "delivered"));
	EXPECT_GE(c50, d50);
	EXPECT_GE(c99, d99);
	EXPECT_GE(c50, q50);
	EXPECT_GE(c99, q99);
	/* docs/output.md: fio adds the syscall and the wakeup, under TCG
	 * tens of microseconds, more on a loaded host: D2C p50 is at least
	 * 30% of fio's p50
	 */
	EXPECT_LE(0.3 * c50, d50);
	/*
	 * And below, the device's own floor: null_blk completes each
	 * request from a 100 us timer (completion_nsec), which never fires
	 * early, so no D2C, and no Q2C, is shorter (a D2C taken too late or
	 * a completion too early would be).  fio's clat bounds them above.
	 */
	EXPECT_LE(100000, d50);
	EXPECT_LE(100000, q50);
	EXPECT_LE(100000, num_after(strstr(dev_sum, "\"D2C\""), "\"min_ns\": "));

	/* report on the saved run: the same JSON, byte for byte */
	st = sh("%s report -i 1 -o json " D "/run.rec >" D "/rep.json 2>%s",
		env("IOLAT_CLI"), ERR);
	ASSERT_EQ(0, st) TH_LOG("iolat report: %s", slurp(ERR));
	rep = slurp(D "/rep.json");
	EXPECT_EQ(0, strcmp(live, rep));
	EXPECT_EQ(0, sh("cmp " D "/live.json " D "/rep.json"));

	/* fio's parser on iolat's fio log, the same intervals */
	ASSERT_EQ(0, sh("%s report -o fio -i %d.%03d " D "/run.rec >" D "/clat_hist.log 2>%s && %s report -o json -i %d.%03d -P 50,90,99 " D "/run.rec >" D "/p.json",
			env("IOLAT_CLI"), ms / 1000, ms % 1000, ERR,
			env("IOLAT_CLI"), ms / 1000, ms % 1000));
	ASSERT_EQ(0, sh("zcat /usr/share/doc/fio/fiologparser_hist.py.gz >" D "/fiologparser_hist.py && " PY " " D "/fiologparser_hist.py --noweight -i %d --percentiles 90:99 " D "/clat_hist.log >" D "/parsed.csv 2>%s",
			ms, ERR)) TH_LOG("fiologparser_hist.py: %s", slurp(ERR));
	ASSERT_EQ(0, fio_log_read(D "/clat_hist.log", &log));
	parsed = slurp(D "/parsed.csv");
	rep = slurp(D "/p.json");
	ASSERT_NE(NULL, strstr(rep, "\"intervals\": ["));
	for (line = strtok_r(parsed, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		static const long long ppm[3] = { 500000, 900000, 990000 };
		static const char * const key[3] = {
			"\"p50_ns\": ", "\"p90_ns\": ", "\"p99_ns\": "
		};
		double end_ms, samples, mn, avg, pv[3], iolat[3];
		const char *q, *next;
		long long n = 0;
		int i, li = -1, nl = 0;

		if (sscanf(line, "%lf, %lf, %lf, %lf, %lf, %lf, %lf", &end_ms,
			   &samples, &mn, &avg, &pv[0], &pv[1], &pv[2]) != 7)
			continue;
		rows++;
		/*
		 * The log's lines in this row: the parser puts a line of
		 * msec t in the first row that ends after t + 10.  The last
		 * interval, shorter, may end in the same row as the one
		 * before it: the parser adds them.
		 */
		for (i = 0; i < log.n; i++)
			if ((log.ms[i] + 10) / ms + 1 == (long long)end_ms / ms) {
				li = i;
				nl++;
			}
		ASSERT_LE(1, nl) TH_LOG("parser row to %.0f ms: no log line",
					end_ms);
		if (nl > 1) {
			NOTE("parser row to %.0f ms of %.0f requests: %d iolat intervals",
			     end_ms, samples, nl);
			EXPECT_EQ(li, log.n - 1);
			continue;
		}
		for (i = 0; i < FIO_BINS; i++)
			n += log.bins[li][i];
		EXPECT_EQ(n, samples);
		/* iolat's interval that the line is, by its end */
		for (q = strstr(rep, "\"intervals\": ["); q; q++) {
			q = strstr(q, "\"to_s\": ");
			if (!q || fabs(1000 * num_after(q, "\"to_s\": ") -
				       log.ms[li]) <= 1)
				break;
		}
		ASSERT_NE(NULL, q) TH_LOG("no interval ends at %lld ms",
					  log.ms[li]);
		next = strstr(q, "\"from_s\"");
		q = strstr(q, "\"op\": \"read\"");
		ASSERT_TRUE(q && (!next || q < next));
		EXPECT_EQ(n, num_after(q, "\"ios\": "));
		q = strstr(q, "\"Q2C\"");
		ASSERT_TRUE(q && (!next || q < next));
		for (i = 0; i < 3; i++)
			iolat[i] = num_after(q, key[i]);
		NOTE("interval to %lld ms, %lld requests: fiologparser p50 %.0f p90 %.0f p99 %.0f; iolat %.0f %.0f %.0f ns (%+.2f%% %+.2f%% %+.2f%%)",
		     log.ms[li], n, pv[0], pv[1], pv[2], iolat[0], iolat[1],
		     iolat[2], 100 * (pv[0] - iolat[0]) / iolat[0],
		     100 * (pv[1] - iolat[1]) / iolat[1],
		     100 * (pv[2] - iolat[2]) / iolat[2]);
		/*
		 * Exact, bin by bin, whatever the tail's density:
		 * - iolat's percentile lies in the log's bin that holds the
		 *   request of its rank: the log is the run's histogram in
		 *   fio's layout;
		 * - the parser's (weighted_percentile(): np.interp() at
		 *   rank @n * p / 100 over the bins' values at mid-rank,
		 *   cumsum - count / 2, empty bins included) lies between
		 *   the values of that bin's neighbours; where that rank is
		 *   the bin's last request and the next bins are empty, the
		 *   empty bins share its cumulative rank and np.interp() may
		 *   return the value of the last of them.
		 */
		for (i = 0; i < 3; i++) {
			const long long *bins = log.bins[li];
			bool exact;
			int k = fio_rank_bin(bins, n, ppm[i], &exact), hi;

			hi = k + 1;
			if (exact)
				while (hi + 1 < FIO_BINS && !bins[hi])
					hi++;
			hi = hi > k + 1 ? hi - 1 : hi;
			EXPECT_LE(fio_lo(k), iolat[i]) TH_LOG("p%lld: bin %d", ppm[i] / 10000, k);
			EXPECT_GT(fio_lo(k + 1), iolat[i]) TH_LOG("p%lld: bin %d", ppm[i] / 10000, k);
			EXPECT_LE((k ? parser_val(k - 1) : 0) - 0.01, pv[i]);
			EXPECT_GE(parser_val(hi) + 0.01, pv[i]) TH_LOG("p%lld: bin %d%s, value %.0f", ppm[i] / 10000, k, exact ? " (ends at the rank)" : "", parser_val(hi));
		}
		checked++;
	}
	free(log.bins);
	NOTE("%d intervals parsed, %d of them compared", rows, checked);
	EXPECT_LE(3, checked);
}

/*
 * In-kernel aggregation (record -A): every request fio did is in the
 * histograms, in the run and in the sum of the intervals, none dropped;
 * D2C's p50 is at least the device's 100 us service time and at most
 * fio's, within the module's bins; what needs records is refused with
 * one message.
 */
TEST_F_TIMEOUT(analysis, aggregate_in_kernel, 600)
{
	long long rd, wr, run_rd, d2c_n, q2c_n, ival_rd, run_wr, delivered,
		  written, dropped;
	double p50, fio_p50;
	FILE *f;
	int st;

	st = sh("%s record -A -i 1 -o json --summary " D "/agg.sum -d %s -- fio --name=a --filename=/dev/%s --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=8 --time_based --runtime=4 --size=512M --eta=never --output-format=json --output=" D "/agg_fio.json >" D "/agg.json 2>%s",
		env("IOLAT_CLI"), self->dev, self->dev, ERR);
	ASSERT_EQ(0, st) TH_LOG("iolat record -A: %s", slurp(ERR));
	ASSERT_EQ(0, sh(PY " -c 'import json, sys\n"
			"f = json.load(open(\"" D "/agg_fio.json\"))[\"jobs\"][0]\n"
			"j = json.load(open(\"" D "/agg.json\"))\n"
			"s = json.load(open(\"" D "/agg.sum\"))\n"
			"ops = {o[\"op\"]: o for o in j[\"devices\"][0][\"ops\"]}\n"
			"r = ops[\"read\"]\n"
			"iv = sum(o[\"ios\"] for i in j[\"intervals\"] for d in i[\"devices\"] for o in d[\"ops\"] if o[\"op\"] == \"read\")\n"
			"print(f[\"read\"][\"total_ios\"], f[\"write\"][\"total_ios\"], r[\"ios\"], r[\"stages\"][\"D2C\"][\"count\"], r[\"stages\"][\"Q2C\"][\"count\"], iv, ops[\"write\"][\"ios\"], s[\"delivered\"], s[\"written\"], s[\"dropped\"], r[\"stages\"][\"D2C\"][\"p50_ns\"], f[\"read\"][\"clat_ns\"][\"percentile\"][\"50.000000\"])' >" D "/agg.nums"));
	f = fopen(D "/agg.nums", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(12, fscanf(f, "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lf %lf",
			     &rd, &wr, &run_rd, &d2c_n, &q2c_n, &ival_rd,
			     &run_wr, &delivered, &written, &dropped, &p50,
			     &fio_p50));
	fclose(f);
	NOTE("aggregate: fio %lld reads, %lld writes; iolat %lld reads (D2C %lld, Q2C %lld, intervals %lld), %lld writes; delivered %lld, written %lld, dropped %lld; read D2C p50 %.0f ns, fio's clat p50 %.0f ns",
	     rd, wr, run_rd, d2c_n, q2c_n, ival_rd, run_wr, delivered, written,
	     dropped, p50, fio_p50);
	EXPECT_LT(0, rd);
	EXPECT_EQ(rd, run_rd);
	EXPECT_EQ(rd, d2c_n);
	EXPECT_EQ(rd, q2c_n);
	EXPECT_EQ(rd, ival_rd);
	EXPECT_EQ(wr, run_wr);
	EXPECT_EQ(rd + wr, delivered);
	EXPECT_EQ(rd + wr, written);
	EXPECT_EQ(0, dropped);
	/*
	 * the device's 100 us timer below, fio's completion latency above,
	 * each less or more the module's coarse bins' 6.25% (lib/hist.h)
	 */
	EXPECT_LE(93750, p50);
	EXPECT_GE(fio_p50 * 1.0625, p50);
	/* no records to save or print one by one */
	EXPECT_EQ(2, sh("%s record -A -w " D "/x.rec -d %s -t 1 2>%s",
			env("IOLAT_CLI"), self->dev, ERR));
	EXPECT_NE(NULL, strstr(slurp(ERR), "--aggregate keeps no records"));
	EXPECT_EQ(2, sh("%s record -A -o csv -d %s -t 1 2>%s",
			env("IOLAT_CLI"), self->dev, ERR));
	EXPECT_NE(NULL, strstr(slurp(ERR), "--aggregate keeps no records"));
}

/* fio in the background on the device, for @secs seconds. */
/*
 * fio in the background for @secs, once the device has completed its
 * first requests (the exporters below need I/O to show); its pid, or -1
 * after fio's output if it did none in 60 s.  (Seen once on 6.1: no
 * I/O at all for the 40 s the checks took, fio's output unseen.)
 */
static pid_t background_fio(const char *dev, int secs)
{
	char cmd[512];
	long long before = completed(dev);
	pid_t pid;
	int i;

	snprintf(cmd, sizeof(cmd),
		 "exec fio --name=iolat_bg --filename=/dev/%s --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --time_based --runtime=%d --size=512M --eta=never --output=" D "/bg.out",
		 dev, secs);
	pid = spawn_sh(cmd);
	for (i = 0; pid > 0 && i < 600; i++) {
		if (completed(dev) > before)
			return pid;
		usleep(100000);
	}
	sh("echo '# background fio did no I/O:'; ps -eo pid,stat,time,args | grep '[f]io' | sed 's/^/# /'; sed 's/^/# /' " D "/bg.out");
	if (pid > 0) {
		kill(-pid, 9);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

/*
 * Prometheus: promtool accepts report's exposition, export's text file
 * and export's /metrics; two runs' expositions summed series by series
 * are the exposition of both runs.
 */
/* A shell loop until @file is there and not empty, or 10 minutes. */
#define UNTIL_THERE(file) \
	"i=0; until [ -s " file " ] || [ $i -ge 6000 ]; do sleep 0.1; i=$((i + 1)); done"

TEST_F_TIMEOUT(analysis, prometheus_exports, 900)
{
	const char *awk_sum = "awk '!/^#/ && !/^iolat_build_info/ { split($2, p, \".\"); v[$1] += p[1] * 1e9 + (p[2] ? p[2] : 0) } END { for (k in v) printf \"%s %.0f\\n\", k, v[k] }'";
	char *prom, cmd[512];
	pid_t fio, exp;
	int st;

	if (sh("command -v promtool >/dev/null"))
		SKIP(return, "promtool is not installed (prometheus package)");
	ASSERT_EQ(0, sh("%s record -w " D "/a.rec -o prom -d %s -- fio --name=a --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=3000 --size=512M --eta=never --output=/dev/null >" D "/a.live.prom 2>%s",
			env("IOLAT_CLI"), self->dev, self->dev, ERR))
		TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, sh("%s record -w " D "/b.rec -o prom -d %s -- fio --name=b --filename=/dev/%s --rw=randwrite --bs=16k --direct=1 --ioengine=psync --number_ios=1000 --size=512M --eta=never --output=/dev/null >/dev/null 2>%s",
			env("IOLAT_CLI"), self->dev, self->dev, ERR))
		TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("promtool check metrics <" D "/a.live.prom"));
	ASSERT_EQ(0, sh("%s report -o prom " D "/a.rec >" D "/a.prom && %s report -o prom " D "/b.rec >" D "/b.prom && %s report -o prom " D "/a.rec " D "/b.rec >" D "/ab.prom",
			env("IOLAT_CLI"), env("IOLAT_CLI"), env("IOLAT_CLI")));
	EXPECT_EQ(0, sh("cmp " D "/a.live.prom " D "/a.prom"));
	EXPECT_EQ(0, sh("promtool check metrics <" D "/ab.prom"));
	EXPECT_EQ(0, sh("%s " D "/a.prom " D "/b.prom | sort >" D "/sum && %s " D "/ab.prom | sort >" D "/ab && grep -q 'stage=\"Q2C\"' " D "/ab",
			awk_sum, awk_sum));
	EXPECT_EQ(0, sh("diff " D "/sum " D "/ab >" D "/sum.diff"))
		TH_LOG("a + b != ab: %s", slurp(D "/sum.diff"));

	/*
	 * export --textfile: a whole file, refreshed, that promtool accepts,
	 * with iolat_build_info; gone when the exporter ends (no stale
	 * numbers for node_exporter to serve)
	 */
	/*
	 * fio until the end of the test, and each exporter until the test
	 * has what it wants of it (at most 10 minutes): however slow the
	 * host, neither ends first
	 */
	fio = background_fio(self->dev, 3600);
	ASSERT_LT(0, fio);
	snprintf(cmd, sizeof(cmd), "exec %s export --textfile " D " -i 0.5 -d %s -- sh -c '%s' 2>%s",
		 env("IOLAT_CLI"), self->dev, UNTIL_THERE(D "/live.ok"), ERR);
	exp = spawn_sh(cmd);
	ASSERT_LT(0, exp);
	/* a file with requests in it, read while the exporter runs */
	EXPECT_EQ(0, sh("for i in $(seq 3000); do cp " D "/iolat.prom " D "/live.prom 2>/dev/null && grep -q '^iolat_requests_total{.*op=\"read\"} [1-9]' " D "/live.prom && echo ok >" D "/live.ok && exit 0; sleep 0.1; done; exit 1")) {
		sh("ps -eo pid,stat,time,args | grep '[f]io\\|[i]olat' | sed 's/^/# /' >&2; grep ' %s ' /proc/diskstats | sed 's/^/# /' >&2; sed 's/^/# /' " D "/live.prom | grep -v '_bucket' >&2",
		   self->dev);
	}
	EXPECT_EQ(0, sh("promtool check metrics <" D "/live.prom"));
	prom = slurp(D "/live.prom");
	EXPECT_LT(0, num_after(strstr(prom, "iolat_busy_seconds_total{"), "} "));
	EXPECT_LT(0, num_after(strstr(prom, "iolat_requests_total{"), "} "));
	EXPECT_NE(NULL, strstr(prom, "iolat_build_info{version=\""));
	ASSERT_EQ(0, wait_for(exp, 60, &st));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("%s", slurp(ERR));
	NOTE("export --textfile: %s", strstr(slurp(ERR), "iolat: ") ?
	     strrchr(slurp(ERR), ':') + 2 : "?");
	EXPECT_NE(0, access(D "/iolat.prom", F_OK)) TH_LOG("the text file outlived the exporter");
	EXPECT_EQ(0, sh("ls -a " D " | grep -c '^.iolat.prom' | grep -qx 0"));

	/* export --listen: GET /metrics while it runs (the rig's guest
	 * starts with its loopback down)
	 */
	ASSERT_EQ(0, sh("ip link set lo up"));
	snprintf(cmd, sizeof(cmd), "exec %s export --listen 127.0.0.1:19301 -d %s -- sh -c '%s' 2>" D "/listen.err",
		 env("IOLAT_CLI"), self->dev, UNTIL_THERE(D "/scrape.prom"));
	exp = spawn_sh(cmd);
	ASSERT_LT(0, exp);
	/* scraped as soon as it listens */
	st = sh("for i in $(seq 100); do " PY " -c 'import urllib.request as u; r = u.urlopen(\"http://127.0.0.1:19301/metrics\", timeout=10); assert r.status == 200; open(\"" D "/scrape.prom\", \"wb\").write(r.read())' 2>" D "/scrape.err && exit 0; sleep 0.2; done; exit 1");
	EXPECT_EQ(0, st) TH_LOG("%s %s", slurp(D "/scrape.err"), slurp(D "/listen.err"));
	ASSERT_EQ(0, wait_for(exp, 60, &st));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("%s", slurp(D "/listen.err"));
	EXPECT_NE(NULL, strstr(slurp(D "/listen.err"), "scrapes served"));
	EXPECT_EQ(NULL, strstr(slurp(D "/listen.err"), " 0 scrapes served"));
	EXPECT_EQ(0, sh("promtool check metrics <" D "/scrape.prom"));
	EXPECT_LT(0, num_after(strstr(slurp(D "/scrape.prom"),
				      "iolat_busy_seconds_total{"), "} "));

	/*
	 * top, four frames: the device from the module's histograms and
	 * counters, with no process (no record streamed) but the hint to
	 * --procs; its p50, in every frame with requests (two at least), at
	 * least null_blk's 100 us service time (less the 6.25% of the
	 * module's histogram bins: 93.75 us) and below a second.  With --procs, fio's
	 * row.
	 */
	st = sh("%s top -d %s -i 0.5 -n 4 </dev/null >" D "/top.txt 2>%s",
		env("IOLAT_CLI"), self->dev, ERR);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("test $(grep -c '^iolat top' " D "/top.txt) -eq 4"));
	EXPECT_EQ(0, sh("grep -q '^%s ' " D "/top.txt && ! grep -q '^fio ' " D "/top.txt && grep -q '^(processes: iolat top --procs' " D "/top.txt",
			self->dev)) TH_LOG("%s", slurp(D "/top.txt"));
	/* p50 in ns of each frame's device row with reads: at least 2 */
	st = sh("awk -v dev=%s 'function ns(v) { return v ~ /ms$/ ? v * 1e6 : v ~ /us$/ ? v * 1e3 : v ~ /ns$/ ? v + 0 : v * 1e9 }"
		" $1 == dev && $2 > 0 { n++; p = ns($4); if (p < 93750 || p >= 1e9) { print \"p50 \" $4; bad++ } }"
		" END { exit bad || n < 2 }' " D "/top.txt", self->dev);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(D "/top.txt"));
	st = sh("%s top --procs -d %s -i 0.5 -n 4 </dev/null >" D "/topp.txt 2>%s",
		env("IOLAT_CLI"), self->dev, ERR);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("grep -q '^fio ' " D "/topp.txt && ! grep -q '^(processes' " D "/topp.txt"))
		TH_LOG("%s", slurp(D "/topp.txt"));
	st = sh("(sleep 1.5; echo q) | timeout 300 %s top -d %s -i 0.5 >/dev/null 2>%s",
		env("IOLAT_CLI"), self->dev, ERR);
	EXPECT_EQ(0, st) TH_LOG("top did not quit on q: %d %s", st, slurp(ERR));
	kill(-fio, 9);
	waitpid(fio, NULL, 0);
}

/*
 * The CLI's own memory stays flat: stat every 10 ms, fio reading beside
 * it for the first intervals, has the same resident set (within 1%)
 * after its 3000th interval as after its 100th, each read from /proc
 * when its line comes out; then it is stopped, and ends as a stop ends
 * it.  (However long the intervals take: a slow host gives fewer a
 * second, not fewer.)
 */
TEST_F_TIMEOUT(analysis, cli_memory_flat, 900)
{
	long long n, at100, at3000;
	pid_t fio;
	FILE *f;

	fio = background_fio(self->dev, 20);
	ASSERT_LT(0, fio);
	ASSERT_EQ(0, sh(PY " -c 'import subprocess, sys\n"
			"p = subprocess.Popen([\"%s\", \"stat\", \"-o\", \"json\", \"-d\", \"%s\", \"0.01\"], stdout=subprocess.PIPE, text=True)\n"
			"n = 0\nrss = {}\n"
			"for line in p.stdout:\n"
			"    if line.startswith(\"{\\\"total\\\"\"):\n"
			"        continue\n"
			"    n += 1\n"
			"    if n in (100, 3000):\n"
			"        rss[n] = [int(l.split()[1]) for l in open(\"/proc/%%d/status\" %% p.pid) if l.startswith(\"VmRSS\")][0]\n"
			"    if n == 3000:\n"
			"        p.terminate()\n"
			"        break\n"
			"p.stdout.read()\n"
			"sys.exit(p.wait() or print(n, rss.get(100, -1), rss.get(3000, -1)))' >" D "/rss 2>%s",
			env("IOLAT_CLI"), self->dev, ERR)) TH_LOG("%s", slurp(ERR));
	kill(-fio, 9);
	waitpid(fio, NULL, 0);
	f = fopen(D "/rss", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(3, fscanf(f, "%lld %lld %lld", &n, &at100, &at3000));
	fclose(f);
	NOTE("stat: %lld intervals; resident %lld KiB after the 100th, %lld KiB after the 3000th",
	     n, at100, at3000);
	EXPECT_EQ(3000, n);
	EXPECT_LT(0, at100);
	EXPECT_GE(at100 * 101 / 100, at3000);
}

/* A series' value in the exposition @prom: its line's start @series. */
static double prom_value(const char *prom, const char *series)
{
	char key[256];

	snprintf(key, sizeof(key), "\n%s ", series);
	return num_after(prom, key);
}

/*
 * export's counters against the kernel's own count of the same requests
 * (diskstats, independent of iolat): an exporter started on the idle
 * device, then 2000 4 KiB reads and 500 16 KiB writes by fio at QD 1.
 * Once the text file shows every read and write the kernel completed
 * since, its requests and bytes per op and its Q2C histogram's counts
 * are the kernel's deltas exactly.  At QD 1 the busy time (issue to
 * completion) is at most the kernel's time of the reads and writes (the
 * sum of each one's allocation to its completion, to its millisecond;
 * read after iolat's probe) and at least half of it (null_blk's 100 us
 * timer is most of a request); and the queue's in-flight sum is its busy
 * time (no two requests overlap).  The kernel sums those times in
 * nanoseconds since 5.0: before, a jiffy a request, and only the counts
 * are checked.
 */
TEST_F_TIMEOUT(analysis, export_counts_what_the_kernel_counts, 300)
{
	unsigned long long f0[17], f1[17];
	double k_ns, busy, qbusy, inflight, n[2], bytes[2], q2c[2];
	static const char *const ops[2] = { "read", "write" };
	char cmd[512], series[160], *prom = NULL;
	pid_t exp;
	int i, st;

	snprintf(cmd, sizeof(cmd), "exec %s export --textfile " D " -i 0.5 -d %s -t 120 2>%s",
		 env("IOLAT_CLI"), self->dev, ERR);
	exp = spawn_sh(cmd);
	ASSERT_LT(0, exp);
	ASSERT_EQ(0, wait_text(D "/iolat.prom", "iolat_requests_total", 60))
		TH_LOG("%s", slurp(ERR));
	ASSERT_LE(11, dev_stat(self->dev, f0));
	EXPECT_EQ(0, sh("fio --name=r --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=2000 --size=512M --eta=never --output=/dev/null && fio --name=w --filename=/dev/%s --rw=randwrite --bs=16k --direct=1 --ioengine=psync --number_ios=500 --size=512M --eta=never --output=/dev/null",
			self->dev, self->dev));
	ASSERT_LE(11, dev_stat(self->dev, f1));
	/* the file once it holds every request the kernel completed */
	for (i = 0; i < 200; i++) {
		free(prom);
		prom = NULL;
		if (!sh("cp " D "/iolat.prom " D "/k.prom 2>/dev/null"))
			prom = slurp(D "/k.prom");
		snprintf(series, sizeof(series),
			 "iolat_requests_total{device=\"%s\",op=\"write\"}",
			 self->dev);
		if (prom && prom_value(prom, series) >= f1[4] - f0[4])
			break;
		usleep(100000);
	}
	kill(exp, SIGINT);
	wait_for(exp, 60, &st);
	ASSERT_NE(NULL, prom);
	for (i = 0; i < 2; i++) {
		snprintf(series, sizeof(series),
			 "iolat_requests_total{device=\"%s\",op=\"%s\"}",
			 self->dev, ops[i]);
		n[i] = prom_value(prom, series);
		snprintf(series, sizeof(series),
			 "iolat_bytes_total{device=\"%s\",op=\"%s\"}",
			 self->dev, ops[i]);
		bytes[i] = prom_value(prom, series);
		snprintf(series, sizeof(series),
			 "iolat_request_duration_seconds_count{device=\"%s\",op=\"%s\",stage=\"Q2C\"}",
			 self->dev, ops[i]);
		q2c[i] = prom_value(prom, series);
	}
	snprintf(series, sizeof(series), "iolat_busy_seconds_total{device=\"%s\"}",
		 self->dev);
	busy = prom_value(prom, series) * 1e9;
	snprintf(series, sizeof(series), "iolat_queue_busy_seconds_total{device=\"%s\"}",
		 self->dev);
	qbusy = prom_value(prom, series) * 1e9;
	snprintf(series, sizeof(series), "iolat_inflight_seconds_total{device=\"%s\"}",
		 self->dev);
	inflight = prom_value(prom, series) * 1e9;
	k_ns = ((f1[3] - f0[3]) + (f1[7] - f0[7])) * 1e6;
	NOTE("export: reads %.0f (kernel %llu), %.0f bytes (%llu), Q2C count %.0f; writes %.0f (%llu), %.0f bytes (%llu), Q2C count %.0f; busy %.3f ms, queue busy %.3f ms, in flight %.3f ms; kernel's time %.0f ms",
	     n[0], f1[0] - f0[0], bytes[0], (f1[2] - f0[2]) * 512, q2c[0],
	     n[1], f1[4] - f0[4], bytes[1], (f1[6] - f0[6]) * 512, q2c[1],
	     busy / 1e6, qbusy / 1e6, inflight / 1e6, k_ns / 1e6);
	EXPECT_EQ(2000, f1[0] - f0[0]);
	EXPECT_EQ(500, f1[4] - f0[4]);
	EXPECT_EQ(f1[0] - f0[0], n[0]);
	EXPECT_EQ(f1[4] - f0[4], n[1]);
	EXPECT_EQ((f1[2] - f0[2]) * 512, bytes[0]);
	EXPECT_EQ((f1[6] - f0[6]) * 512, bytes[1]);
	EXPECT_EQ(n[0], q2c[0]);
	EXPECT_EQ(n[1], q2c[1]);
	EXPECT_GE(qbusy, busy);
	EXPECT_GE(1000, fabs(inflight - qbusy));
	if (sh("uname -r | awk -F. '{ exit !($1 > 4) }'")) {
		NOTE("export: this kernel sums its times in jiffies: busy time not compared");
	} else {
		EXPECT_GE(k_ns + 1e6, busy);
		EXPECT_LE(0.5 * k_ns, busy);
	}
	free(prom);
}

/*
 * top without -d over 40 more null_blk disks: every blk-mq disk in the
 * session, the 20 busiest shown, then a line for the others and the
 * total; --rows 0 shows them all.
 */
/*
 * Under a unit of Type=notify (pkg/iolat-exporter.service) the exporter
 * says when it is ready, on the datagram socket systemd names in
 * NOTIFY_SOCKET (sd_notify(3)'s protocol): READY=1 once tracing and
 * taking scrapes, so that a scrape right after it is answered with the
 * device's series; STOPPING=1 as it ends.  A Python socket stands in for
 * systemd's end of it; its waits are bounds, not delays.
 */
TEST_F_TIMEOUT(analysis, export_ready_notified, 300)
{
	char *got;
	int st;

	/* the rig's guest starts with its loopback down */
	ASSERT_EQ(0, sh("ip link set lo up"));
	st = sh(PY " -c 'import os, signal, socket, subprocess, sys, urllib.request\n"
		"p = \"/tmp/iolat-notify\"\n"
		"os.path.exists(p) and os.unlink(p)\n"
		"s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
		"s.bind(p)\n"
		"s.settimeout(240)\n"
		"e = subprocess.Popen([sys.argv[1], \"export\", \"--listen\", \"127.0.0.1:9302\", \"-d\", sys.argv[2], \"-t\", \"280\"], env=dict(os.environ, NOTIFY_SOCKET=p), stderr=open(sys.argv[3], \"w\"))\n"
		"ready = s.recv(512).decode()\n"
		"body = urllib.request.urlopen(\"http://127.0.0.1:9302/metrics\", timeout=120).read().decode()\n"
		"series = \"iolat_requests_total{device=\\\"%%s\\\",op=\\\"read\\\"}\" %% sys.argv[2]\n"
		"e.send_signal(signal.SIGINT)\n"
		"stopping = s.recv(512).decode()\n"
		"print(repr(ready), series in body, repr(stopping), e.wait(120))' %s %s %s >" D "/notify.out",
		env("IOLAT_CLI"), self->dev, ERR);
	got = slurp(D "/notify.out");
	TH_LOG("python: %s; iolat: %s", got ? got : "(none)", slurp(ERR));
	ASSERT_EQ(0, st);
	ASSERT_NE(NULL, got);
	EXPECT_STREQ("'READY=1\\nSTATUS=exporting 1 disks' True 'STOPPING=1' 0\n",
		     got);
}

/*
 * A scrape of 127.0.0.1:@port into D/@name; the exposition's text, or
 * NULL.  Its value of @series ("name{labels}") in *@v, or -1.
 */
static char *scrape(int port, const char *name, const char *series, double *v)
{
	char path[128], line[192], *prom;
	const char *at;

	snprintf(path, sizeof(path), D "/%s", name);
	*v = -1;
	if (sh(PY " -c 'import urllib.request as u; open(\"%s\", \"wb\").write(u.urlopen(\"http://127.0.0.1:%d/metrics\", timeout=30).read())' 2>/dev/null",
	       path, port))
		return NULL;
	prom = slurp(path);
	/* the sample's line, not its HELP's */
	snprintf(line, sizeof(line), "\n%s ", series);
	at = prom ? strstr(prom, line) : NULL;
	if (at)
		*v = strtod(at + strlen(line), NULL);
	return prom;
}

/*
 * Left on, the exporter outlives the module: rmmod under it (an
 * upgrade), and it keeps serving what it counted, says it waits, and
 * once the module is loaded again traces anew, its counters from zero
 * (Prometheus's counter reset, iolat_exporter_session_start_time_seconds
 * moved on); every read after that is counted exactly, against fio's.
 * Each wait is a bound on polling, not a delay.
 */
TEST_F_TIMEOUT(analysis, export_survives_module_reload, 600)
{
	double reads, t0, t1, gone;
	char series[160], cmd[256], *err;
	pid_t exp;
	int i, st;

	ASSERT_EQ(0, sh("ip link set lo up"));
	snprintf(series, sizeof(series),
		 "iolat_requests_total{device=\"%s\",op=\"read\"}", self->dev);
	snprintf(cmd, sizeof(cmd), "exec %s export --listen 127.0.0.1:9303 -d %s 2>" D "/reload.err",
		 env("IOLAT_CLI"), self->dev);
	exp = spawn_sh(cmd);
	ASSERT_LT(0, exp);
	for (i = 0; i < 600 && !scrape(9303, "r0.prom", series, &reads); i++)
		usleep(100000);
	ASSERT_EQ(0, reads) TH_LOG("%s", slurp(D "/reload.err"));
	scrape(9303, "r0.prom", "iolat_exporter_session_start_time_seconds", &t0);
	ASSERT_EQ(0, sh("fio --name=a --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=300 --size=256M --eta=never --output=/dev/null",
			self->dev));
	for (i = 0; i < 600 && scrape(9303, "r1.prom", series, &reads) && reads < 300; i++)
		usleep(100000);
	EXPECT_EQ(300, reads);
	/* the module goes: what it counted is still served */
	ASSERT_EQ(0, module_unload());
	for (i = 0; i < 600 && !strstr(slurp(D "/reload.err") ?: "", "waiting for the iolat module"); i++)
		usleep(100000);
	EXPECT_NE(NULL, scrape(9303, "r2.prom", series, &gone));
	EXPECT_EQ(300, gone);
	/* and comes back: a new session, from zero */
	ASSERT_EQ(0, module_load());
	for (i = 0; i < 600 && !strstr(slurp(D "/reload.err") ?: "", "is back"); i++)
		usleep(100000);
	err = slurp(D "/reload.err");
	ASSERT_NE(NULL, strstr(err ?: "", "is back")) TH_LOG("%s", err);
	for (i = 0; i < 600 && (!scrape(9303, "r3.prom", series, &reads) || reads != 0); i++)
		usleep(100000);
	EXPECT_EQ(0, reads);
	scrape(9303, "r3.prom", "iolat_exporter_session_start_time_seconds", &t1);
	EXPECT_LT(t0, t1);
	ASSERT_EQ(0, sh("fio --name=b --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=200 --size=256M --eta=never --output=/dev/null",
			self->dev));
	for (i = 0; i < 600 && scrape(9303, "r4.prom", series, &reads) && reads < 200; i++)
		usleep(100000);
	EXPECT_EQ(200, reads);
	kill(exp, SIGINT);
	ASSERT_EQ(0, wait_for(exp, 120, &st));
	NOTE("export across a module reload: 300 reads, 300 served while the module was gone, then 200 from zero; session start %.3f then %.3f",
	     t0, t1);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("%s", slurp(D "/reload.err"));
}

/* Until D/@file holds @text, or a minute of polling: whether it does. */
static bool file_has(const char *file, const char *text)
{
	char path[128];
	char *t;
	int i;

	snprintf(path, sizeof(path), D "/%s", file);
	for (i = 0; i < 600; i++) {
		t = slurp(path);
		if (t && strstr(t, text))
			return true;
		usleep(100000);
	}
	return false;
}

/*
 * systemctl reload: export --config FILE reads FILE's IOLAT_EXPORT_OPTS
 * again at SIGHUP and applies a new listening address and text file
 * directory without a new session of the module, so no count is lost;
 * a change it cannot apply (--records) is said, and a file that does not
 * parse changes nothing.  Counted reads against fio's throughout.
 */
TEST_F_TIMEOUT(analysis, export_reloads_config, 600)
{
	char series[160], cmd[256], *err;
	double reads, old;
	pid_t exp;
	int i, st;

	ASSERT_EQ(0, sh("ip link set lo up && mkdir -p " D "/tf"));
	snprintf(series, sizeof(series),
		 "iolat_requests_total{device=\"%s\",op=\"read\"}", self->dev);
	ASSERT_EQ(0, sh("echo 'IOLAT_EXPORT_OPTS=\"--listen 127.0.0.1:9304 -d %s\"' >" D "/exp.conf",
			self->dev));
	snprintf(cmd, sizeof(cmd), "exec %s export --config " D "/exp.conf 2>" D "/cfg.err",
		 env("IOLAT_CLI"));
	exp = spawn_sh(cmd);
	ASSERT_LT(0, exp);
	for (i = 0; i < 600 && !scrape(9304, "c0.prom", series, &reads); i++)
		usleep(100000);
	ASSERT_EQ(0, reads) TH_LOG("%s", slurp(D "/cfg.err"));
	ASSERT_EQ(0, sh("fio --name=a --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=300 --size=256M --eta=never --output=/dev/null",
			self->dev));
	for (i = 0; i < 600 && scrape(9304, "c1.prom", series, &reads) && reads < 300; i++)
		usleep(100000);
	EXPECT_EQ(300, reads);
	/* another port and a text file: applied, the counts kept */
	ASSERT_EQ(0, sh("echo 'IOLAT_EXPORT_OPTS=\"--listen 127.0.0.1:9305 -d %s --textfile " D "/tf -i 1\"' >" D "/exp.conf && kill -HUP %d",
			self->dev, exp));
	EXPECT_TRUE(file_has("cfg.err", "exp.conf reloaded: serving 127.0.0.1:9305, writing its text file, every 1 s"))
		TH_LOG("%s", slurp(D "/cfg.err"));
	EXPECT_NE(NULL, scrape(9305, "c2.prom", series, &reads));
	EXPECT_EQ(300, reads);
	EXPECT_EQ(NULL, scrape(9304, "c3.prom", series, &old));
	EXPECT_TRUE(file_has("tf/iolat.prom", series));
	/* a change it cannot apply, then a file that does not parse */
	ASSERT_EQ(0, sh("echo 'IOLAT_EXPORT_OPTS=\"--listen 127.0.0.1:9305 -d %s --textfile " D "/tf -i 1 --records\"' >" D "/exp.conf && kill -HUP %d",
			self->dev, exp));
	EXPECT_TRUE(file_has("cfg.err", "a change of --records takes effect at a restart"));
	ASSERT_EQ(0, sh("echo 'IOLAT_EXPORT_OPTS=\"--listen nowhere -d %s\"' >" D "/exp.conf && kill -HUP %d",
			self->dev, exp));
	EXPECT_TRUE(file_has("cfg.err", "exp.conf not reloaded: the exporter goes on as it was"));
	ASSERT_EQ(0, sh("fio --name=b --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=200 --size=256M --eta=never --output=/dev/null",
			self->dev));
	for (i = 0; i < 600 && scrape(9305, "c4.prom", series, &reads) && reads < 500; i++)
		usleep(100000);
	EXPECT_EQ(500, reads);
	kill(exp, SIGINT);
	ASSERT_EQ(0, wait_for(exp, 120, &st));
	err = slurp(D "/cfg.err");
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("%s", err);
	EXPECT_NE(0, access(D "/tf/iolat.prom", F_OK));
	NOTE("export --config reloaded at SIGHUP: 300 reads, then 500 on the new port, none lost");
}

/*
 * Native histograms: a real Prometheus with them enabled scrapes the
 * exporter (it asks for the protobuf exposition) while fio makes 3000
 * reads and 1000 writes; once Prometheus holds them all, the exporter
 * ends and prints, with -o json, the percentiles of the very histograms
 * it exposed.  native_vs_prometheus.py checks both formats are served,
 * that Prometheus stored native histograms of schema 3 (the module's 8
 * bins per power of two) and no classic buckets, that it scraped every
 * request, and that histogram_quantile() agrees with the exporter's own
 * p50, p90 and p99 within a bucket.
 */
TEST_F_TIMEOUT(analysis, export_native_histograms, 900)
{
	char cmd[1024];
	pid_t prom, exp;
	int st, held = 1;

	if (sh("command -v prometheus >/dev/null"))
		SKIP(return, "prometheus is not installed");
	ASSERT_EQ(0, sh("ip link set lo up"));
	ASSERT_EQ(0, sh("printf 'global:\\n  scrape_interval: 1s\\n  scrape_timeout: 1s\\nscrape_configs:\\n  - job_name: iolat\\n    static_configs:\\n      - targets: [\"127.0.0.1:19306\"]\\n' >" D "/prom.yml"));
	prom = spawn_sh("exec prometheus --config.file=" D "/prom.yml --storage.tsdb.path=" D "/tsdb --web.listen-address=127.0.0.1:19390 --enable-feature=native-histograms >" D "/prom.log 2>&1");
	ASSERT_LT(0, prom);
	/* the I/O, then until the checks are done: the exporter's command */
	snprintf(cmd, sizeof(cmd), "exec %s export --listen 127.0.0.1:19306 -o json -d %s -- sh -c 'until [ -e " D "/native.go ]; do sleep 0.2; done; fio --name=r --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=3000 --size=512M --eta=never --output=/dev/null && fio --name=w --filename=/dev/%s --rw=randwrite --bs=16k --direct=1 --ioengine=psync --number_ios=1000 --size=512M --eta=never --output=/dev/null && touch " D "/native.io; until [ -e " D "/native.done ]; do sleep 0.2; done' >" D "/native.json 2>" D "/native.err",
		 env("IOLAT_CLI"), self->dev, self->dev, self->dev);
	exp = spawn_sh(cmd);
	ASSERT_LT(0, exp);
	/* both serving, then the I/O */
	st = sh("for i in $(seq 3000); do " PY " -c 'import urllib.request as u; u.urlopen(\"http://127.0.0.1:19306/metrics\", timeout=10); u.urlopen(\"http://127.0.0.1:19390/-/ready\", timeout=10)' 2>/dev/null && exit 0; sleep 0.2; done; exit 1");
	EXPECT_EQ(0, st) TH_LOG("%s %s", slurp(D "/native.err"), slurp(D "/prom.log"));
	sh("touch " D "/native.go; i=0; until [ -e " D "/native.io ] || [ $i -ge 6000 ]; do sleep 0.1; i=$((i + 1)); done");
	/* Prometheus holds every request: the exporter ends, and says */
	if (!st)
		held = sh("python3 " IOLAT_KSFT_DIR "/native_vs_prometheus.py wait http://127.0.0.1:19390 http://127.0.0.1:19306 %s 3 4000 " D "/native.time >" D "/native.out 2>&1",
			self->dev);
	sh("touch " D "/native.done");
	ASSERT_EQ(0, wait_for(exp, 120, &st));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("%s", slurp(D "/native.err"));
	st = held ? held : sh("python3 " IOLAT_KSFT_DIR "/native_vs_prometheus.py compare http://127.0.0.1:19390 " D "/native.json %s 3 " D "/native.time >>" D "/native.out 2>&1",
		self->dev);
	NOTE("%s", slurp(D "/native.out"));
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(D "/prom.log"));
	kill(-prom, SIGTERM);
	ASSERT_EQ(0, wait_for(prom, 120, &st));
}

/*
 * /metrics under load, as a fleet's Prometheus servers and a dashboard
 * scrape it: 8 clients at once, 125 scrapes each, while fio runs and a
 * ninth client holds a connection without a word; every scrape answered
 * whole (its Content-Length, its last line), each a fresh exposition
 * (iolat_exporter_expositions_total never twice), the counts exact at
 * the end, and the exporter's memory flat: its RSS after the last
 * 1000 scrapes within 1% of after the first 100.
 */
TEST_F_TIMEOUT(analysis, export_concurrent_scrapes, 900)
{
	long n = 0, distinct = 0, bad = -1, first = 0, last = 0;
	double reads = 0;
	char cmd[256], *got;
	pid_t exp;
	int st;

	ASSERT_EQ(0, sh("ip link set lo up"));
	snprintf(cmd, sizeof(cmd), "exec %s export --listen 127.0.0.1:9306 -d %s 2>" D "/conc.err",
		 env("IOLAT_CLI"), self->dev);
	exp = spawn_sh(cmd);
	ASSERT_LT(0, exp);
	st = sh(PY " -c 'import socket, subprocess, sys, threading, time, urllib.request\n"
		"url = \"http://127.0.0.1:9306/metrics\"\n"
		"def get():\n"
		"    r = urllib.request.urlopen(url, timeout=120)\n"
		"    b = r.read().decode()\n"
		"    assert r.status == 200 and len(b) == int(r.headers[\"Content-Length\"]), r.status\n"
		"    last = b.rstrip(\"\\n\").split(\"\\n\")[-1]\n"
		"    assert last.startswith(\"iolat_exporter_expositions_total \"), last\n"
		"    return int(last.split()[1]), b\n"
		"for i in range(600):\n"
		"    try:\n"
		"        get(); break\n"
		"    except OSError:\n"
		"        time.sleep(0.1)\n"
		"rss = lambda: int([l for l in open(\"/proc/%d/status\") if l.startswith(\"VmRSS:\")][0].split()[1])\n"
		"mute = socket.create_connection((\"127.0.0.1\", 9306))\n"
		"fio = subprocess.Popen([\"fio\", \"--name=c\", \"--filename=/dev/%s\", \"--rw=randread\", \"--bs=4k\", \"--direct=1\", \"--ioengine=psync\", \"--number_ios=300\", \"--size=256M\", \"--output=/dev/null\"])\n"
		"seen, bad = [], []\n"
		"def client(n):\n"
		"    for k in range(n):\n"
		"        try:\n"
		"            seen.append(get()[0])\n"
		"        except Exception as e:\n"
		"            bad.append(repr(e))\n"
		"def together(n):\n"
		"    t = [threading.Thread(target=client, args=(n,)) for _ in range(8)]\n"
		"    [x.start() for x in t]; [x.join() for x in t]\n"
		"together(13)\n"
		"first = rss()\n"
		"together(125)\n"
		"last = rss()\n"
		"mute.close()\n"
		"fio.wait()\n"
		"reads = 0\n"
		"for i in range(600):\n"
		"    b = get()[1]\n"
		"    reads = float(b.split(\"iolat_requests_total{device=\\\"%s\\\",op=\\\"read\\\"} \")[1].split()[0])\n"
		"    if reads >= 300: break\n"
		"    time.sleep(0.1)\n"
		"print(len(seen), len(set(seen)), len(bad), reads, first, last, bad[:3])\n"
		"' >" D "/conc.out",
		exp, self->dev, self->dev);
	got = slurp(D "/conc.out");
	TH_LOG("%s; iolat: %s", got ?: "(none)", slurp(D "/conc.err"));
	ASSERT_EQ(0, st);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(6, sscanf(got, "%ld %ld %ld %lf %ld %ld", &n, &distinct,
			    &bad, &reads, &first, &last));
	EXPECT_EQ(8 * 138, n);
	EXPECT_EQ(n, distinct);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(300, reads);
	EXPECT_GE(first * 1.01, last);
	NOTE("8 clients at once: %ld scrapes, %ld expositions, %ld failed; exporter RSS %ld KiB after 104, %ld KiB after %ld",
	     n, distinct, bad, first, last, n);
	kill(exp, SIGINT);
	ASSERT_EQ(0, wait_for(exp, 120, &st));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("%s", slurp(D "/conc.err"));
}

/*
 * iolat-exporter.service gives the exporter no capability but
 * CAP_PERFMON (CAP_SYS_ADMIN where the kernel has none): as root with
 * that one capability alone (setpriv's bounding set, as systemd's
 * CapabilityBoundingSet=), export traces and counts every read; with
 * none, it fails with one clear line.
 */
TEST_F_TIMEOUT(analysis, export_cap_perfmon_alone, 300)
{
	char *sum;
	int st;

	if (sh("setpriv --bounding-set=-all,+perfmon true 2>/dev/null"))
		SKIP(return, "setpriv or CAP_PERFMON (5.8) is missing");
	st = sh("setpriv --bounding-set=-all,+perfmon sh -c 'sed -n \"s/^CapEff:[[:space:]]*//p\" /proc/self/status >" D "/caps.eff; exec %s export --textfile " D " -i 0.5 --summary " D "/caps.sum -d %s -- fio --name=p --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=200 --size=256M --eta=never --output=/dev/null' 2>" D "/caps.err",
		env("IOLAT_CLI"), self->dev, self->dev);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(D "/caps.err"));
	/* CAP_PERFMON is 38: its bit alone */
	EXPECT_STREQ("0000004000000000\n", slurp(D "/caps.eff") ?: "");
	sum = slurp(D "/caps.sum");
	ASSERT_NE(NULL, sum);
	EXPECT_EQ(200, (long long)json_num(sum, "delivered"));
	EXPECT_EQ(0, (long long)json_num(sum, "dropped"));
	st = sh("setpriv --bounding-set=-all %s export --listen 127.0.0.1:9307 -d %s -t 5 2>" D "/nocaps.err",
		env("IOLAT_CLI"), self->dev);
	EXPECT_NE(0, st);
	EXPECT_NE(NULL, strstr(slurp(D "/nocaps.err") ?: "",
			       "permission denied: tracing needs CAP_PERFMON or CAP_SYS_ADMIN"))
		TH_LOG("%s", slurp(D "/nocaps.err"));
}

TEST_F_TIMEOUT(analysis, top_many_disks, 300)
{
	char name[32], disk[32], more[64];
	int i, st, st_all, rows, all_rows, disks;
	char *out;

	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "iolat_many%d", i);
		ASSERT_EQ(0, nullb_create(name, 0, disk, sizeof(disk)));
	}
	disks = sh("exit $(for d in /sys/block/*; do test -d $d/mq || continue; case ${d##*/} in loop*) test -e $d/loop/backing_file || continue;; esac; echo; done | wc -l)");
	st = sh("%s top -i 0.5 -n 1 </dev/null >" D "/top.txt 2>%s",
		env("IOLAT_CLI"), ERR);
	st_all = sh("%s top -i 0.5 -n 1 --rows 0 </dev/null >" D "/top_all.txt 2>>%s",
		    env("IOLAT_CLI"), ERR);
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "iolat_many%d", i);
		nullb_remove(name);
	}
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, st_all) TH_LOG("%s", slurp(ERR));
	ASSERT_LE(41, disks);
	out = slurp(D "/top.txt");
	/* the device rows: the lines between the header and the blank line */
	rows = sh("exit $(awk '/^device / { on = 1; next } on && /^$/ { exit } on { n++ } END { print n + 0 }' " D "/top.txt)");
	EXPECT_EQ(20 + 2, rows) TH_LOG("%s", out);
	snprintf(more, sizeof(more), "(%d more devices;", disks - 20);
	EXPECT_NE(NULL, strstr(out, more)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\ntotal ")) TH_LOG("%s", out);
	free(out);
	all_rows = sh("exit $(awk '/^device / { on = 1; next } on && /^$/ { exit } on { n++ } END { print n + 0 }' " D "/top_all.txt)");
	EXPECT_EQ(disks + 1, all_rows) TH_LOG("%s", slurp(D "/top_all.txt"));
}

IOLAT_HARNESS_MAIN
