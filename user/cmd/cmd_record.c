// SPDX-License-Identifier: GPL-2.0
/*
 * iolat record: trace devices for a time, until Ctrl-C, or while a
 * command runs; analyse every record as it comes (analyze.c): with -i a
 * line per device and op each interval, then histograms per device, op
 * and stage, distributions, processes, and the accounting of every
 * request.  With -w FILE the stream is also saved for `iolat report`;
 * with --save-only it is only saved, neither analysed nor reported.
 * With --aggregate the module keeps the histograms (agg_reader.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "file/recfile.h"

struct rec_state {
	struct iolat_session *s;
	struct iolat_an an;
	struct iolat_file *file;
	const char *path;
	bool failed;		/* the file could not be written */
	uint64_t synced_ns;	/* when the file was last flushed */
	struct iolat_agg_reader *agg;	/* --aggregate */
	bool save_only;		/* --save-only: no analysis */
};

/* Read an aggregating module's histograms; a failure ends the session. */
static void agg_take(struct rec_state *st, const struct iolat_dev_counters *c)
{
	int err = iolat_agg_take(st->agg, &st->an, c);

	if (err) {
		iolat_err("cannot read the module's histograms: %s%s%s",
			  strerror(-err), iolat_nl_errmsg(st->s->nl)[0] ? ": " : "",
			  iolat_nl_errmsg(st->s->nl));
		st->failed = true;
	}
}

/* A disk joined (record -A over every disk): its room here. */
static void on_added(void *arg, unsigned int dev)
{
	struct rec_state *st = arg;

	if (st->agg)
		iolat_agg_reader_grow(st->agg, dev);
	iolat_an_add_req(&st->an, &st->s->devs[dev]);
}

static void on_started(void *arg)
{
	struct rec_state *st = arg;
	struct iolat_session *s = st->s;
	struct iolat_file_header *h = calloc(1, sizeof(*h));

	if (!h) {
		st->an.nomem = true;
		return;
	}
	iolat_file_header_fill(h, s, &s->info, s->t0_ns, s->t0_real_ns);
	iolat_an_meta_from(&st->an, h);
	if (st->path) {
		st->file = iolat_file_create(st->path, h);
		st->failed = !st->file ||
			     iolat_file_devices(st->file, s);
	}
	free(h);
}

static void on_record(void *arg, unsigned int dev, const struct iolat_record *r)
{
	struct rec_state *st = arg;

	if (st->file && iolat_file_records(st->file, r))
		st->failed = true;
	if (!st->save_only)
		iolat_an_record(&st->an, dev, r);
}

/* Without a file: records in place, a device's run at once. */
static void on_records(void *arg, unsigned int dev, const void *base,
		       unsigned int n, size_t stride, size_t size)
{
	struct rec_state *st = arg;

	iolat_an_records(&st->an, dev, base, n, stride, size);
}

static void on_drained(void *arg, uint64_t now_ns)
{
	struct rec_state *st = arg;

	if (st->file && iolat_file_mark(st->file, now_ns))
		st->failed = true;
	/* a recorder killed loses at most the last second */
	if (st->file && now_ns - st->synced_ns >= 1000000000ULL) {
		if (iolat_file_sync(st->file))
			st->failed = true;
		st->synced_ns = now_ns;
	}
	/* an interval ended: what completed by now goes into it */
	if (st->agg && st->an.o.interval_ns &&
	    now_ns >= st->an.meta.t0_ns +
		      (st->an.ival_index + 1) * st->an.o.interval_ns)
		agg_take(st, NULL);
	iolat_an_mark(&st->an, now_ns);
}

static void on_stopped(void *arg)
{
	struct rec_state *st = arg;

	if (st->agg)
		agg_take(st, st->s->counters);
}

static void on_event(void *arg, uint64_t ns, uint32_t kind, const char *module)
{
	struct rec_state *st = arg;

	if (st->file && iolat_file_event(st->file, ns, kind, module))
		st->failed = true;
}

static bool on_idle(void *arg)
{
	struct rec_state *st = arg;

	/* a file that cannot be written ends the session */
	return st->failed;
}

