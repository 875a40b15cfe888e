// SPDX-License-Identifier: GPL-2.0
/*
 * iolat stat: an iostat-like table per interval from iolat's exact
 * counters (busy time and in-flight integrals in nanoseconds, kept by
 * the module without records), with the kernel's own %util and aqu-sz
 * from /proc/diskstats beside them and the difference; then the whole
 * run and the queue depth at issue as a histogram.  The difference is
 * the kernel's %util less iolat's queue-busy %util, its counterpart: the
 * kernel counts a request busy from its allocation to its end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "util/json.h"

#define U(x) ((unsigned long long)(x))

struct stat_state {
	struct iolat_session *s;
	bool json;
	double interval;
	/* [nr_devs] each: at the start, at the last row, now */
	struct iolat_dev_counters *first, *prev, *cur;
	struct iolat_diskstats *kfirst, *kprev, *kcur;
	bool failed;
	bool active;		/* -z: only the devices with requests */
	unsigned int rows;
};

/* Did the device complete or hold a request between @a and @b? */
static bool had_io(const struct iolat_dev_counters *a,
		   const struct iolat_dev_counters *b)
{
	unsigned int op;

	for (op = 0; op < IOLAT_OP_NR; op++)
		if (b->ios[op] != a->ios[op])
			return true;
	return b->queued || b->qbusy_ns != a->qbusy_ns;
}

/*
 * iostat -x's columns where iolat counts them (kB is 1024 bytes, as
 * there; rrqm/s and wrqm/s are the kernel's own merge counts), then
 * iolat's exact busy and depth figures, then the kernel's beside them.
 */
static void header(void)
{
	printf("%9s %-10s %8s %9s %7s %7s %8s %8s %9s %7s %7s %8s %7s %8s %7s %7s %7s %7s %6s %6s %6s | %7s %8s %9s\n",
	       "time", "device", "r/s", "rkB/s", "rrqm/s", "r_await",
	       "rareq-sz", "w/s", "wkB/s", "wrqm/s", "w_await", "wareq-sz",
	       "d/s", "dkB/s", "d_await", "f/s", "f_await", "aqu-sz", "qd@D",
	       "%util", "%qutil", "k:%util", "k:aqu-sz", "k-q:%util");
}

/* The non-empty queue-depth buckets between two readings: [low, n]. */
static void json_qd_hist(struct json *j, const struct iolat_dev_counters *a,
			 const struct iolat_dev_counters *b)
{
	unsigned int i;

	json_arr(j, "qd_hist");
	for (i = 0; i < IOLAT_QD_BUCKETS; i++) {
		uint64_t n = b->qd_hist[i] - a->qd_hist[i];

		if (!n)
			continue;
		json_arr(j, NULL);
		json_u64(j, NULL, iolat_qd_bucket_low(i));
		json_u64(j, NULL, n);
		json_end(j);
	}
	json_end(j);
}

/*
 * A stack's bio-based device: its await split above and below, and the
 * I/Os with requests below and their time there, all ops.
 */
static void json_split(struct json *j, const struct iolat_stat_row *r,
		       const struct iolat_dev_counters *a,
		       const struct iolat_dev_counters *b)
{
	uint64_t ios = 0, ns = 0;
	unsigned int op;

	for (op = 0; op < IOLAT_OP_NR; op++) {
		ios += b->below_ios[op] - a->below_ios[op];
		ns += b->below_ns[op] - a->below_ns[op];
	}
	json_obj(j, "stack");
	json_double(j, "r_above_ms", "%.6f", r->r_above_ms);
	json_double(j, "r_below_ms", "%.6f", r->r_below_ms);
	json_double(j, "w_above_ms", "%.6f", r->w_above_ms);
	json_double(j, "w_below_ms", "%.6f", r->w_below_ms);
	json_double(j, "r_joined", "%.6f", r->r_joined);
	json_double(j, "w_joined", "%.6f", r->w_joined);
	json_u64(j, "below_ios", ios);
	json_u64(j, "below_ns", ns);
	json_end(j);
}

