// SPDX-License-Identifier: GPL-2.0
/*
 * iolat trace: one line per completed request with its stage breakdown,
 * as text, CSV (-o csv) or JSON Lines (-o json).  Lines come in batches
 * per CPU buffer, so they are not sorted by time; every field needed to
 * sort is there.  The accounting of the run goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "iolat.h"

#define U(x) ((unsigned long long)(x))

enum trace_fmt { FMT_TEXT, FMT_CSV, FMT_JSON };

struct trace_state {
	struct iolat_session *s;
	enum trace_fmt fmt;
	uint64_t t0_ns;		/* CLOCK_MONOTONIC at start, as the module's */
};

static const struct {
	uint32_t bit;
	const char *name;
} flag_names[] = {
	{ IOLAT_F_SYNC, "sync" }, { IOLAT_F_META, "meta" },
	{ IOLAT_F_FUA, "fua" }, { IOLAT_F_PREFLUSH, "preflush" },
	{ IOLAT_F_SPLIT, "split" },
};

/* "sync|fua", or "-" for none; the submitter bit is shown by pid. */
static void fmt_flags(char *buf, size_t len, uint32_t flags)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (flags & flag_names[i].bit)
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      n ? "|" : "", flag_names[i].name);
	if (!n)
		snprintf(buf, len, "-");
}

/* A task name safe in CSV and JSON: quotes, commas, controls -> '?'. */
static void safe_comm(char *dst, const char *comm)
{
	size_t i;

	for (i = 0; i < IOLAT_COMM_LEN - 1 && comm[i]; i++)
		dst[i] = (unsigned char)comm[i] < 0x20 || comm[i] == '"' ||
			 comm[i] == '\\' || comm[i] == ',' ? '?' : comm[i];
	dst[i] = '\0';
	if (!i)
		strcpy(dst, "?");
}

static void text_stage(const struct iolat_record *r, unsigned int stage)
{
	char buf[32];
	__u64 ns;

	if (iolat_record_stage(r, stage, &ns))
		iolat_fmt_ns(buf, sizeof(buf), ns);
	else
		strcpy(buf, "-");
	printf(" %9s", buf);
}

/* The raw fields of a record, in the CSV header's order. */
#define NR_RAW 22
static const char *const raw_names[NR_RAW] = {
	"q_ns", "g_ns", "i_ns", "d_ns", "c_ns", "device", "major", "minor",
	"op", "flags", "sector", "bytes", "hwq", "tag", "nr_bios", "requeues",
	"qd_insert", "qd_issue", "error", "pid", "tgid", "comm",
};

/* One CSV row, or one JSON object (strings quoted), with the stages. */
static void raw_fields(const struct iolat_record *r, const char *name,
		       const char *flags, const char *comm, bool json)
{
	char v[NR_RAW][40];
	bool str[NR_RAW] = { [5] = true, [8] = true, [9] = true, [21] = true };
	unsigned int i, stage;
	__u64 ns;

	snprintf(v[0], sizeof(v[0]), "%llu", U(r->q_ns));
	snprintf(v[1], sizeof(v[1]), "%llu", U(r->g_ns));
	snprintf(v[2], sizeof(v[2]), "%llu", U(r->i_ns));
	snprintf(v[3], sizeof(v[3]), "%llu", U(r->d_ns));
	snprintf(v[4], sizeof(v[4]), "%llu", U(r->c_ns));
	snprintf(v[5], sizeof(v[5]), "%s", name);
	snprintf(v[6], sizeof(v[6]), "%u", r->major);
	snprintf(v[7], sizeof(v[7]), "%u", r->minor);
	snprintf(v[8], sizeof(v[8]), "%s", iolat_op_name(r->op));
	snprintf(v[9], sizeof(v[9]), "%s", flags);
	snprintf(v[10], sizeof(v[10]), "%llu", U(r->sector));
	snprintf(v[11], sizeof(v[11]), "%u", r->bytes);
	snprintf(v[12], sizeof(v[12]), "%u", r->hwq);
	snprintf(v[13], sizeof(v[13]), "%u", r->tag);
	snprintf(v[14], sizeof(v[14]), "%u", r->nr_bios);
	snprintf(v[15], sizeof(v[15]), "%u", r->requeues);
	snprintf(v[16], sizeof(v[16]), "%u", r->qd_insert);
	snprintf(v[17], sizeof(v[17]), "%u", r->qd_issue);
	snprintf(v[18], sizeof(v[18]), "%d", r->error);
	snprintf(v[19], sizeof(v[19]), "%u", r->pid);
	snprintf(v[20], sizeof(v[20]), "%u", r->tgid);
	snprintf(v[21], sizeof(v[21]), "%s", comm);
	for (i = 0; i < NR_RAW; i++) {
		if (json)
			printf("%s\"%s\": %s%s%s", i ? ", " : "{", raw_names[i],
			       str[i] ? "\"" : "", v[i], str[i] ? "\"" : "");
		else
			printf("%s%s", i ? "," : "", v[i]);
	}
	for (stage = 0; stage < IOLAT_STAGE_NR; stage++) {
		if (iolat_record_stage(r, stage, &ns))
			printf(json ? ", \"%s_ns\": %llu" : ",%.0s%llu",
			       iolat_stage_name(stage), U(ns));
		else if (!json)
			printf(",");
	}
	printf(json ? "}\n" : "\n");
}

