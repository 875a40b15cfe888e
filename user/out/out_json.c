// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output of record and report: one document, its intervals written
 * as they complete.  docs/output.md gives the schema.
 */
#include <stdio.h>
#include <stdlib.h>
#include "out/output.h"
#include "util/json.h"

#define U(x) ((unsigned long long)(x))

static bool first_interval;

static void json_hist(const struct iolat_an *an, const char *name,
		      const struct iolat_hist *h, bool first)
{
	unsigned int p;

	printf("%s\"%s\": {\"count\": %llu, \"min_ns\": %llu, \"max_ns\": %llu, \"mean_ns\": %.1f, \"stddev_ns\": %.1f, \"overflow\": %llu",
	       first ? "" : ", ", name, U(h->count), U(h->count ? h->min : 0),
	       U(h->max), iolat_hist_mean(h), iolat_hist_stddev(h),
	       U(h->overflow));
	for (p = 0; p < an->o.nr_pct; p++)
		printf(", \"%s_ns\": %llu", an->o.pct_name[p],
		       U(iolat_hist_percentile(h, an->o.pct_ppm[p])));
	printf("}");
}

/* {"op": ..., "ios": ..., "stages": {...}} of one device and op. */
static void json_op(const struct iolat_an *an, unsigned int op,
		    const struct iolat_an_op *o, double secs, bool first)
{
	unsigned int stage;
	bool f = true;

	printf("%s{\"op\": \"%s\", \"ios\": %llu, \"bytes\": %llu, \"bios\": %llu, \"iops\": %.3f, \"mb_s\": %.6f, \"stages\": {",
	       first ? "" : ", ", iolat_an_op_name(op), U(o->ios), U(o->bytes),
	       U(o->bios), secs > 0 ? o->ios / secs : 0,
	       secs > 0 ? o->bytes / secs / 1e6 : 0);
	for (stage = 0; stage < IOLAT_AN_STAGES; stage++) {
		if (!o->hist[stage] || !o->hist[stage]->count)
			continue;
		json_hist(an, iolat_an_stage_name(stage), o->hist[stage], f);
		f = false;
	}
	printf("}}");
}

static void json_ops(const struct iolat_an *an, const struct iolat_an_op *ops,
		     double secs)
{
	unsigned int op;
	bool first = true;

	printf("\"ops\": [");
	for (op = 0; op < IOLAT_AN_OPS; op++) {
		if (!ops[op].ios)
			continue;
		json_op(an, op, &ops[op], secs, first);
		first = false;
	}
	printf("]");
}

static void json_counts(const char *name, const uint64_t *n, unsigned int nr)
{
	unsigned int i;

	printf(", \"%s\": [", name);
	for (i = 0; i < nr; i++)
		printf("%s%llu", i ? ", " : "", U(n[i]));
	printf("]");
}

static int json_begin(struct iolat_an *an)
{
	unsigned int p;

	printf("{\"iolat\": {\"version\": ");
	json_str(stdout, an->meta.cli_version);
	printf(", \"module\": ");
	json_str(stdout, an->meta.module_version);
	printf(", \"host\": ");
	json_str(stdout, an->meta.host);
	printf(", \"kernel\": ");
	json_str(stdout, an->meta.kernel);
	printf(", \"start_realtime_ns\": %llu, \"interval_ns\": %llu, \"percentiles\": [",
	       U(an->meta.t0_real_ns), U(an->o.interval_ns));
	for (p = 0; p < an->o.nr_pct; p++)
		printf("%s\"%s\"", p ? ", " : "", an->o.pct_name[p]);
	printf("]}, \"intervals\": [");
	first_interval = true;
	return 0;
}

static void json_interval(struct iolat_an *an, uint64_t from, uint64_t to)
{
	double secs = (to - from) / 1e9;
	unsigned int d;

	printf("%s{\"from_s\": %.3f, \"to_s\": %.3f, \"devices\": [",
	       first_interval ? "" : ",\n ", from / 1e9, to / 1e9);
	first_interval = false;
	for (d = 0; d < an->nr_devs; d++) {
		printf("%s{\"name\": ", d ? ", " : "");
		json_str(stdout, an->devs[d].name);
		printf(", ");
		json_ops(an, an->devs[d].ival, secs);
		json_counts("qd_hist", an->devs[d].ival_qd, IOLAT_QD_BUCKETS);
		printf("}");
	}
	printf("]}");
	fflush(stdout);
}

static void json_group(const struct iolat_an *an,
		       const struct iolat_an_group *g, bool proc, bool first)
{
	printf("%s{", first ? "" : ", ");
	if (proc) {
		printf("\"comm\": ");
		json_str(stdout, g->comm);
		printf(", \"pid\": %u, \"tgid\": %u, ", g->pid, g->tgid);
	} else {
		printf("\"qid\": %u, ", g->qid);
	}
	printf("\"device\": ");
	json_str(stdout, an->devs[g->dev].name);
	printf(", \"ios\": %llu, \"bytes\": %llu", U(g->ios), U(g->bytes));
	if (g->lat)
		json_hist(an, "latency", g->lat, false);
	printf("}");
}

