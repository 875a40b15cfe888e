// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the record file and of `iolat report` and `iolat plot`
 * on it, on kselftest_harness.h: record files are written here with the
 * CLI's own writer (user/file/recfile.c) from requests of known latencies,
 * then the iolat binary (IOLAT_CLI, default build/iolat) reads them:
 *   - report's percentiles against the exact sorted latencies;
 *   - a truncated or corrupt file: one clear line, non-zero exit;
 *   - `-o prom` accepted by promtool (Debian's prometheus package), and
 *     two files' expositions summed equal the one of both files;
 *   - the SVG of `iolat plot` rendered by headless Chromium to a PNG that
 *     is not blank.
 * The tools are installed by `make check` (tests/deps.sh); without them
 * the tests fail under CI=true, and are skipped, loudly, otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "analysis/analyze.h"
#include "file/recfile.h"
#include "file_blocks.h"
#include "unit.h"
#include "kselftest_harness.h"

#define N_REQ 200000
#define DIR "/tmp/iolat_report_test"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A record file of one device "nullb0" (or @dev) with @n reads over
 * 10 s, Q2C log-normal around @median_ns; the latencies go to @lat.
 */
static unsigned int write_every;	/* every Nth request a write (0: none) */

/* The completion of request @i of @n write_file() makes, from the start. */
static uint64_t gen_c_ns(unsigned int i, unsigned int n)
{
	return (uint64_t)i * 10000000000ULL / n + 1000;
}

static int write_file(const char *path, const char *dev, unsigned int n,
		      double median_ns, uint64_t *lat)
{
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	struct iolat_dev_counters c[1] = { 0 };
	struct iolat_run run = { 0 };
	struct iolat_record r;
	struct iolat_file *f;
	uint64_t t0 = 1000000000000ULL, t, next_mark;
	unsigned int i;

	header_init(h, t0);
	h->t0_real_ns = 1800000000ULL * 1000000000ULL;
	strcpy(h->cli_version, "test");
	strcpy(h->module_version, "test");
	strcpy(h->host, "testhost");
	strcpy(h->kernel, "6.1.0-test");
	header_one_dev(h, dev, 250);
	h->devs[0].sectors = 1 << 21;
	f = iolat_file_create(path, h);
	free(h);
	if (!f)
		return -1;
	next_mark = t0 + 10000000;
	for (i = 0; i < n; i++) {
		double u1 = uniform(), u2 = uniform();
		double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

		lat[i] = (uint64_t)(median_ns * exp(0.5 * z)) + 1;
		t = t0 + gen_c_ns(i, n);
		while (t > next_mark) {
			iolat_file_mark(f, next_mark);
			next_mark += 10000000;
		}
		memset(&r, 0, sizeof(r));
		r.major = 250;
		r.q_ns = t > lat[i] ? t - lat[i] : 1;
		r.d_ns = r.q_ns + lat[i] / 10;
		r.c_ns = t;
		r.bytes = 4096;
		r.sector = (i * 7919ULL) % (1 << 21);
		r.nr_bios = 1;
		r.op = write_every && !(i % write_every) ? IOLAT_OP_WRITE :
						    IOLAT_OP_READ;
		r.pid = 100 + i % 3;
		strcpy(r.comm, "fio");
		iolat_file_records(f, &r);
	}
	run.seconds = 10;
	run.delivered = n;
	run.stats.written = n;
	c[0].valid = true;
	c[0].start_ns = t0;
	c[0].now_ns = t0 + 10000000000ULL;
	c[0].busy_ns = 9000000000ULL;
	c[0].qbusy_ns = 9500000000ULL;
	c[0].inflight_ns = 12000000000ULL;
	c[0].qinflight_ns = 15000000000ULL;
	iolat_file_mark(f, t0 + 10000000000ULL + 5000000);
	iolat_file_end(f, t0 + 10000000000ULL + 5000000, &run, 1, c);
	return iolat_file_close(f);
}

FIXTURE(report) {
	uint64_t *lat;
};

FIXTURE_SETUP(report)
{
	self->lat = malloc(N_REQ * sizeof(*self->lat));
	ASSERT_NE(NULL, self->lat);
	ASSERT_EQ(0, sh("mkdir -p " DIR));
	ASSERT_EQ(0, write_file(DIR "/a.rec", "nullb0", N_REQ, 200e3,
				self->lat));
}

FIXTURE_TEARDOWN(report)
{
	free(self->lat);
}

/* The run's Q2C percentiles within 0.4% of the exact sorted values. */
TEST_F(report, percentiles_exact_within_bins)
{
	static const struct { const char *key; double p; } pct[] = {
		{ "\"p50_ns\": ", 0.5 }, { "\"p90_ns\": ", 0.9 },
		{ "\"p99_ns\": ", 0.99 }, { "\"p99.9_ns\": ", 0.999 },
	};
	const char *dev, *q2c;
	char *out;
	size_t i;

	ASSERT_EQ(0, sh("%s report -o json %s/a.rec >%s/a.json", cli(), DIR,
			DIR));
	out = slurp(DIR "/a.json");
	dev = strstr(out, "\"devices\": [{\"name\": \"nullb0\"");
	ASSERT_NE(NULL, dev);
	q2c = strstr(dev, "\"Q2C\": ");
	ASSERT_NE(NULL, q2c);
	EXPECT_EQ(N_REQ, json_after(q2c, "\"count\": "));
	qsort(self->lat, N_REQ, sizeof(*self->lat), cmp_u64);
	for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
		uint64_t rank = (uint64_t)ceil(N_REQ * pct[i].p);
		double exact = self->lat[rank - 1];
		double got = json_after(q2c, pct[i].key);

		EXPECT_GE(0.004, fabs(got - exact) / exact)
			TH_LOG("%s got %.0f exact %.0f", pct[i].key, got, exact);
	}
	free(out);
}

