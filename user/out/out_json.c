// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output of record and report: one document, its intervals written
 * as they complete.  docs/output.md gives the schema.
 */
#include <stdio.h>
#include <stdlib.h>
#include "out/output.h"
#include "out/trigger.h"
#include "util/json.h"

/* The document, written as the analysis goes: begin, intervals, summary. */
static struct json jw;

static void json_hist(const struct iolat_an *an, const char *name,
		      const struct iolat_hist *h)
{
	char key[32];
	unsigned int p;

	json_obj(&jw, name);
	json_u64(&jw, "count", h->count);
	json_u64(&jw, "min_ns", h->count ? h->min : 0);
	json_u64(&jw, "max_ns", h->max);
	json_double(&jw, "mean_ns", "%.1f", iolat_hist_mean(h));
	json_double(&jw, "stddev_ns", "%.1f", iolat_hist_stddev(h));
	json_u64(&jw, "overflow", h->overflow);
	for (p = 0; p < an->o.nr_pct; p++) {
		snprintf(key, sizeof(key), "%s_ns", an->o.pct_name[p]);
		json_u64(&jw, key, iolat_hist_percentile(h, an->o.pct_ppm[p]));
	}
	json_end(&jw);
}

/* {"op": ..., "ios": ..., "stages": {...}} of one device and op. */
static void json_op(const struct iolat_an *an, unsigned int op,
		    const struct iolat_an_op *o, double secs)
{
	unsigned int stage;

	json_obj(&jw, NULL);
	json_string(&jw, "op", iolat_an_op_name(op));
	json_u64(&jw, "ios", o->ios);
	json_u64(&jw, "bytes", o->bytes);
	json_u64(&jw, "bios", o->bios);
	json_double(&jw, "iops", "%.3f", secs > 0 ? o->ios / secs : 0);
	json_double(&jw, "mb_s", "%.6f", secs > 0 ? o->bytes / secs / 1e6 : 0);
	json_obj(&jw, "stages");
	for (stage = 0; stage < IOLAT_AN_STAGES; stage++)
		if (o->hist[stage] && o->hist[stage]->count)
			json_hist(an, iolat_an_stage_name(stage), o->hist[stage]);
	json_end(&jw);
	json_end(&jw);
}

static void json_ops(const struct iolat_an *an, const struct iolat_an_op *ops,
		     double secs)
{
	unsigned int op;

	json_arr(&jw, "ops");
	for (op = 0; op < IOLAT_AN_OPS; op++)
		if (ops[op].ios)
			json_op(an, op, &ops[op], secs);
	json_end(&jw);
}

static void json_counts(const char *name, const uint64_t *n, unsigned int nr)
{
	unsigned int i;

	json_arr(&jw, name);
	for (i = 0; i < nr; i++)
		json_u64(&jw, NULL, n[i]);
	json_end(&jw);
}

static int json_begin(struct iolat_an *an)
{
	unsigned int p;

	json_init(&jw, stdout, true);
	json_obj(&jw, NULL);
	json_obj(&jw, "iolat");
	json_string(&jw, "version", an->meta.cli_version);
	json_string(&jw, "module", an->meta.module_version);
	json_string(&jw, "host", an->meta.host);
	json_string(&jw, "kernel", an->meta.kernel);
	json_u64(&jw, "start_realtime_ns", an->meta.t0_real_ns);
	json_u64(&jw, "interval_ns", an->o.interval_ns);
	json_arr(&jw, "percentiles");
	for (p = 0; p < an->o.nr_pct; p++)
		json_string(&jw, NULL, an->o.pct_name[p]);
	json_end(&jw);
	json_end(&jw);
	json_arr_lines(&jw, "intervals");
	return 0;
}

static void json_interval(struct iolat_an *an, uint64_t from, uint64_t to)
{
	double secs = (to - from) / 1e9;
	unsigned int d;

	json_obj(&jw, NULL);
	json_double(&jw, "from_s", "%.3f", from / 1e9);
	json_double(&jw, "to_s", "%.3f", to / 1e9);
	json_arr(&jw, "devices");
	for (d = 0; d < an->nr_devs; d++) {
		json_obj(&jw, NULL);
		json_string(&jw, "name", an->devs[d].name);
		json_ops(an, an->devs[d].ival, secs);
		json_counts("qd_hist", an->devs[d].ival_qd, IOLAT_QD_BUCKETS);
		json_end(&jw);
	}
	json_end(&jw);
	json_end(&jw);
	fflush(stdout);
}

