// SPDX-License-Identifier: GPL-2.0
/*
 * iolat report FILE...: the analysis of `iolat record` again, offline, on
 * the records `record -w` saved.  One file is replayed block by block,
 * marks included, so its intervals and totals are those the live run
 * printed.  Several files (several hosts, or runs) are merged: devices of
 * the same name are one, counts and histograms add up; intervals need a
 * single file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "file/recfile.h"

struct report {
	struct iolat_an an;
	bool multi;
	char **only;		/* -d: these devices alone */
	unsigned int nr_only;
	/* this file's devices, and each one's index in the analysis (-1) */
	struct iolat_dev_req *devs;
	struct iolat_dev_lookup lookup;	/* @devs by number */
	int *map;
	unsigned int nr_devs, cap_devs, cap_map;
	unsigned int files;
	uint64_t end_ns;
	uint64_t last_ns;	/* the latest time read: a partial file's end */
	bool partial;		/* a file was read only in part */
	struct iolat_run run;	/* summed over the files */
	/* [an.nr_devs]: the analysis's devices' counters, and whether a file had them */
	struct iolat_dev_counters *c;
	bool *counted;
	unsigned int cap_c, cap_counted;
};

/*
 * A flight recorder's dump: its trigger, and the device of the request
 * that triggered it, for the outputs (the first file's, if several).
 */
static void on_watch(void *arg, const struct iolat_file_watch *w)
{
	struct report *rp = arg;
	struct iolat_an *an = &rp->an;
	unsigned int d;

	if (an->watch)
		return;
	an->watch = malloc(sizeof(*w));
	if (!an->watch) {
		an->nomem = true;
		return;
	}
	*an->watch = *w;
	for (d = 0; w->has_rec && d < rp->nr_devs; d++)
		if (rp->devs[d].major == w->rec.major &&
		    rp->devs[d].minor == w->rec.minor)
			snprintf(an->watch_dev, sizeof(an->watch_dev), "%s",
				 rp->devs[d].name);
}

static bool wanted(const struct report *rp, const char *name)
{
	unsigned int i;

	if (!rp->nr_only)
		return true;
	for (i = 0; i < rp->nr_only; i++)
		if (!strcmp(iolat_dev_basename(rp->only[i]), name))
			return true;
	return false;
}

static int on_header(void *arg, const struct iolat_file_header *h,
		     const struct iolat_file_dev *devs)
{
	struct report *rp = arg;
	struct iolat_an *an = &rp->an;
	unsigned int d, k;

	if (!rp->files++)
		iolat_an_meta_from(an, h);
	/* records with their cgroup: a table per cgroup (an_cgroups.c) */
	if (h->flags & IOLAT_FILE_F_CGROUPS)
		an->o.cgroups = true;
	rp->nr_devs = h->nr_devs;
	rp->devs = iolat_grow(rp->devs, &rp->cap_devs, h->nr_devs,
			      sizeof(*rp->devs));
	iolat_dev_lookup_reset(&rp->lookup);
	rp->map = iolat_grow(rp->map, &rp->cap_map, h->nr_devs,
			     sizeof(*rp->map));
	for (d = 0; d < h->nr_devs; d++) {
		const struct iolat_file_dev *fd = &devs[d];
		struct iolat_dev_req *dr = &rp->devs[d];

		memset(dr, 0, sizeof(*dr));
		memcpy(dr->name, fd->name, sizeof(dr->name));
		dr->name[sizeof(dr->name) - 1] = '\0';
		dr->major = fd->major;
		dr->minor = fd->minor;
		dr->nvme_ctrl = fd->nvme_ctrl;
		rp->map[d] = -1;
		if (!wanted(rp, dr->name))
			continue;
		for (k = 0; k < an->nr_devs; k++)
			if (!strcmp(an->devs[k].name, dr->name))
				break;
		if (k == an->nr_devs)
			iolat_an_add_dev(an, dr->name, fd->sectors);
		rp->map[d] = k;
	}
	rp->c = iolat_grow(rp->c, &rp->cap_c, an->nr_devs, sizeof(*rp->c));
	rp->counted = iolat_grow(rp->counted, &rp->cap_counted, an->nr_devs,
				 sizeof(*rp->counted));
	return 0;
}

/*
 * A partition of a file's whole disk, into the analysis's disk of that
 * name unless it has it already (several files of one disk).
 */
static void on_part(void *arg, unsigned int dev, const struct iolat_part *p)
{
	struct report *rp = arg;
	struct iolat_an_dev *d;
	unsigned int i;

	if (rp->map[dev] < 0)
		return;
	d = &rp->an.devs[rp->map[dev]];
	for (i = 0; i < d->nr_parts; i++)
		if (!strcmp(d->parts[i].name, p->name))
			return;
	iolat_an_add_part(&rp->an, rp->map[dev], p);
}