/* A number of a row: its key, its format and its value. */
struct stat_num {
	const char *key;
	const char *fmt;
	double v;
};

static void json_nums(struct json *j, const struct stat_num *n, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		json_double(j, n[i].key, n[i].fmt, n[i].v);
}

#define NUMS(a) (a), sizeof(a) / sizeof((a)[0])

/* One device's row as a JSON line. */
static void json_row(const char *name, double t, bool total,
		     const struct iolat_stat_row *r,
		     const struct iolat_dev_counters *a,
		     const struct iolat_dev_counters *b,
		     const struct iolat_diskstats *ka,
		     const struct iolat_diskstats *kb)
{
	const struct stat_num rates[] = {
		{ "seconds", "%.6f", r->secs },
		{ "r_s", "%.3f", r->r_s }, { "w_s", "%.3f", r->w_s },
		{ "rkB_s", "%.3f", r->rkb_s }, { "wkB_s", "%.3f", r->wkb_s },
		{ "rareq_sz", "%.3f", r->rareq_kb },
		{ "wareq_sz", "%.3f", r->wareq_kb },
		{ "d_s", "%.3f", r->d_s }, { "dkB_s", "%.3f", r->dkb_s },
		{ "d_await_ms", "%.6f", r->d_await_ms },
		{ "f_s", "%.3f", r->f_s },
		{ "f_await_ms", "%.6f", r->f_await_ms },
		{ "r_await_ms", "%.6f", r->r_await_ms },
		{ "w_await_ms", "%.6f", r->w_await_ms },
		{ "aqu_sz", "%.6f", r->aqu_sz }, { "dev_qd", "%.6f", r->dev_qd },
		{ "qd_issue", "%.6f", r->qd_issue },
		{ "util", "%.6f", r->util }, { "qutil", "%.6f", r->qutil },
	};
	const struct stat_num kernel[] = {
		{ "util", "%.6f", r->k_util }, { "aqu_sz", "%.6f", r->k_aqu_sz },
		{ "r_await_ms", "%.6f", r->k_r_await_ms },
		{ "w_await_ms", "%.6f", r->k_w_await_ms },
		{ "rrqm_s", "%.3f", r->k_rrqm_s },
		{ "wrqm_s", "%.3f", r->k_wrqm_s },
	};
	struct json j;

	json_init(&j, stdout, false);
	json_obj(&j, NULL);
	if (total)
		json_bool(&j, "total", true);
	json_double(&j, "time", "%.3f", t);
	json_string(&j, "device", name);
	json_nums(&j, NUMS(rates));
	json_obj(&j, "kernel");
	json_nums(&j, NUMS(kernel));
	json_end(&j);
	json_double(&j, "util_diff", "%.6f", r->k_util - r->qutil);
	json_u64(&j, "busy_ns", b->busy_ns - a->busy_ns);
	json_u64(&j, "qbusy_ns", b->qbusy_ns - a->qbusy_ns);
	json_u64(&j, "inflight_ns", b->inflight_ns - a->inflight_ns);
	json_u64(&j, "qinflight_ns", b->qinflight_ns - a->qinflight_ns);
	json_u64(&j, "elapsed_ns", b->now_ns - a->now_ns);
	json_u64(&j, "kernel_io_ticks_ms",
		 kb->f[IOLAT_DS_IO_TICKS] - ka->f[IOLAT_DS_IO_TICKS]);
	json_u64(&j, "kernel_time_in_queue_ms",
		 kb->f[IOLAT_DS_TIME_IN_QUEUE] - ka->f[IOLAT_DS_TIME_IN_QUEUE]);
	json_qd_hist(&j, a, b);
	if (r->has_split)
		json_split(&j, r, a, b);
	json_end(&j);
}