static void json_group(const struct iolat_an *an,
		       const struct iolat_an_group *g, bool proc)
{
	json_obj(&jw, NULL);
	if (proc) {
		json_string(&jw, "comm", g->comm);
		json_u64(&jw, "pid", g->pid);
		json_u64(&jw, "tgid", g->tgid);
	} else {
		json_u64(&jw, "qid", g->qid);
	}
	json_string(&jw, "device", an->devs[g->dev].name);
	json_u64(&jw, "ios", g->ios);
	json_u64(&jw, "bytes", g->bytes);
	if (g->lat)
		json_hist(an, "latency", g->lat);
	json_end(&jw);
}

/* --cgroups: each cgroup's requests on each device. */
static void json_cgroups(const struct iolat_an *an)
{
	const struct iolat_an_cg **sorted = iolat_an_cgroups_sorted(an);
	char buf[32], name[128];
	const char *label;
	unsigned int i;

	json_arr(&jw, "cgroups");
	for (i = 0; i < an->nr_cgs; i++) {
		const struct iolat_an_cg *g = sorted ? sorted[i] : &an->cgs[i];

		json_obj(&jw, NULL);
		/* "-" (no cgroup: a bio-based device's I/O) is not in @buf */
		label = iolat_an_cg_name(g, buf, sizeof(buf));
		json_string(&jw, "cgroup", label);
		json_string(&jw, "name", iolat_cgroup_name(g->path ? g->path : label,
							   name, sizeof(name)));
		json_u64(&jw, "cgroup_id", g->id);
		json_string(&jw, "device", an->devs[g->dev].name);
		json_u64(&jw, "ios", g->ios);
		json_u64(&jw, "bytes", g->bytes);
		json_double(&jw, "queue_share", "%.4f", iolat_an_cg_share(an, g));
		if (g->q2c)
			json_hist(an, "Q2C", g->q2c);
		if (g->d2c)
			json_hist(an, "D2C", g->d2c);
		json_end(&jw);
	}
	json_end(&jw);
	free(sorted);
}

/* A whole disk's requests by partition (its own, flushes, last: "-"). */
static void json_parts(const struct iolat_an *an,
		       const struct iolat_an_dev *dv)
{
	const struct iolat_an_part *p;
	unsigned int i;

	if (!dv->nr_parts)
		return;
	json_arr(&jw, "partitions");
	for (i = 0; i <= dv->nr_parts; i++) {
		p = &dv->parts[i];
		json_obj(&jw, NULL);
		json_string(&jw, "name", p->name);
		if (i < dv->nr_parts) {
			json_u64(&jw, "start", p->start);
			json_u64(&jw, "sectors", p->sectors);
		}
		json_u64(&jw, "ios", p->ios);
		json_u64(&jw, "bytes", p->bytes);
		if (p->lat)
			json_hist(an, "latency", p->lat);
		json_end(&jw);
	}
	json_end(&jw);
}

/* A stack's bio-based device: "stack": {its I/Os split, by op}. */
static void json_stack(const struct iolat_an *an,
		       const struct iolat_an_dev *dv)
{
	const struct iolat_an_split *sp;
	unsigned int op;

	if (!iolat_stack_has(dv))
		return;
	json_obj(&jw, "stack");
	json_u64(&jw, "alone", dv->split_alone);
	json_u64(&jw, "outside", dv->split_outside);
	json_arr(&jw, "ops");
	for (op = 0; op < IOLAT_AN_OPS; op++) {
		sp = &dv->split[op];
		if (!sp->ios || !sp->above)
			continue;
		json_obj(&jw, NULL);
		json_string(&jw, "op", iolat_an_op_name(op));
		json_u64(&jw, "ios", sp->ios);
		/* aggregated: the time above only (the module's histogram) */
		if (!sp->aggregated)
			json_u64(&jw, "requests", sp->pieces);
		json_hist(an, "above", sp->above);
		if (sp->below)
			json_hist(an, "below", sp->below);
		json_end(&jw);
	}
	json_end(&jw);
	json_end(&jw);
}