static void on_record(void *arg, const struct iolat_record *r)
{
	struct report *rp = arg;
	int d = iolat_dev_find(&rp->lookup, rp->devs, rp->nr_devs, r);

	if (r->c_ns > rp->last_ns)
		rp->last_ns = r->c_ns;
	if (d < 0)
		rp->run.foreign++;
	else if (rp->map[d] >= 0)
		iolat_an_record(&rp->an, rp->map[d], r);
}

static void on_mark(void *arg, uint64_t now_ns)
{
	struct report *rp = arg;

	if (now_ns > rp->last_ns)
		rp->last_ns = now_ns;
	if (!rp->multi)
		iolat_an_mark(&rp->an, now_ns);
}

static void add_stats(struct iolat_stats *a, const struct iolat_stats *b)
{
	uint64_t *x = (uint64_t *)a;
	const uint64_t *y = (const uint64_t *)b;
	size_t i;

	for (i = 0; i < sizeof(*a) / sizeof(*x); i++)
		x[i] += y[i];
}

static void add_counters(struct iolat_dev_counters *a,
			 const struct iolat_dev_counters *b, bool first)
{
	unsigned int op;

	if (first) {
		*a = *b;
		a->hwqs = NULL;
		a->nr_hwq = 0;
		return;
	}
	/* elapsed times add up: rates over the files' summed windows */
	a->now_ns += b->now_ns - b->start_ns;
	a->busy_ns += b->busy_ns;
	a->qbusy_ns += b->qbusy_ns;
	a->inflight_ns += b->inflight_ns;
	a->qinflight_ns += b->qinflight_ns;
	for (op = 0; op < IOLAT_OP_NR; op++) {
		a->ios[op] += b->ios[op];
		a->bytes[op] += b->bytes[op];
		a->wait_ns[op] += b->wait_ns[op];
	}
	a->issues += b->issues;
	a->qd_sum += b->qd_sum;
}

static void on_end(void *arg, uint64_t end_ns, const struct iolat_run *run,
		   const struct iolat_dev_counters *c)
{
	struct report *rp = arg;
	uint64_t foreign = rp->run.foreign;
	unsigned int d;
	int k;

	rp->end_ns = end_ns;
	if (rp->files == 1) {
		rp->run = *run;
		rp->run.foreign += foreign;
		/* the file's per-device arrays go with its reading */
		rp->run.removed = NULL;
		rp->run.dev_state = NULL;
		rp->run.kstart = rp->run.kend = NULL;
		rp->run.kpre = rp->run.kprestop = NULL;
	} else {
		rp->run.seconds += run->seconds;
		rp->run.delivered += run->delivered;
		rp->run.decode_errors += run->decode_errors;
		rp->run.foreign += run->foreign;
		rp->run.incomplete |= run->incomplete;
		add_stats(&rp->run.stats, &run->stats);
	}
	for (d = 0; d < rp->nr_devs; d++) {
		k = rp->map[d];
		if (k < 0 || !c[d].valid)
			continue;
		add_counters(&rp->c[k], &c[d], !rp->counted[k]);
		rp->counted[k] = true;
	}
}

/* Is @name among the devices of one of the files? (Each file is read.) */
static bool file_has_dev(const char **files, unsigned int n, const char *name)
{
	struct iolat_file_header *h = malloc(sizeof(*h));
	struct iolat_file_dev *devs;
	unsigned int i, d;
	bool found = false;

	for (i = 0; h && !found && i < n; i++) {
		if (iolat_file_peek(files[i], h, &devs))
			continue;
		for (d = 0; d < h->nr_devs; d++)
			if (!strncmp(devs[d].name, name, sizeof(devs[d].name)))
				found = true;
		free(devs);
	}
	free(h);
	return found;
}