static void print_row(struct stat_state *st, unsigned int d, double t,
		      const struct iolat_dev_counters *a,
		      const struct iolat_dev_counters *b,
		      const struct iolat_diskstats *ka,
		      const struct iolat_diskstats *kb, bool total)
{
	const char *name = st->s->devs[d].name;
	struct iolat_stat_row r;

	iolat_stat_compute(a, b, ka, kb, &r);
	if (!st->json) {
		char time[16];

		if (total)
			strcpy(time, "total");
		else
			snprintf(time, sizeof(time), "%.2f", t);
		printf("%9s %-10s %8.1f %9.1f %7.1f %7.3f %8.1f %8.1f %9.1f %7.1f %7.3f %8.1f %7.1f %8.1f %7.3f %7.1f %7.3f %7.3f %6.2f %6.2f %6.2f | %7.2f %8.3f %+9.2f\n",
		       time, name, r.r_s, r.rkb_s, r.k_rrqm_s, r.r_await_ms,
		       r.rareq_kb, r.w_s, r.wkb_s, r.k_wrqm_s, r.w_await_ms,
		       r.wareq_kb, r.d_s, r.dkb_s, r.d_await_ms, r.f_s,
		       r.f_await_ms, r.aqu_sz, r.qd_issue, r.util, r.qutil,
		       r.k_util, r.k_aqu_sz, r.k_util - r.qutil);
		if (r.has_split)
			printf("%9s %-10s stack: r_await %.3f = %.3f above + %.3f below, w_await %.3f = %.3f above + %.3f below (ms; I/Os with requests below: %.0f%% of reads, %.0f%% of writes)\n",
			       time, name, r.r_await_ms, r.r_above_ms,
			       r.r_below_ms, r.w_await_ms, r.w_above_ms,
			       r.w_below_ms, 100 * r.r_joined,
			       100 * r.w_joined);
		return;
	}
	json_row(name, t, total, &r, a, b, ka, kb);
}

/* iolat's counters and the kernel's of every device, now, into cur. */
static bool sample(struct stat_state *st, struct iolat_dev_counters *c,
		   struct iolat_diskstats *k)
{
	struct iolat_session *s = st->s;
	unsigned int d;
	int err;

	err = iolat_session_counters(s, c);
	for (d = 0; !err && d < s->nr_devs; d++) {
		if (!s->run.removed[d])
			err = iolat_diskstats_read("/sys", s->devs[d].name,
						   &k[d]);
		/*
		 * A removed disk's kernel counters went with it (or count
		 * from zero, if it came back): its last reading stays; so
		 * does that of a disk gone since the last device check,
		 * which will name it.
		 */
		if (s->run.removed[d] || err == -ENOENT) {
			k[d] = st->kprev[d];
			err = 0;
		}
	}
	if (err && !st->failed) {
		iolat_err("cannot read the counters: %s", strerror(-err));
		st->failed = true;
	}
	return !err;
}

/* Copy @src's values, keeping @dst's own queue array. */
static void counters_copy(struct iolat_dev_counters *dst,
			  const struct iolat_dev_counters *src)
{
	struct iolat_hwq_counters *h = dst->hwqs;

	memcpy(h, src->hwqs, src->nr_hwq * sizeof(*h));
	*dst = *src;
	dst->hwqs = h;
}

static void on_started(void *arg)
{
	struct stat_state *st = arg;
	unsigned int d;

	if (!sample(st, st->first, st->kfirst))
		return;
	for (d = 0; d < st->s->nr_devs; d++) {
		counters_copy(&st->prev[d], &st->first[d]);
		st->kprev[d] = st->kfirst[d];
	}
	if (!st->json)
		header();
}

/*
 * A disk joined: its room, its first and last readings nothing at the
 * time it joined, the kernel's as read then (disk_follow.c).
 */