/*
 * Intervals of 1 s: ten, and the last 5 ms to the stop; every request in
 * exactly one of them.
 */
TEST_F(report, intervals_add_up)
{
	char *out, *p, *end;
	long long sum = 0;
	int n = 0;

	ASSERT_EQ(0, sh("%s report -o json -i 1 %s/a.rec >%s/i.json", cli(),
			DIR, DIR));
	out = slurp(DIR "/i.json");
	end = strstr(out, "], \"devices\": [");
	ASSERT_NE(NULL, end);
	*end = '\0';
	for (p = strstr(out, "\"intervals\""); p && (p = strstr(p, "\"from_s\""));
	     p++) {
		char *ios = strstr(p, "\"ios\": "), *next = strstr(p + 1, "\"from_s\"");

		n++;
		if (ios && (!next || ios < next))
			sum += strtoll(ios + 7, NULL, 10);
	}
	EXPECT_EQ(11, n);
	EXPECT_EQ(N_REQ, sum);
	free(out);
}

/*
 * The records in the blocks of @path that lie wholly before byte @cut,
 * and the offset of the block that contains @cut: the test's own walk of
 * the file format (docs/abi.md), not the CLI's reader.
 */
static long long records_before(const char *path, long cut, long *block_at)
{
	struct iolat_file_block_head bh;
	long long n = 0;
	long off = sizeof(struct iolat_file_header);
	FILE *f = fopen(path, "r");

	*block_at = -1;
	if (!f)
		return -1;
	while (!fseek(f, off, SEEK_SET) && fread(&bh, sizeof(bh), 1, f) == 1) {
		if (off + (long)sizeof(bh) + (long)bh.len > cut) {
			*block_at = off;
			break;
		}
		if (bh.type == IOLAT_FB_RECORDS)
			n += bh.len / sizeof(struct iolat_record);
		off += sizeof(bh) + bh.len;
	}
	fclose(f);
	return n;
}

/* The Q2C count of nullb0's reads in `report -o json` output, or 0. */
static long long q2c_count(const char *json)
{
	const char *q2c = strstr(json, "\"Q2C\": ");

	return q2c ? (long long)json_after(q2c, "\"count\": ") : 0;
}

/*
 * A file cut at any byte after its header (the recorder killed, the disk
 * full) is read up to its last whole block: every record before the cut,
 * a warning saying where and how much was lost, "incomplete" in the
 * JSON, exit status 1.  Twenty-five random cuts, each checked
 * against the test's own walk of the blocks.
 */