/* A whole disk's requests by partition (its own, flushes, last: "-"). */
static void json_parts(const struct iolat_an *an,
		       const struct iolat_an_dev *dv)
{
	const struct iolat_an_part *p;
	unsigned int i;

	if (!dv->nr_parts)
		return;
	printf(", \"partitions\": [");
	for (i = 0; i <= dv->nr_parts; i++) {
		p = &dv->parts[i];
		printf("%s{\"name\": ", i ? ", " : "");
		json_str(stdout, p->name);
		if (i < dv->nr_parts)
			printf(", \"start\": %llu, \"sectors\": %llu",
			       U(p->start), U(p->sectors));
		printf(", \"ios\": %llu, \"bytes\": %llu", U(p->ios),
		       U(p->bytes));
		if (p->lat)
			json_hist(an, "latency", p->lat, false);
		printf("}");
	}
	printf("]");
}

/* A stack's bio-based device: "stack": {its I/Os split, by op}. */
static void json_stack(const struct iolat_an *an,
		       const struct iolat_an_dev *dv)
{
	const struct iolat_an_split *sp;
	unsigned int op;
	bool first = true;

	if (!iolat_stack_has(dv))
		return;
	printf(", \"stack\": {\"alone\": %llu, \"outside\": %llu, \"ops\": [",
	       U(dv->split_alone), U(dv->split_outside));
	for (op = 0; op < IOLAT_AN_OPS; op++) {
		sp = &dv->split[op];
		if (!sp->ios || !sp->above)
			continue;
		printf("%s{\"op\": \"%s\", \"ios\": %llu",
		       first ? "" : ", ", iolat_an_op_name(op), U(sp->ios));
		/* aggregated: the time above only (the module's histogram) */
		if (!sp->aggregated)
			printf(", \"requests\": %llu", U(sp->pieces));
		json_hist(an, "above", sp->above, false);
		if (sp->below)
			json_hist(an, "below", sp->below, false);
		printf("}");
		first = false;
	}
	printf("]}");
}

static void json_summary(struct iolat_an *an, const struct iolat_run *run,
			 const struct iolat_dev_counters *c)
{
	const struct iolat_stats *st = &run->stats;
	const struct iolat_an_group **sorted;
	unsigned int d, i;

	printf("], \"devices\": [");
	for (d = 0; d < an->nr_devs; d++) {
		const struct iolat_an_dev *dv = &an->devs[d];

		printf("%s{\"name\": ", d ? ", " : "");
		json_str(stdout, dv->name);
		printf(", \"sectors\": %llu, ", U(dv->sectors));
		json_ops(an, dv->run, iolat_an_dev_secs(dv, run->seconds));
		json_counts("size_hist", dv->size, IOLAT_SIZE_BUCKETS);
		json_counts("qd_hist", dv->qd, IOLAT_QD_BUCKETS);
		json_counts("offset_hist", dv->lba, IOLAT_LBA_BUCKETS);
		json_parts(an, dv);
		json_stack(an, dv);
		if (c && c[d].valid)
			printf(", \"busy_ns\": %llu, \"qbusy_ns\": %llu, \"inflight_ns\": %llu, \"qinflight_ns\": %llu, \"elapsed_ns\": %llu",
			       U(c[d].busy_ns), U(c[d].qbusy_ns),
			       U(c[d].inflight_ns), U(c[d].qinflight_ns),
			       U(c[d].now_ns - c[d].start_ns));
		printf("}");
	}
	printf("], \"processes\": [");
	sorted = iolat_an_procs_sorted(an);
	for (i = 0; i < an->nr_procs; i++)
		json_group(an, sorted ? sorted[i] : &an->procs[i], true, !i);
	free(sorted);
	printf("], \"nvme_queues\": [");
	for (i = 0; i < an->nr_qids; i++)
		json_group(an, &an->qids[i], false, !i);
	printf("], \"seconds\": %.3f, \"records\": {\"delivered\": %llu, \"dropped\": %llu, ",
	       run->seconds, U(run->delivered), U(iolat_run_dropped(run)));
	iolat_stats_json(stdout, st, IOLAT_SC_record);
	printf(", ");
	iolat_stats_json(stdout, st, IOLAT_SC_drop);
	printf(", \"decode_errors\": %llu, \"late\": %llu}, \"events\": {",
	       U(run->decode_errors), U(an->late));
	iolat_stats_json(stdout, st, IOLAT_SC_event);
	printf("}");
	if (iolat_stats_stack(st) || an->split_orphans) {
		printf(", \"stack\": {");
		iolat_stats_json(stdout, st, IOLAT_SC_stack);
		printf(", \"orphans\": %llu}", U(an->split_orphans));
	}
	if (iolat_stats_sum(st, IOLAT_SC_nvme)) {
		printf(", \"nvme\": {");
		iolat_stats_json(stdout, st, IOLAT_SC_nvme);
		printf("}");
	}
	printf(", \"missing_tracepoints\": [");
	for (i = 0; i < run->nr_missing; i++) {
		printf("%s", i ? ", " : "");
		json_str(stdout, run->missing[i]);
	}
	printf("], \"incomplete\": %s}\n", run->incomplete ? "true" : "false");
}

const struct iolat_output iolat_out_json = {
	.name = "json",
	.begin = json_begin,
	.interval = json_interval,
	.summary = json_summary,
};
