// SPDX-License-Identifier: GPL-2.0
/*
 * iolat watch: a flight recorder.  The module keeps the last --before
 * seconds of every traced request's record in per-CPU buffers that
 * overwrite their oldest, beside an aggregating session's histograms,
 * and copies nothing out while nothing happens.  A trigger (a request
 * slower than --slower-than, checked in the module at its completion;
 * an error with --on-error; the p99 of a --window over --p99-over, from
 * the module's histograms; SIGUSR1, or `iolat watch --dump` in another
 * shell) keeps that window; --after seconds later the recorder is frozen
 * and read into a record file of -w DIR (watch_dump.c), which report,
 * plot and report -o csv read, and armed again.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include "cmd/watch.h"
#include "../lib/record.h"

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1 = 1;
}

/* Trigger the recorders for @why (said in the dump). */
static void trigger(struct watch *w, uint32_t reason, const char *why)
{
	int err;

	snprintf(w->detail, sizeof(w->detail), "%s", why);
	err = iolat_nl_watch_trigger(w->s->nl, reason);
	if (err)
		iolat_warn("cannot trigger the flight recorder: %s", strerror(-err));
}

/* The arrays of --p99-over, for the session's devices now. */
static int p99_arrays(struct watch *w)
{
	struct iolat_session *s = w->s;

	if (w->nr_hist == s->nr_devs)
		return 0;
	iolat_counters_free(s, w->hc);
	free(w->prev);
	free(w->cur);
	w->hc = iolat_counters_new(s);
	w->prev = calloc(s->nr_devs ?: 1, sizeof(*w->prev));
	w->cur = calloc(s->nr_devs ?: 1, sizeof(*w->cur));
	w->nr_hist = s->nr_devs;
	w->have_prev = false;
	return w->hc && w->prev && w->cur ? 0 : -ENOMEM;
}

/*
 * --p99-over: each device's Q2C over the last --window, all ops, from the
 * module's histograms; a p99 of at least 100 requests over the bound
 * triggers.
 */
static void p99_check(struct watch *w)
{
	struct iolat_hist win, d;
	struct iolat_agg *t;
	unsigned int i, op;
	uint64_t p99;
	char why[96];

	if (p99_arrays(w) ||
	    iolat_nl_hist(w->s->nl, w->hc, w->cur, w->nr_hist)) {
		iolat_warn("cannot read the module's histograms for --p99-over");
		return;
	}
	for (i = 0; w->have_prev && i < w->nr_hist; i++) {
		iolat_hist_init(&win);
		for (op = 0; op < IOLAT_OP_NR; op++) {
			iolat_hist_diff(&d, &w->cur[i].h[op][0],
					&w->prev[i].h[op][0]);
			iolat_hist_merge(&win, &d);
		}
		if (win.count < 100)
			continue;
		p99 = iolat_hist_percentile(&win, 990000);
		if (p99 <= w->p99_ns)
			continue;
		snprintf(why, sizeof(why), "%s: p99 %.3f ms over %.3f ms in %g s, of %llu requests",
			 w->s->devs[i].name, p99 / 1e6, w->p99_ns / 1e6,
			 w->window_s, (unsigned long long)win.count);
		trigger(w, IOLAT_WATCH_PERCENTILE, why);
		break;
	}
	t = w->prev;
	w->prev = w->cur;
	w->cur = t;
	w->have_prev = true;
}

/* Every tick: the asked triggers, then the recorder's state. */
static void on_tick(void *arg, double elapsed)
{
	struct watch *w = arg;
	int err;

	if (w->failed || w->off)
		return;
	if (usr1) {
		usr1 = 0;
		trigger(w, IOLAT_WATCH_USER, "SIGUSR1");
	}
	if (w->p99_ns && elapsed >= w->next_window) {
		p99_check(w);
		w->next_window = elapsed + w->window_s;
	}
	err = iolat_nl_watch(w->s->nl, IOLAT_CMD_WATCH, 0, &w->st);
	if (err) {
		iolat_err("cannot read the flight recorder's state: %s",
			  strerror(-err));
		w->failed = true;
		return;
	}
	if (w->st.state == IOLAT_WATCH_TRIGGERED &&
	    iolat_mono_ns() >= w->st.trigger_ns + w->after_ns && watch_dump(w, true))
		w->failed = true;
}