static void on_added(void *arg, unsigned int dev)
{
	struct stat_state *st = arg;
	struct iolat_session *s = st->s;
	unsigned int n = s->nr_devs;

	iolat_counters_grow(s, &st->first, dev);
	iolat_counters_grow(s, &st->prev, dev);
	iolat_counters_grow(s, &st->cur, dev);
	st->kfirst = iolat_grow_to(st->kfirst, dev, n, sizeof(*st->kfirst));
	st->kprev = iolat_grow_to(st->kprev, dev, n, sizeof(*st->kprev));
	st->kcur = iolat_grow_to(st->kcur, dev, n, sizeof(*st->kcur));
	st->kfirst[dev] = st->kprev[dev] = s->run.kstart[dev];
}

static void rows(struct stat_state *st, double t,
		 struct iolat_dev_counters *cur, struct iolat_diskstats *kcur)
{
	unsigned int d;

	/* as iostat, a blank line between the intervals of several devices */
	if (!st->json && st->rows && st->s->nr_devs > 1)
		printf("\n");
	for (d = 0; d < st->s->nr_devs; d++) {
		if (!st->active || had_io(&st->prev[d], &cur[d]))
			print_row(st, d, t, &st->prev[d], &cur[d],
				  &st->kprev[d], &kcur[d], false);
		counters_copy(&st->prev[d], &cur[d]);
		st->kprev[d] = kcur[d];
	}
	st->rows++;
	fflush(stdout);
}

static void on_tick(void *arg, double elapsed)
{
	struct stat_state *st = arg;

	if (st->failed || !sample(st, st->cur, st->kcur))
		return;
	if (!st->json && st->rows && !(st->rows % 20))
		header();
	rows(st, elapsed, st->cur, st->kcur);
}

/* The whole run's queue depth at issue, as a bar histogram. */
static void text_qd_hist(const char *name, const struct iolat_dev_counters *a,
			 const struct iolat_dev_counters *b)
{
	uint64_t n[IOLAT_QD_BUCKETS], any = 0;
	unsigned int i;

	for (i = 0; i < IOLAT_QD_BUCKETS; i++) {
		n[i] = b->qd_hist[i] - a->qd_hist[i];
		any |= n[i];
	}
	if (!any)
		return;
	printf("\n%s: queue depth at issue (requests already at the driver)\n",
	       name);
	iolat_text_qd_hist(n);
}

static void finish(struct stat_state *st)
{
	struct iolat_session *s = st->s;
	struct iolat_dev_counters *last = s->counters;
	unsigned int d;

	if (st->failed || !s->run.kernel_valid)
		return;
	/* the kernel's counters when the session stopped */
	memcpy(st->kcur, s->run.kend, s->nr_devs * sizeof(*st->kcur));
	for (d = 0; d < s->nr_devs; d++)
		if (s->run.removed[d])	/* its last reading before it went */
			st->kcur[d] = st->kprev[d];
	/* the time since the last row, unless it is a sliver */
	if ((last[0].now_ns - st->prev[0].now_ns) / 1e9 > 0.1 * st->interval)
		rows(st, s->run.seconds, last, st->kcur);
	if (!st->json)
		printf("\n");
	for (d = 0; d < s->nr_devs; d++)
		if (!st->active || had_io(&st->first[d], &last[d]))
			print_row(st, d, s->run.seconds, &st->first[d],
				  &last[d], &st->kfirst[d], &st->kcur[d], true);
	if (!st->json)
		for (d = 0; d < s->nr_devs; d++)
			if (!st->active || had_io(&st->first[d], &last[d]))
				text_qd_hist(s->devs[d].name, &st->first[d],
					     &last[d]);
}

/*
 * The arguments before "--" are interval and count; those after it, the
 * COMMAND.  (`stat abc` ran "abc".)  @after: how many followed "--".
 */