TEST_F(report, cut_at_any_byte)
{
	long long want, got;
	struct stat st;
	long cut, at, hdr = sizeof(struct iolat_file_header);
	char *err, *out, want_text[64];
	int i, rc;

	ASSERT_EQ(0, stat(DIR "/a.rec", &st));
	for (i = 0; i < 25; i++) {
		cut = hdr + (long)(uniform() * (st.st_size - hdr));
		if (i == 0)
			cut = hdr;	/* the header alone */
		want = records_before(DIR "/a.rec", cut, &at);
		ASSERT_LE(0, want);
		ASSERT_EQ(0, sh("head -c %ld %s/a.rec >%s/cut.rec", cut, DIR, DIR));
		rc = sh("%s report -o json %s/cut.rec >%s/cut.json 2>%s/err",
			cli(), DIR, DIR, DIR);
		err = slurp(DIR "/err");
		out = slurp(DIR "/cut.json");
		got = q2c_count(out);
		EXPECT_EQ(1, rc) TH_LOG("cut at %ld: %s", cut, err);
		EXPECT_EQ(want, got) TH_LOG("cut at %ld (block at %ld): %s", cut, at, err);
		EXPECT_NE(NULL, strstr(err, "iolat: warning: ")) TH_LOG("%s", err);
		snprintf(want_text, sizeof(want_text), "at byte %ld: ", at);
		EXPECT_NE(NULL, strstr(err, want_text)) TH_LOG("%s", err);
		snprintf(want_text, sizeof(want_text), "; the %ld byte", cut - at);
		EXPECT_NE(NULL, strstr(err, want_text)) TH_LOG("%s", err);
		EXPECT_EQ(NULL, strchr(err, '\n') ? strchr(strchr(err, '\n') + 1, '\n') : NULL);
		EXPECT_NE(NULL, strstr(out, "\"incomplete\": true"));
		free(err);
		free(out);
	}
	/* shorter than a header: nothing to read */
	ASSERT_EQ(0, sh("head -c %ld %s/a.rec >%s/cut.rec", hdr - 1, DIR, DIR));
	EXPECT_EQ(1, sh("%s report %s/cut.rec >/dev/null 2>%s/err", cli(), DIR, DIR));
	err = slurp(DIR "/err");
	EXPECT_NE(NULL, strstr(err, "too short")) TH_LOG("%s", err);
	free(err);
}

/*
 * A byte flipped in a block (a `G2I 71776101.09s` row, exit
 * 0): its checksum stops the reading there, with a warning; a block
 * length past any sane size likewise; not a record file, or none: one
 * line, non-zero exit.
 */
TEST_F(report, damaged_and_foreign_files)
{
	long long want;
	struct stat st;
	long off, at;
	char *err;

	ASSERT_EQ(0, stat(DIR "/a.rec", &st));
	off = st.st_size / 2;
	want = records_before(DIR "/a.rec", off, &at);
	ASSERT_EQ(0, sh("cp %s/a.rec %s/flip.rec && printf '\\125' | dd of=%s/flip.rec bs=1 seek=%ld conv=notrunc status=none && ! cmp -s %s/a.rec %s/flip.rec",
			DIR, DIR, DIR, off, DIR, DIR));
	EXPECT_EQ(1, sh("%s report -o json %s/flip.rec >%s/flip.json 2>%s/err", cli(),
			DIR, DIR, DIR));
	err = slurp(DIR "/err");
	EXPECT_NE(NULL, strstr(err, "damaged (a block's checksum)")) TH_LOG("%s", err);
	free(err);
	err = slurp(DIR "/flip.json");
	EXPECT_EQ(want, q2c_count(err));
	free(err);
	/* a block length that runs past any sane size */
	ASSERT_EQ(0, sh("cp %s/a.rec %s/len.rec && printf '\\377\\377\\377\\177' | dd of=%s/len.rec bs=1 seek=%zu conv=notrunc status=none",
			DIR, DIR, DIR, sizeof(struct iolat_file_header) + 4));
	EXPECT_EQ(1, sh("%s report %s/len.rec >/dev/null 2>%s/err", cli(),
			DIR, DIR));
	err = slurp(DIR "/err");
	EXPECT_NE(NULL, strstr(err, "damaged (a block's length)")) TH_LOG("%s", err);
	free(err);
	ASSERT_EQ(0, sh("printf 'not a record file at all, really not' >%s/bad.rec",
			DIR));
	EXPECT_NE(0, sh("%s report %s/bad.rec >/dev/null 2>%s/err", cli(),
			DIR, DIR));
	err = slurp(DIR "/err");
	EXPECT_NE(NULL, strstr(err, "not an iolat record file")) TH_LOG("%s", err);
	free(err);
	EXPECT_NE(0, sh("%s report %s/missing.rec >/dev/null 2>&1", cli(), DIR));
}

/*
 * Options after the file, as README, the man page and docs/output.md
 * write them: `plot FILE -o SVG`, `report FILE -o json -d
 * DEV`.  A device or file that is not there: one line, non-zero exit,
 * nothing on standard output.
 */