/* -w DIR and the directories above it, as mkdir -p */
static int make_dir(const char *dir)
{
	char path[4096], *p;

	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

static void on_started(void *arg)
{
	struct watch *w = arg;
	struct iolat_session *s = w->s;

	/* once tracing: a bad command line or no module makes nothing */
	if (make_dir(w->dir)) {
		iolat_err("cannot make %s: %s", w->dir, strerror(errno));
		w->failed = true;
		return;
	}
	fprintf(stderr, "iolat: watching %u device%s: the last %.3g s of records kept in the module (%u CPUs' buffers); dumps to %s\n",
		s->nr_devs, s->nr_devs == 1 ? "" : "s", w->req.before_ns / 1e9,
		s->info.nr_cpus, w->dir);
	if (watch_arm(w)) {
		w->failed = true;
		return;
	}
	w->armed_once = true;
	/* a service's (Type=notify) readiness */
	iolat_notify("READY=1\nSTATUS=armed, dumps to %s", w->dir);
}

/* The run ended: a window triggered and not yet written is, as far as it goes. */
static void on_stopped(void *arg)
{
	struct watch *w = arg;

	if (w->failed || w->off ||
	    iolat_nl_watch(w->s->nl, IOLAT_CMD_WATCH, 0, &w->st))
		return;
	if (w->st.state == IOLAT_WATCH_TRIGGERED) {
		iolat_warn("the run ended %.3f s after a trigger: its dump ends there",
			   (iolat_mono_ns() - w->st.trigger_ns) / 1e9);
		if (watch_dump(w, false))
			w->failed = true;
	}
}

static bool on_idle(void *arg)
{
	return ((struct watch *)arg)->failed;
}

/* --stage: a stage by its name (Q2G, G2I, I2D, D2C, Q2C) */
static int parse_stage(const char *arg, uint32_t *stage)
{
	unsigned int i;

	for (i = 0; i < IOLAT_STAGE_NR; i++)
		if (!strcasecmp(arg, iolat_stage_name(i))) {
			*stage = i;
			return 0;
		}
	iolat_err("--stage takes Q2G, G2I, I2D, D2C or Q2C, not '%s'", arg);
	return -1;
}

/* `iolat watch --dump`: trigger the running recorders, from any shell. */
static int dump_now(void)
{
	struct iolat_info info;
	struct iolat_nl *nl = iolat_nl_connect(&info);
	int err;

	if (!nl)
		return EXIT_FAIL;
	err = iolat_nl_watch_trigger(nl, IOLAT_WATCH_USER);
	if (err == -ENOENT)
		iolat_err("no iolat watch is running");
	else if (err)
		iolat_err("cannot trigger the flight recorders: %s%s%s",
			  strerror(-err), iolat_nl_errmsg(nl)[0] ? ": " : "",
			  iolat_nl_errmsg(nl));
	else
		fprintf(stderr, "iolat: the running flight recorders are triggered: each writes its dump after its --after\n");
	iolat_nl_close(nl);
	return err ? EXIT_FAIL : EXIT_OK;
}

/*
 * A time option of watch's in seconds: a number ("5"), or with a unit as
 * its other times are given ("5s", "500ms").
 */
static int watch_secs(const char *opt, const char *arg, double min,
		      double *secs)
{
	size_t n = strlen(arg);
	uint64_t ns;

	if (!n || !isalpha((unsigned char)arg[n - 1]))
		return iolat_parse_secs(opt, arg, min, secs);
	if (iolat_parse_duration_ns(arg, &ns) || ns < min * 1e9 ||
	    ns > 86400 * 1e9) {
		iolat_err("%s takes a time from %gs to 86400s (5, 5s, 500ms), not '%s'",
			  opt, min, arg);
		return -1;
	}
	*secs = ns / 1e9;
	return 0;
}

struct watch_args {
	char *slower, *stage, *p99, *window, *before, *after, *dir;
	char *max_size, *min_gap, *min_free;
	int on_error, dump, cgroups, nvme, max_dumps, keep;
};

/* The options into @w, or one clear line. */
static int watch_parse(const struct watch_args *a, struct watch *w)
{
	double before = 10, after = 2, free_pct = 10, bytes = 1 << 30;
	char *end;

	w->req.stage = IOLAT_STAGE_Q2C;
	w->window_s = 10;
	w->min_gap_s = 60;
	if ((a->slower && iolat_parse_duration_ns(a->slower, &w->req.slower_ns)) ||
	    (a->stage && parse_stage(a->stage, &w->req.stage)) ||
	    (a->p99 && iolat_parse_duration_ns(a->p99, &w->p99_ns)) ||
	    (a->window && watch_secs("--window", a->window, 1, &w->window_s)) ||
	    (a->before && watch_secs("--before", a->before, 0.01, &before)) ||
	    (a->after && watch_secs("--after", a->after, 0, &after)) ||
	    (a->min_gap && watch_secs("--min-gap", a->min_gap, 0, &w->min_gap_s)))
		return -1;
	if (a->min_free) {
		free_pct = strtod(a->min_free, &end);
		if (*end || !(free_pct >= 0 && free_pct < 100)) {
			iolat_err("--min-free takes a percentage from 0 to 99, not '%s'",
				  a->min_free);
			return -1;
		}
	}
	if (a->max_size) {
		bytes = strtod(a->max_size, &end);
		bytes *= *end == 'K' ? 1 << 10 : *end == 'M' ? 1 << 20 :
			 *end == 'G' ? 1 << 30 : 1;
		if ((*end && end[1]) || (*end && !strchr("KMG", *end)) ||
		    !(bytes >= 1 << 20)) {
			iolat_err("--max-size takes a size of at least 1M (K, M, G), not '%s'",
				  a->max_size);
			return -1;
		}
	}
	if (!a->dir) {
		iolat_err("watch needs -w DIR, where its dumps go");
		return -1;
	}
	if (!w->req.slower_ns && !a->on_error && !w->p99_ns) {
		iolat_err("watch needs a trigger: --slower-than TIME, --on-error or --p99-over TIME (SIGUSR1 and --dump work besides)");
		return -1;
	}
	if (a->stage && !w->req.slower_ns) {
		iolat_err("--stage is --slower-than's");
		return -1;
	}
	if (a->max_dumps < 0 || a->keep < 1) {
		iolat_err("--max-dumps takes 0 (no limit) or more, --keep 1 or more");
		return -1;
	}
	w->req.before_ns = before * 1e9;
	w->req.on_error = a->on_error;
	w->after_ns = after * 1e9;
	w->dir = a->dir;
	w->max_dumps = a->max_dumps;
	w->keep = a->keep;
	w->max_bytes = bytes;
	w->min_free = free_pct / 100;
	return 0;
}

int cmd_watch(int argc, const char **argv)
{
	struct watch_args a = { .max_dumps = 100, .keep = 20 };
	struct poptOption opts[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_session_options, 0,
		  "Devices and filters:", NULL },
		{ "slower-than", 0, POPT_ARG_STRING, &a.slower, 0,
		  "trigger on a request slower than TIME (checked in the module at its completion)", "TIME" },
		{ "stage", 0, POPT_ARG_STRING, &a.stage, 0,
		  "--slower-than's stage: Q2C (default), D2C, Q2G, G2I, I2D", "STAGE" },
		{ "on-error", 0, POPT_ARG_NONE, &a.on_error, 0,
		  "trigger on a request completed with an error", NULL },
		{ "p99-over", 0, POPT_ARG_STRING, &a.p99, 0,
		  "trigger when a device's p99 over a --window is above TIME", "TIME" },
		{ "window", 0, POPT_ARG_STRING, &a.window, 0,
		  "--p99-over's window (default 10)", "SECS" },
		{ "before", 0, POPT_ARG_STRING, &a.before, 0,
		  "keep this much before a trigger (default 10; 10s, 500ms)", "SECS" },
		{ "after", 0, POPT_ARG_STRING, &a.after, 0,
		  "record this much after it (default 2)", "SECS" },
		{ "write", 'w', POPT_ARG_STRING, &a.dir, 0,
		  "the directory of the dumps (record files: iolat report, plot)", "DIR" },
		{ "max-dumps", 0, POPT_ARG_INT, &a.max_dumps, 0,
		  "at most N dumps in the run (default 100; 0: no limit)", "N" },
		{ "min-gap", 0, POPT_ARG_STRING, &a.min_gap, 0,
		  "no trigger within SECS of the last (default 60)", "SECS" },
		{ "keep", 0, POPT_ARG_INT, &a.keep, 0,
		  "keep the newest N dumps in DIR (default 20)", "N" },
		{ "max-size", 0, POPT_ARG_STRING, &a.max_size, 0,
		  "keep the dumps in DIR under SIZE (default 1G)", "SIZE" },
		{ "min-free", 0, POPT_ARG_STRING, &a.min_free, 0,
		  "write no dump that would leave under PCT% of DIR's file system free (default 10)", "PCT" },
		{ "cgroups", 0, POPT_ARG_NONE, &a.cgroups, 0,
		  "each record's cgroup (the trigger's named)", NULL },
		{ "nvme", 0, POPT_ARG_NONE, &a.nvme, 0,
		  "each record's NVMe command (no -d: every NVMe namespace); --on-error takes an NVMe status too",
		  NULL },
		{ "dump", 0, POPT_ARG_NONE, &a.dump, 0,
		  "trigger the running watch sessions, from another shell", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	struct iolat_session s = { 0 };
	struct watch w = { .s = &s };
	struct sigaction sa = { .sa_handler = on_usr1 };
	poptContext pc;
	int rc = EXIT_USAGE;

	pc = poptGetContext("iolat watch", argc, argv, opts,
			    POPT_CONTEXT_POSIXMEHARDER);
	s.usage = "[-d DEV...] --slower-than TIME|--on-error|--p99-over TIME -w DIR [OPTION...]";
	if (iolat_session_getopt(&s, &o, pc))
		goto out;
	if (a.dump) {
		rc = dump_now();
		goto out;
	}
	if (watch_parse(&a, &w))
		goto out;
	s.cgroups = a.cgroups;
	s.nvme = a.nvme;
	s.every_disk = true;
	rc = iolat_session_setup(&s, &o);
	if (rc)
		goto out;
	s.aggregate = true;
	s.watch = &w.req;
	s.started = on_started;
	s.tick = on_tick;
	/* the trigger's state, a few times a second: no wake-up per request */
	s.tick_s = 0.5;
	s.stopped = on_stopped;
	s.idle = on_idle;
	s.arg = &w;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	rc = iolat_session_run(&s);
	if (!rc && w.failed)
		rc = EXIT_FAIL;
	if (w.armed_once)
		fprintf(stderr, "iolat: %u dump%s written, %u not (no room)\n",
			w.dumps, w.dumps == 1 ? "" : "s", w.skipped);
out:
	iolat_counters_free(&s, w.hc);
	free(w.prev);
	free(w.cur);
	iolat_session_free(&s);
	iolat_session_opts_free(&o);
	free(a.slower);
	free(a.stage);
	free(a.p99);
	free(a.window);
	free(a.before);
	free(a.after);
	free(a.dir);
	free(a.max_size);
	free(a.min_gap);
	free(a.min_free);
	poptFreeContext(pc);
	return rc;
}