static void json_summary(struct iolat_an *an, const struct iolat_run *run,
			 const struct iolat_dev_counters *c)
{
	const struct iolat_stats *st = &run->stats;
	const struct iolat_an_group **sorted;
	unsigned int d, i;

	json_end(&jw);		/* the intervals */
	json_arr(&jw, "devices");
	for (d = 0; d < an->nr_devs; d++) {
		const struct iolat_an_dev *dv = &an->devs[d];

		json_obj(&jw, NULL);
		json_string(&jw, "name", dv->name);
		json_u64(&jw, "sectors", dv->sectors);
		json_ops(an, dv->run, iolat_an_dev_secs(dv, run->seconds));
		json_counts("size_hist", dv->size, IOLAT_SIZE_BUCKETS);
		json_counts("qd_hist", dv->qd, IOLAT_QD_BUCKETS);
		json_counts("offset_hist", dv->lba, IOLAT_LBA_BUCKETS);
		json_parts(an, dv);
		json_stack(an, dv);
		if (c && c[d].valid) {
			json_u64(&jw, "busy_ns", c[d].busy_ns);
			json_u64(&jw, "qbusy_ns", c[d].qbusy_ns);
			json_u64(&jw, "inflight_ns", c[d].inflight_ns);
			json_u64(&jw, "qinflight_ns", c[d].qinflight_ns);
			json_u64(&jw, "elapsed_ns", c[d].now_ns - c[d].start_ns);
		}
		json_end(&jw);
	}
	json_end(&jw);
	json_arr(&jw, "processes");
	sorted = iolat_an_procs_sorted(an);
	for (i = 0; i < an->nr_procs; i++)
		json_group(an, sorted ? sorted[i] : &an->procs[i], true);
	free(sorted);
	json_end(&jw);
	if (an->o.cgroups)
		json_cgroups(an);
	json_arr(&jw, "nvme_queues");
	for (i = 0; i < an->nr_qids; i++)
		json_group(an, &an->qids[i], false);
	json_end(&jw);
	json_double(&jw, "seconds", "%.3f", run->seconds);
	json_obj(&jw, "records");
	json_u64(&jw, "delivered", run->delivered);
	json_u64(&jw, "dropped", iolat_run_dropped(run));
	iolat_stats_json(&jw, st, IOLAT_SC_record);
	iolat_stats_json(&jw, st, IOLAT_SC_drop);
	json_u64(&jw, "decode_errors", run->decode_errors);
	json_u64(&jw, "late", an->late);
	json_end(&jw);
	json_obj(&jw, "events");
	iolat_stats_json(&jw, st, IOLAT_SC_event);
	json_end(&jw);
	if (iolat_stats_stack(st) || an->split_orphans) {
		json_obj(&jw, "stack");
		iolat_stats_json(&jw, st, IOLAT_SC_stack);
		json_u64(&jw, "orphans", an->split_orphans);
		json_end(&jw);
	}
	if (an->watch)
		iolat_trigger_json(&jw, an->watch, an->watch_dev);
	if (iolat_stats_sum(st, IOLAT_SC_watch)) {
		json_obj(&jw, "watch");
		iolat_stats_json(&jw, st, IOLAT_SC_watch);
		json_end(&jw);
	}
	if (iolat_stats_sum(st, IOLAT_SC_nvme)) {
		json_obj(&jw, "nvme");
		iolat_stats_json(&jw, st, IOLAT_SC_nvme);
		json_end(&jw);
	}
	json_arr(&jw, "missing_tracepoints");
	for (i = 0; i < run->nr_missing; i++)
		json_string(&jw, NULL, run->missing[i]);
	json_end(&jw);
	json_bool(&jw, "incomplete", run->incomplete);
	json_end(&jw);
}

const struct iolat_output iolat_out_json = {
	.name = "json",
	.begin = json_begin,
	.interval = json_interval,
	.summary = json_summary,
};