TEST_F(report, options_after_the_file)
{
	char *out;

	ASSERT_EQ(0, sh("rm -f %s/after.svg && %s plot %s/a.rec -o %s/after.svg -i 2 2>%s/err",
			DIR, cli(), DIR, DIR, DIR)) TH_LOG("%s", slurp(DIR "/err"));
	out = slurp(DIR "/after.svg");
	EXPECT_NE(NULL, strstr(out, "</svg>"));
	free(out);
	ASSERT_EQ(0, sh("%s report %s/a.rec -o json -d nullb0 >%s/after.json 2>%s/err",
			cli(), DIR, DIR, DIR)) TH_LOG("%s", slurp(DIR "/err"));
	out = slurp(DIR "/after.json");
	EXPECT_NE(NULL, strstr(out, "\"devices\": [{\"name\": \"nullb0\""))
		TH_LOG("%.200s", out);
	EXPECT_EQ(N_REQ, json_after(strstr(out, "\"Q2C\": ") ?: "",
				    "\"count\": "));
	free(out);
	EXPECT_EQ(2, sh("%s report %s/a.rec -o json -d nullb7 >%s/out 2>%s/err",
			cli(), DIR, DIR, DIR));
	out = slurp(DIR "/err");
	EXPECT_NE(NULL, strstr(out, "no device 'nullb7'")) TH_LOG("%s", out);
	free(out);
	EXPECT_NE(0, sh("%s report %s/a.rec %s/missing.rec -o json >%s/out 2>%s/err",
			cli(), DIR, DIR, DIR, DIR));
	out = slurp(DIR "/err");
	EXPECT_NE(NULL, strstr(out, "missing.rec")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strchr(out, '\n') ? strchr(strchr(out, '\n') + 1, '\n') : NULL);
	free(out);
	out = slurp(DIR "/out");
	EXPECT_STREQ("", out);
	free(out);
}

static bool have(const char *tool)
{
	return !sh("command -v %s >/dev/null", tool);
}

static bool ci(void)
{
	return getenv("CI") && !strcmp(getenv("CI"), "true");
}

/*
 * promtool accepts the exposition; the sum of two hosts' expositions is
 * the exposition of both record sets: every bucket, sum and count.
 */
TEST_F(report, prom_valid_and_summable)
{
	uint64_t *lat2 = malloc(N_REQ * sizeof(*lat2));

	ASSERT_NE(NULL, lat2);
	ASSERT_EQ(0, write_file(DIR "/b.rec", "nullb0", N_REQ / 2, 3e6, lat2));
	free(lat2);
	ASSERT_EQ(0, sh("%s report -o prom %s/a.rec >%s/a.prom && %s report -o prom %s/b.rec >%s/b.prom && %s report -o prom %s/a.rec %s/b.rec >%s/ab.prom",
			cli(), DIR, DIR, cli(), DIR, DIR, cli(), DIR, DIR, DIR));
	if (!have("promtool")) {
		if (ci())
			ASSERT_TRUE(0) TH_LOG("promtool is missing (prometheus package)");
		SKIP(return, "promtool is not installed (apt-get install prometheus)");
	}
	EXPECT_EQ(0, sh("promtool check metrics <%s/a.prom", DIR));
	EXPECT_EQ(0, sh("promtool check metrics <%s/ab.prom", DIR));
	/* a + b, series by series, is ab (numbers as decimal strings; the
	 * build-info gauge is 1 in each, not a sum) */
	EXPECT_EQ(0, sh("awk '!/^#/ && !/^iolat_build_info/ { split($2, p, \".\"); v[$1] += p[1] * 1e9 + (p[2] ? p[2] : 0) } END { for (k in v) printf \"%%s %%.0f\\n\", k, v[k] }' %s/a.prom %s/b.prom | sort >%s/sum && awk '!/^#/ && !/^iolat_build_info/ { split($2, p, \".\"); printf \"%%s %%.0f\\n\", $1, p[1] * 1e9 + (p[2] ? p[2] : 0) }' %s/ab.prom | sort >%s/ab && cmp %s/sum %s/ab",
			DIR, DIR, DIR, DIR, DIR, DIR, DIR));
}

/*
 * Prometheus for a fleet: --buckets 2, 1 and 0.5 give 53, 27
 * and 14 bounds (and +Inf) instead of 105, each bound's count the same
 * as at that bound of the finest; the writes' series of a device that
 * only read are there at zero; iolat_build_info names the versions.
 */