static int positional(struct iolat_session *s, double *interval,
		      unsigned long *count, int after)
{
	const char **a = s->cmd;
	char *end;
	int n = 0, nr = 0;

	while (a && a[nr])
		nr++;
	for (; n < nr - after; n++) {
		double v = strtod(a[n], &end);

		if (n == 2 || *end || end == a[n] ||
		    !(v >= (n ? 1 : IOLAT_MIN_INTERVAL_S) && v <= 86400 * 366) ||
		    (n == 1 && v != (unsigned long)v)) {
			iolat_err("stat takes [interval [count]]: seconds from %g and a whole count (a COMMAND goes after --), not '%s'",
				  IOLAT_MIN_INTERVAL_S, a[n]);
			return -1;
		}
		if (n == 0)
			*interval = v;
		else
			*count = v;
	}
	s->cmd = n < nr ? a + n : NULL;
	return 0;
}

int cmd_stat(int argc, const char **argv)
{
	static char *fmt;
	static int active;
	struct poptOption options[] = {
		{ "output", 'o', POPT_ARG_STRING, &fmt, 0,
		  "text (default) or json (a line per device and interval)",
		  "FMT" },
		{ "active", 'z', POPT_ARG_NONE, &active, 0,
		  "leave out the devices without requests in the interval (as iostat -z)",
		  NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_counter_options, 0,
		  "Devices:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	struct iolat_session s = { 0 };
	struct stat_state *st = calloc(1, sizeof(*st));
	unsigned long count = 0;
	double interval = 1;
	poptContext pc;
	int ret = EXIT_USAGE, i;

	if (!st) {
		iolat_err("out of memory");
		return EXIT_FAIL;
	}
	pc = poptGetContext("iolat stat", argc, argv, options, 0);
	s.usage = "[-d DEV...] [OPTION...] [interval [count]] [-- COMMAND...]";
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		;
	if (iolat_session_getopt(&s, &o, pc) ||
	    positional(&s, &interval, &count, i < argc ? argc - i - 1 : 0))
		goto out;
	if (fmt && strcmp(fmt, "text") && strcmp(fmt, "json")) {
		iolat_err("-o takes text or json, not '%s'", fmt);
		goto out;
	}
	if (count && (o.duration || s.cmd)) {
		iolat_err("a count of intervals, -t and a COMMAND exclude each other");
		goto out;
	}
	s.every_disk = true;
	ret = iolat_session_setup(&s, &o);
	if (ret)
		goto out;
	st->s = &s;
	st->json = fmt && !strcmp(fmt, "json");
	st->active = active;
	st->interval = interval;
	if (count)
		s.duration = interval * count;
	s.counters_only = true;
	s.ring = IOLAT_RING_MIN;
	s.record = NULL;
	s.tick = on_tick;
	s.tick_s = interval;
	s.started = on_started;
	s.added = on_added;
	s.arg = st;
	st->first = iolat_counters_new(&s);
	st->prev = iolat_counters_new(&s);
	st->cur = iolat_counters_new(&s);
	st->kfirst = calloc(s.nr_devs, sizeof(*st->kfirst));
	st->kprev = calloc(s.nr_devs, sizeof(*st->kprev));
	st->kcur = calloc(s.nr_devs, sizeof(*st->kcur));
	if (!st->first || !st->prev || !st->cur || !st->kfirst ||
	    !st->kprev || !st->kcur) {
		iolat_err("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	ret = iolat_session_run(&s);
	if (ret == EXIT_OK)
		finish(st);
	if (st->failed || !iolat_session_accounted(&s))
		ret = EXIT_FAIL;
out:
	iolat_counters_free(&s, st->first);
	iolat_counters_free(&s, st->prev);
	iolat_counters_free(&s, st->cur);
	free(st->kfirst);
	free(st->kprev);
	free(st->kcur);
	iolat_session_free(&s);
	iolat_session_opts_free(&o);
	poptFreeContext(pc);
	free(st);
	return ret;
}