/* report, or plot (-o names the SVG file) */
static int report_main(int argc, const char **argv, bool plot)
{
	struct iolat_an_args a = { 0 };
	char *dev = NULL, *svg = NULL;
	struct poptOption report_opts[] = {
		IOLAT_AN_POPT(a),
		{ "device", 'd', POPT_ARG_STRING, &dev, 'd',
		  "only this device (repeat for more)", "DEV" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct poptOption plot_opts[] = {
		{ "output", 'o', POPT_ARG_STRING, &svg, 0,
		  "the SVG file to write (default: standard output)", "FILE" },
		{ "interval", 'i', POPT_ARG_STRING, &a.interval, 0,
		  "seconds per column (default 1)", "SECS" },
		{ "percentiles", 'P', POPT_ARG_STRING, &a.pct, 0,
		  "percentile lines (default 50,90,99,99.9,99.99)", "LIST" },
		{ "stage", 0, POPT_ARG_STRING, &a.stage, 0,
		  "the stage plotted: Q2C (default), D2C, NVMe...", "STAGE" },
		{ "device", 'd', POPT_ARG_STRING, &dev, 'd',
		  "only this device (repeat for more)", "DEV" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	const struct iolat_file_reader rd = {
		.header = on_header, .record = on_record, .mark = on_mark,
		.end = on_end, .part = on_part, .watch = on_watch,
	};
	struct report *rp = calloc(1, sizeof(*rp));
	unsigned int cap_only = 0;
	char **only = NULL;
	const struct iolat_output *out;
	struct iolat_an_opts ao;
	const char **files;
	unsigned int i, n = 0;
	poptContext pc;
	int rc = EXIT_USAGE, opt, err;

	/* options before or after the files, as the README writes them */
	pc = poptGetContext(plot ? "iolat plot" : "iolat report", argc, argv,
			    plot ? plot_opts : report_opts, 0);
	poptSetOtherOptionHelp(pc, "[OPTION...] FILE [FILE...]");
	if (!rp) {
		iolat_err("out of memory");
		rc = EXIT_FAIL;
		goto out;
	}
	while ((opt = poptGetNextOpt(pc)) > 0) {
		only = iolat_grow(only, &cap_only, rp->nr_only + 1,
				  sizeof(*only));
		only[rp->nr_only++] = dev;
		dev = NULL;
	}
	rp->only = only;
	if (opt < -1) {
		iolat_err("%s: %s", poptBadOption(pc, POPT_BADOPTION_NOALIAS),
			  poptStrerror(opt));
		goto out;
	}
	files = poptGetArgs(pc);
	while (files && files[n])
		n++;
	if (!n) {
		iolat_err("no record file given (iolat record -w FILE writes one)");
		goto out;
	}
	if (plot)
		a.output = strdup("svg");
	if (iolat_an_args_parse(&a, &ao, &out))
		goto out;
	rp->multi = n > 1;
	if (rp->multi && (ao.interval_ns || out->needs_intervals)) {
		iolat_err("intervals (-i, -o %s) need a single record file",
			  out->name);
		goto out;
	}
	/* every file readable before any output: no header, then an error */
	for (i = 0; i < n; i++) {
		struct iolat_file_header *h = malloc(sizeof(*h));

		err = h ? iolat_file_peek(files[i], h, NULL) : -ENOMEM;
		free(h);
		if (err == -ENOMEM)
			iolat_err("out of memory");
		if (err) {
			rc = EXIT_FAIL;
			goto out;
		}
	}
	for (i = 0; i < rp->nr_only; i++) {
		if (!file_has_dev(files, n, iolat_dev_basename(only[i]))) {
			iolat_err("no device '%s' in the record file%s", only[i],
				  n > 1 ? "s" : "");
			goto out;
		}
	}
	if (svg && !freopen(svg, "w", stdout)) {
		iolat_err("cannot write %s: %s", svg, strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}
	iolat_an_init(&rp->an, &ao, out);
	for (i = 0; i < n; i++) {
		struct iolat_file_reader r = rd;

		r.arg = rp;
		err = iolat_file_read(files[i], &r);
		if (err < 0) {
			rc = EXIT_FAIL;
			goto out;
		}
		/* read up to a cut or damage (said): what was whole counts */
		if (err == IOLAT_FILE_PARTIAL)
			rp->partial = true;
	}
	if (rp->partial) {
		rp->run.incomplete = true;
		if (rp->last_ns > rp->end_ns)
			rp->end_ns = rp->last_ns;
	}
	if (ao.stage == IOLAT_AN_NVME && !rp->an.nvme) {
		/* (an empty plot or fio log said nothing of why) */
		iolat_err("no NVMe command in the record file%s: --stage NVMe needs a file that 'iolat record --nvme -w' wrote",
			  n > 1 ? "s" : "");
		rc = EXIT_FAIL;
		goto out;
	}
	/* several hosts' clocks make no span: their summed seconds do */
	for (i = 0; rp->multi && i < rp->an.nr_devs; i++)
		rp->an.devs[i].first_ns = rp->an.devs[i].last_ns = 0;
	iolat_an_finish(&rp->an, rp->end_ns, &rp->run, rp->c);
	rc = rp->an.nomem || rp->partial ? EXIT_FAIL : EXIT_OK;
	if (fflush(stdout) || ferror(stdout)) {
		iolat_err("cannot write %s: %s", svg ? svg : "the output",
			  strerror(errno));
		rc = EXIT_FAIL;
	}
	if (rp->an.nomem)
		iolat_err("out of memory: the results are incomplete");
out:
	if (rp) {
		iolat_an_free(&rp->an);
		for (i = 0; i < rp->nr_only; i++)
			free(only[i]);
		free(rp->devs);
		iolat_dev_lookup_free(&rp->lookup);
		free(rp->map);
		free(rp->c);
		free(rp->counted);
	}
	free(only);
	free(rp);
	free(dev);
	free(svg);
	iolat_an_args_free(&a);
	poptFreeContext(pc);
	return rc;
}

int cmd_report(int argc, const char **argv)
{
	return report_main(argc, argv, false);
}

int cmd_plot(int argc, const char **argv)
{
	return report_main(argc, argv, true);
}