TEST_F(report, prom_buckets_zeros_build_info)
{
	static const struct { const char *per; int bounds; } b[] = {
		{ "4", 105 }, { "2", 53 }, { "1", 27 }, { "0.5", 14 },
	};
	char *out;
	size_t i;

	ASSERT_EQ(0, sh("%s report -o prom %s/a.rec >%s/p4.prom", cli(), DIR, DIR));
	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		/* the read Q2C histogram's bounds, +Inf aside */
		EXPECT_EQ(b[i].bounds, sh("exit $(%s report -o prom --buckets %s %s/a.rec | tee %s/p.prom | grep -c 'bucket{device=\"nullb0\",op=\"read\",stage=\"Q2C\",le=\"[0-9]')",
					  cli(), b[i].per, DIR, DIR)) TH_LOG("--buckets %s", b[i].per);
		/* each coarse bucket line is one of the finest */
		EXPECT_EQ(0, sh("grep _bucket %s/p.prom | grep -vxF -f %s/p4.prom | grep -q . && exit 1; exit 0",
				DIR, DIR)) TH_LOG("--buckets %s", b[i].per);
	}
	out = slurp(DIR "/p4.prom");
	EXPECT_NE(NULL, strstr(out, "iolat_requests_total{device=\"nullb0\",op=\"write\"} 0\n"));
	EXPECT_NE(NULL, strstr(out, "iolat_request_duration_seconds_count{device=\"nullb0\",op=\"write\",stage=\"Q2C\"} 0\n"));
	EXPECT_NE(NULL, strstr(out, "iolat_build_info{version=\"test\",module=\"test\",kernel=\"6.1.0-test\"} 1\n"));
	free(out);
	EXPECT_EQ(2, sh("%s report -o prom --buckets 3 %s/a.rec >/dev/null 2>%s/err", cli(), DIR, DIR));
	out = slurp(DIR "/err");
	EXPECT_NE(NULL, strstr(out, "--buckets takes 4, 2, 1 or 0.5")) TH_LOG("%s", out);
	free(out);
}

/* The labels of the ticks of class @cls in @svg, up to @max; how many. */
static int tick_values(const char *svg, const char *cls, double *v, int max)
{
	char pre[64];
	const char *p = svg;
	int n = 0;

	snprintf(pre, sizeof(pre), "class=\"tick %s\"", cls);
	while (p && n < max && (p = strstr(p, pre)) && (p = strchr(p, '>')))
		v[n++] = strtod(++p, NULL);
	return n;
}

/* Is @v a whole multiple of 1, 2 or 5 times a power of ten, @step? */
static bool round_multiple(double v, double step)
{
	double e = floor(log10(step)), m = step / pow(10, e);

	return (fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9) &&
	       fabs(v / step - round(v / step)) < 1e-6;
}

/* The numbers of attribute @attr (space-separated) after @from, up to @max. */
static int attr_numbers(const char *from, const char *attr, double *v,
			int max)
{
	const char *p = strstr(from, attr);
	char *end;
	int n = 0;

	if (!p)
		return -1;
	p += strlen(attr);
	while (n < max && *p != '"') {
		v[n++] = strtod(p, &end);
		if (end == p)
			return -1;
		p = end;
	}
	return n;
}

/*
 * Each percentile line of the reads' heatmap of the plot of @svg against
 * the truth: per interval its attributes name, the latency of that rank
 * among the reads write_file() generated (@lat, every @every-th request
 * a write) that completed in it, to the histograms' 0.4%.  Return: the
 * values compared.
 */
static int plot_pct_check(struct __test_metadata *_metadata, const char *svg,
			  const uint64_t *lat, unsigned int every)
{
	static double from[64], to[64], ns[64];
	static uint64_t col[N_REQ];
	const char *p = strstr(svg, "data-device=\"nullb0\" data-op=\"read\"");
	const char *end = p ? strstr(p, "data-op=\"write\"") : NULL;
	int n, j, checked = 0;
	double pct, exact;
	size_t i, m;

	if (!p || !end)
		return -1;
	while ((p = strstr(p, "class=\"percentile\" data-pct=\"p")) && p < end) {
		p += strlen("class=\"percentile\" data-pct=\"p");
		pct = strtod(p, NULL) / 100;
		n = attr_numbers(p, "data-from-s=\"", from, 64);
		if (attr_numbers(p, "data-to-s=\"", to, 64) != n ||
		    attr_numbers(p, "data-ns=\"", ns, 64) != n || n < 3)
			return -1;
		for (j = 0; j < n; j++) {
			for (i = 0, m = 0; i < N_REQ; i++) {
				uint64_t t = gen_c_ns(i, N_REQ);

				if (i % every && t >= llround(from[j] * 1e9) &&
				    t < llround(to[j] * 1e9))
					col[m++] = lat[i];
			}
			if (!m)
				return -1;
			qsort(col, m, sizeof(*col), cmp_u64);
			exact = col[(size_t)ceil(m * pct) - 1];
			EXPECT_GE(0.004, fabs(ns[j] - exact) / exact)
				TH_LOG("p%g of %.3f-%.3f s: plotted %.0f, exact %.0f of %zu",
				       pct * 100, from[j], to[j], ns[j], exact, m);
			checked++;
		}
	}
	return checked;
}