static void on_record(void *arg, unsigned int dev, const struct iolat_record *r)
{
	struct trace_state *t = arg;
	const char *name = t->s->devs[dev].name;
	char flags[64], comm[IOLAT_COMM_LEN];
	unsigned int stage;

	fmt_flags(flags, sizeof(flags), r->flags);
	safe_comm(comm, r->comm);
	switch (t->fmt) {
	case FMT_TEXT:
		printf("%12.6f %-15s %7u %-9s %-12s %12llu %8u",
		       r->c_ns > t->t0_ns ? (r->c_ns - t->t0_ns) / 1e9 : 0.0,
		       comm, r->pid, name, iolat_op_name(r->op), U(r->sector),
		       r->bytes);
		for (stage = 0; stage < IOLAT_STAGE_NR; stage++)
			text_stage(r, stage);
		printf(" %3u %4u %3u %3u %2u %s%s\n", r->hwq, r->tag,
		       r->qd_issue, r->nr_bios, r->requeues, flags,
		       r->error ? " error" : "");
		break;
	case FMT_CSV:
	case FMT_JSON:
		raw_fields(r, name, flags, comm, t->fmt == FMT_JSON);
		break;
	}
}

static void header(enum trace_fmt fmt)
{
	unsigned int stage, i;

	if (fmt == FMT_TEXT) {
		printf("%12s %-15s %7s %-9s %-12s %12s %8s", "time_s", "comm",
		       "pid", "device", "op", "sector", "bytes");
		for (stage = 0; stage < IOLAT_STAGE_NR; stage++)
			printf(" %9s", iolat_stage_name(stage));
		printf(" %3s %4s %3s %3s %2s %s\n", "hwq", "tag", "qd", "bio",
		       "rq", "flags");
	} else if (fmt == FMT_CSV) {
		for (i = 0; i < NR_RAW; i++)
			printf("%s%s", i ? "," : "", raw_names[i]);
		for (stage = 0; stage < IOLAT_STAGE_NR; stage++)
			printf(",%s_ns", iolat_stage_name(stage));
		printf("\n");
	}
}

/* The run's accounting, on stderr: stdout holds only requests. */
static void summary(const struct iolat_run *run)
{
	const struct iolat_stats *st = &run->stats;

	fprintf(stderr, "iolat: %llu requests traced, %llu dropped (buffer full %llu, in flight at start or issued while stopping %llu, outside queue geometry %llu), %llu filtered in %.2f s\n",
		U(run->delivered), U(iolat_run_dropped(run)), U(st->drop_full),
		U(st->drop_unmatched), U(st->drop_range), U(st->filtered),
		run->seconds);
}

int cmd_trace(int argc, const char **argv)
{
	char *outname = NULL;
	struct poptOption opts[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_session_options, 0,
		  "Devices and filters:", NULL },
		{ "output", 'o', POPT_ARG_STRING, &outname, 0,
		  "output format: text, csv, json (one object per line)",
		  "FORMAT" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	struct iolat_session s = { 0 };
	struct trace_state t = { .s = &s };
	struct timespec ts;
	poptContext pc;
	int rc = EXIT_USAGE;

	pc = poptGetContext("iolat trace", argc, argv, opts,
			    POPT_CONTEXT_POSIXMEHARDER);
	if (iolat_session_getopt(&s, &o, pc))
		goto out;
	if (!outname || !strcmp(outname, "text")) {
		t.fmt = FMT_TEXT;
	} else if (!strcmp(outname, "csv")) {
		t.fmt = FMT_CSV;
	} else if (!strcmp(outname, "json")) {
		t.fmt = FMT_JSON;
	} else {
		iolat_err("unknown output format '%s' (text, csv, json)", outname);
		goto out;
	}
	rc = iolat_session_setup(&s, &o);
	if (rc)
		goto out;
	s.record = on_record;
	s.arg = &t;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t.t0_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	header(t.fmt);
	rc = iolat_session_run(&s);
	fflush(stdout);
	if (rc && !s.run.incomplete)
		goto out;
	summary(&s.run);
	rc = iolat_session_accounted(&s) ? EXIT_OK : EXIT_FAIL;
out:
	iolat_session_opts_free(&o);
	free(outname);
	poptFreeContext(pc);
	return rc;
}