int cmd_record(int argc, const char **argv)
{
	struct iolat_an_args a = { 0 };
	char *path = NULL;
	int aggregate = 0, nvme = 0, save_only = 0, cgroups = 0;
	struct poptOption opts[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_session_options, 0,
		  "Devices and filters:", NULL },
		IOLAT_AN_POPT(a),
		{ "write", 'w', POPT_ARG_STRING, &path, 0,
		  "also save every record to FILE, for iolat report and plot",
		  "FILE" },
		{ "save-only", 0, POPT_ARG_NONE, &save_only, 0,
		  "with -w: only save the records, neither analysed nor reported (the cheapest stream; iolat report reads the file)",
		  NULL },
		{ "nvme", 0, POPT_ARG_NONE, &nvme, 0,
		  "also follow each request's NVMe command: the NVMe stage (nvme_setup_cmd to nvme_complete_rq) and a table per queue; no -d: every NVMe namespace",
		  NULL },
		{ "cgroups", 0, POPT_ARG_NONE, &cgroups, 0,
		  "each request's cgroup (the one the kernel charges it to): a table per cgroup and device, and the cgroup column",
		  NULL },
		{ "aggregate", 'A', POPT_ARG_NONE, &aggregate, 0,
		  "aggregate into histograms in the kernel: no per-request records (cheapest; no processes, sizes, offsets, csv or svg)",
		  NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	struct iolat_session s = { 0 };
	struct rec_state st = { .s = &s };
	const struct iolat_output *out;
	struct iolat_an_opts ao;
	poptContext pc;
	unsigned int d;
	int rc = EXIT_USAGE;

	pc = poptGetContext("iolat record", argc, argv, opts,
			    POPT_CONTEXT_POSIXMEHARDER);
	if (iolat_session_getopt(&s, &o, pc))
		goto out;
	if (iolat_an_args_parse(&a, &ao, &out))
		goto out;
	if (aggregate && (path || out->record)) {
		iolat_err("--aggregate keeps no records: it cannot %s",
			  path ? "save them (-w)" : "print one line per request or plot them");
		goto out;
	}
	if (save_only && (!path || aggregate || a.output || ao.interval_ns)) {
		iolat_err("--save-only %s",
			  !path ? "needs -w FILE" : aggregate ?
			  "saves records, which --aggregate does not keep" :
			  "prints nothing: it takes no -o or -i");
		goto out;
	}
	if (ao.stage == IOLAT_AN_NVME && !nvme) {
		iolat_err("--stage NVMe needs --nvme (the NVMe commands are not followed without it)");
		goto out;
	}
	if (cgroups && aggregate) {
		iolat_err("--cgroups takes each request's cgroup from its record: --aggregate keeps none");
		goto out;
	}
	s.nvme = nvme;
	s.cgroups = cgroups;
	ao.cgroups = cgroups;
	/* histograms only: cheap enough for every disk */
	s.every_disk = aggregate;
	rc = iolat_session_setup(&s, &o);
	if (rc)
		goto out;
	if (aggregate && s.nvme) {
		iolat_err("--aggregate keeps no records: NVMe commands need them (drop --nvme)");
		rc = EXIT_USAGE;
		goto out;
	}
	s.aggregate = aggregate;
	if (aggregate) {
		st.agg = iolat_agg_reader_new(&s);
		if (!st.agg) {
			iolat_err("out of memory");
			rc = EXIT_FAIL;
			goto out;
		}
	}
	iolat_an_init(&st.an, &ao, out);
	for (d = 0; d < s.nr_devs; d++)
		iolat_an_add_req(&st.an, &s.devs[d]);
	st.path = path;
	st.save_only = save_only;
	s.started = on_started;
	s.record = on_record;
	if (!path)
		s.records = on_records;
	s.drained = on_drained;
	s.event = on_event;
	s.stopped = on_stopped;
	s.idle = on_idle;
	s.added = on_added;
	s.arg = &st;
	rc = iolat_session_run(&s);
	if (st.file) {
		if (iolat_file_end(st.file, s.end_ns, &s.run, s.nr_devs,
				   s.counters))
			st.failed = true;
		if (iolat_file_close(st.file))
			st.failed = true;
	}
	if (rc && !s.run.incomplete)
		goto out;
	if (save_only)
		fprintf(stderr, "iolat: %llu records saved to %s, %llu dropped\n",
			(unsigned long long)s.run.delivered, path,
			(unsigned long long)iolat_run_dropped(&s.run));
	else
		iolat_an_finish(&st.an, s.end_ns, &s.run, s.counters);
	fflush(stdout);
	if (st.an.nomem)
		iolat_err("out of memory: the results are incomplete");
	rc = iolat_session_accounted(&s) && !st.failed && !st.an.nomem ?
	     EXIT_OK : EXIT_FAIL;
out:
	iolat_agg_reader_free(st.agg);
	iolat_an_free(&st.an);
	iolat_session_free(&s);
	iolat_session_opts_free(&o);
	iolat_an_args_free(&a);
	free(path);
	poptFreeContext(pc);
	return rc;
}