/*
 * The plot: a heatmap per device and op, round ticks on every
 * axis (1, 2 or 5 times a power of ten) and their titles, a colour
 * scale, the percentiles over a white edge, each line's values those of
 * the requests generated (plot_pct_check()), tooltips with the latency
 * range; it renders in headless Chromium (a PNG with more than white),
 * kept as docs/plot.png when IOLAT_PLOT_PNG names where.
 */
TEST_F(report, plot_renders)
{
	double v[64], step;
	char *svg;
	int n, i;

	write_every = 3;
	ASSERT_EQ(0, write_file(DIR "/rw.rec", "nullb0", N_REQ, 200e3, self->lat));
	write_every = 0;
	ASSERT_EQ(0, sh("%s plot -o %s/a.svg %s/rw.rec", cli(), DIR, DIR));
	svg = slurp(DIR "/a.svg");
	EXPECT_NE(NULL, strstr(svg, "</svg>"));
	EXPECT_NE(NULL, strstr(svg, "data-device=\"nullb0\" data-op=\"read\""));
	EXPECT_NE(NULL, strstr(svg, "data-device=\"nullb0\" data-op=\"write\""));
	EXPECT_NE(NULL, strstr(svg, "id=\"legend\""));
	EXPECT_NE(NULL, strstr(svg, ">time (s)</text>"));
	EXPECT_NE(NULL, strstr(svg, ">latency</text>"));
	EXPECT_NE(NULL, strstr(svg, "class=\"halo\""));
	EXPECT_NE(NULL, strstr(svg, "us: ")) TH_LOG("no latency range in the tooltips");
	/* the time ticks (not 4.7 s, 9.41 s): 0, then a round step */
	n = tick_values(svg, "time", v, 64);
	ASSERT_LE(3, n);
	step = v[1] - v[0];
	EXPECT_EQ(0.0, v[0]);
	for (i = 1; i < n; i++)
		EXPECT_TRUE(round_multiple(v[i], step)) TH_LOG("time tick %g, step %g", v[i], step);
	/* the IOPS axis (not only 0 and 1.36e+04): 0 and round steps */
	n = tick_values(strstr(svg, "data-title=\"IOPS\""), "value", v, 6);
	ASSERT_LE(3, n);
	step = v[1] - v[0];
	for (i = 1; i < n; i++)
		EXPECT_TRUE(round_multiple(v[i], step)) TH_LOG("IOPS tick %g, step %g", v[i], step);
	/* latency ticks between the decades when the range is narrow */
	n = tick_values(svg, "latency", v, 64);
	EXPECT_LE(3, n);
	/* the lines are the percentiles of the requests generated */
	n = plot_pct_check(_metadata, svg, self->lat, 3);
	TH_LOG("%d percentile values of the reads' lines checked", n);
	EXPECT_LE(6, n);
	free(svg);
	if (!have("chromium")) {
		if (ci())
			ASSERT_TRUE(0) TH_LOG("chromium is missing");
		SKIP(return, "chromium is not installed (apt-get install chromium)");
	}
	ASSERT_EQ(0, sh("cd %s && rm -f a.png && timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1260,1300 --screenshot=a.png file://%s/a.svg >chromium.log 2>&1",
			DIR, DIR));
	/* pixels that are not the white background: a blank page has none */
	EXPECT_EQ(0, sh("/usr/bin/python3 -c 'import sys; from PIL import Image\n"
			"im = Image.open(\"%s/a.png\").convert(\"RGB\")\n"
			"px = im.getdata()\n"
			"ink = sum(1 for p in px if p != (255, 255, 255))\n"
			"colours = len(set(px))\n"
			"print(\"png %%dx%%d: %%d pixels drawn, %%d colours\" %% (im.width, im.height, ink, colours))\n"
			"sys.exit(0 if ink > im.width * im.height // 50 and colours > 20 else 1)'",
			DIR));
	if (getenv("IOLAT_PLOT_PNG"))
		sh("cp %s/a.png %s", DIR, getenv("IOLAT_PLOT_PNG"));
}

/*
 * A stack's split (user/analysis/stack.c), from a file of known times: dm-0's I/Os
 * (IOLAT_F_BIO) and the requests of nullb0 made from them (IOLAT_F_STACK,
 * the same link), one or two each, the I/O's record in the drain of its
 * requests or the next.  Above and below come out at the exact medians
 * (to a bin), every request is counted once, an I/O without a request
 * below and a request without its I/O are counted apart, and one whose
 * requests lie outside it is not split.
 */
#define N_STACK 2001

/* A 4 KiB write of device @major, flags @flags, of the stack's I/O @link. */
static void stack_rec(struct iolat_record *r, uint32_t major, uint32_t flags,
		      uint64_t link)
{
	memset(r, 0, sizeof(*r));
	r->major = major;
	r->op = IOLAT_OP_WRITE;
	r->flags = flags | IOLAT_F_SUBMITTER;
	r->bytes = 4096;
	r->nr_bios = 1;
	r->link = link;
	strcpy(r->comm, "fio");
}

TEST(stack_split_exact)
{
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	static uint64_t above[N_STACK], below[N_STACK];
	struct iolat_dev_counters c[2] = { 0 };
	struct iolat_record up, low;
	struct iolat_run run = { 0 };
	uint64_t t0 = 1000000000000ULL, t, pieces = 0;
	struct iolat_file *f;
	const char *dev, *st;
	unsigned int i, k;
	char *out, *p;
	/* by the second the I/O completed in: I/Os, sums above and below */
	double col_n[4] = { 0 }, col_a[4] = { 0 }, col_b[4] = { 0 }, v;

	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, sh("mkdir -p " DIR));
	header_init(h, t0);
	h->nr_devs = 2;
	strcpy(h->devs[0].name, "dm-0");
	h->devs[0].major = 253;
	strcpy(h->devs[1].name, "nullb0");
	h->devs[1].major = 250;
	for (i = 0; i < 2; i++) {
		h->devs[i].nr_hwq = 1;
		h->devs[i].depth = 64;
		h->devs[i].nvme_ctrl = -1;
	}
	f = iolat_file_create(DIR "/stack.rec", h);
	free(h);
	ASSERT_NE(NULL, f);
	for (i = 0; i < N_STACK; i++) {
		uint64_t a1 = 1000 + uniform() * 50000, b = 20000 + uniform() * 400000;
		uint64_t a2 = 500 + uniform() * 30000, lq, lc;

		t = t0 + i * 1000000ULL;
		stack_rec(&up, 253, IOLAT_F_BIO, i + 1);
		up.q_ns = t;
		lq = t + a1;
		lc = lq + b;
		up.c_ns = lc + a2;
		above[i] = a1 + a2;
		below[i] = b;
		k = (up.c_ns - t0) / 1000000000ULL;
		col_n[k]++;
		col_a[k] += above[i];
		col_b[k] += below[i];
		/* one request below, or two (a mirror's), the second inside */
		for (k = 0; k < 1 + i % 2; k++) {
			stack_rec(&low, 250, IOLAT_F_STACK, up.link);
			low.q_ns = k ? lq + b / 4 : lq;
			low.d_ns = low.q_ns + 100;
			low.c_ns = k ? lc - b / 4 : lc;
			iolat_file_records(f, &low);
			pieces++;
		}
		/* every third I/O's record comes a drain after its requests' */
		if (i % 3)
			iolat_file_records(f, &up);
		iolat_file_mark(f, t + 500000);
		if (!(i % 3))
			iolat_file_records(f, &up);
	}
	/* an I/O with nothing below, and a request without its I/O */
	up.link = N_STACK + 1;
	up.q_ns = t + 600000;
	up.c_ns = t + 700000;
	iolat_file_records(f, &up);
	low.link = N_STACK + 2;
	iolat_file_records(f, &low);
	/* an I/O whose request below completed after it: not split */
	up.link = N_STACK + 3;
	low.link = N_STACK + 3;
	low.q_ns = up.q_ns + 10;
	low.c_ns = up.c_ns + 10;
	iolat_file_records(f, &low);
	iolat_file_records(f, &up);
	run.seconds = N_STACK / 1000.0;
	run.delivered = N_STACK * 2 + pieces + 4;
	run.stats.written = run.delivered;
	iolat_file_mark(f, t + 900000);
	iolat_file_end(f, t + 900000, &run, 2, c);
	ASSERT_EQ(0, iolat_file_close(f));

	ASSERT_EQ(0, sh("%s report -o json %s/stack.rec >%s/stack.json", cli(),
			DIR, DIR));
	out = slurp(DIR "/stack.json");
	ASSERT_NE(NULL, out);
	dev = strstr(out, "\"name\": \"dm-0\"");
	ASSERT_NE(NULL, dev);
	st = strstr(dev, "\"stack\": {");
	ASSERT_NE(NULL, st) TH_LOG("%s", out);
	EXPECT_EQ(1, json_after(st, "\"alone\": "));
	EXPECT_EQ(1, json_after(st, "\"outside\": "));
	EXPECT_EQ(N_STACK, json_after(st, "\"ios\": "));
	EXPECT_EQ(pieces, json_after(st, "\"requests\": "));
	qsort(above, N_STACK, sizeof(above[0]), cmp_u64);
	qsort(below, N_STACK, sizeof(below[0]), cmp_u64);
	EXPECT_GE(0.008, fabs(json_after(strstr(st, "\"above\": "), "\"p50_ns\": ") -
			      above[N_STACK / 2]) / above[N_STACK / 2]);
	EXPECT_GE(0.008, fabs(json_after(strstr(st, "\"below\": "), "\"p50_ns\": ") -
			      below[N_STACK / 2]) / below[N_STACK / 2]);
	EXPECT_EQ(1, json_after(strstr(out, "\"orphans\": "), "\"orphans\": "));
	/* nullb0's requests are not split themselves */
	EXPECT_EQ(NULL, strstr(strstr(out, "\"name\": \"nullb0\""), "\"stack\": {\"alone\""));
	free(out);

	/*
	 * The exposition (export's and record -o prom's): dm-0's stages
	 * "above" and "below", each counting the I/Os split and summing
	 * their times to the nanosecond.
	 */
	ASSERT_EQ(0, sh("%s report -o prom %s/stack.rec >%s/stack.prom", cli(),
			DIR, DIR));
	out = slurp(DIR "/stack.prom");
	ASSERT_NE(NULL, out);
	for (k = 0; k < 2; k++) {
		char pat[160];
		double sum = 0;

		for (i = 0; i < N_STACK; i++)
			sum += k ? below[i] : above[i];
		snprintf(pat, sizeof(pat),
			 "iolat_request_duration_seconds_count{device=\"dm-0\",op=\"write\",stage=\"%s\"} ",
			 k ? "below" : "above");
		p = strstr(out, pat);
		ASSERT_NE(NULL, p) TH_LOG("no %s", pat);
		EXPECT_EQ(N_STACK, strtoull(p + strlen(pat), NULL, 10));
		snprintf(pat, sizeof(pat),
			 "iolat_request_duration_seconds_sum{device=\"dm-0\",op=\"write\",stage=\"%s\"} ",
			 k ? "below" : "above");
		p = strstr(out, pat);
		ASSERT_NE(NULL, p) TH_LOG("no %s", pat);
		EXPECT_GE(0.5e-9, fabs(strtod(p + strlen(pat), NULL) - sum / 1e9));
	}
	EXPECT_EQ(NULL, strstr(out, "device=\"nullb0\",op=\"write\",stage=\"above\""));
	free(out);
	if (have("promtool"))
		EXPECT_EQ(0, sh("promtool check metrics <%s/stack.prom", DIR));

	/*
	 * The plot: dm-0's panel of the mean time above and below, one
	 * point per second its I/Os completed in, each that second's mean
	 * to the nanosecond (its values, data-us, in microseconds); none
	 * for nullb0.
	 */
	ASSERT_EQ(0, sh("%s report -o svg -i 1 %s/stack.rec >%s/stack.svg", cli(),
			DIR, DIR));
	out = slurp(DIR "/stack.svg");
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "data-title=\"dm-0: time above it and below it"));
	EXPECT_EQ(NULL, strstr(out, "data-title=\"nullb0: time above"));
	for (k = 0; k < 2; k++) {
		p = strstr(out, k ? "class=\"below\" data-us=\"" :
				   "class=\"above\" data-us=\"");
		ASSERT_NE(NULL, p) TH_LOG("no %s line", k ? "below" : "above");
		p = strstr(p, "data-us=\"") + strlen("data-us=\"");
		for (i = 0; i < 4; i++) {
			if (!col_n[i])
				continue;
			v = strtod(p, &p);
			EXPECT_GE(0.0011, fabs(v - (k ? col_b[i] : col_a[i]) /
						   col_n[i] / 1e3))
				TH_LOG("%s, second %u: %.3f us", k ? "below" : "above",
				       i, v);
		}
		EXPECT_EQ('"', *p);
	}
	free(out);
}

TEST_HARNESS_MAIN
