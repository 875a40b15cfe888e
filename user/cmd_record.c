// SPDX-License-Identifier: GPL-2.0
/*
 * iolat record: trace devices for a time, until Ctrl-C, or while a
 * command runs; then print latency histograms per device, operation and
 * stage (Q2G, G2I, I2D, D2C, Q2C), a table per process, and account for
 * every request.  With -i, a line per device and operation each interval.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "iolat.h"

/* Latency of a process's requests on one device. */
struct proc_stat {
	uint32_t pid;
	uint32_t tgid;
	char comm[IOLAT_COMM_LEN];
	unsigned int dev;
	uint64_t ios;
	uint64_t bytes;
	struct iolat_hist *lat;
};

struct rec_state {
	struct iolat_session *s;
	const struct iolat_output *out;
	struct iolat_hist *hist[IOLAT_MAX_DEVS][IOLAT_OP_NR][IOLAT_STAGE_NR];
	/* this interval's, with -i */
	struct iolat_hist *ival[IOLAT_MAX_DEVS][IOLAT_OP_NR][IOLAT_STAGE_NR];
	bool intervals;
	bool begun;		/* output started */
	struct proc_stat *procs;
	unsigned int nr_procs, cap_procs, last_proc;
};

static bool hist_add(struct iolat_session *s, struct iolat_hist **h, uint64_t v)
{
	if (!*h) {
		*h = malloc(sizeof(**h));
		if (!*h) {
			s->run.nomem = true;
			return false;
		}
		iolat_hist_init(*h);
	}
	iolat_hist_add(*h, v);
	return true;
}

/* The process's entry (pid, device), found from the last one hit. */
static struct proc_stat *proc_find(struct rec_state *st, unsigned int dev,
				   const struct iolat_record *r)
{
	struct proc_stat *p;
	unsigned int i, k;

	for (k = 0; k < st->nr_procs; k++) {
		i = (st->last_proc + k) % st->nr_procs;
		p = &st->procs[i];
		if (p->pid == r->pid && p->dev == dev &&
		    !strncmp(p->comm, r->comm, IOLAT_COMM_LEN)) {
			st->last_proc = i;
			return p;
		}
	}
	if (st->nr_procs == st->cap_procs) {
		unsigned int cap = st->cap_procs ? 2 * st->cap_procs : 16;

		p = realloc(st->procs, cap * sizeof(*p));
		if (!p)
			return NULL;
		st->procs = p;
		st->cap_procs = cap;
	}
	p = &st->procs[st->nr_procs];
	memset(p, 0, sizeof(*p));
	p->pid = r->pid;
	p->tgid = r->tgid;
	memcpy(p->comm, r->comm, IOLAT_COMM_LEN);
	p->comm[IOLAT_COMM_LEN - 1] = '\0';
	p->dev = dev;
	st->last_proc = st->nr_procs;
	return &st->procs[st->nr_procs++];
}

static void on_record(void *arg, unsigned int dev, const struct iolat_record *r)
{
	struct rec_state *st = arg;
	unsigned int op = r->op < IOLAT_OP_NR ? r->op : IOLAT_OP_OTHER, stage;
	struct proc_stat *p;
	__u64 ns;

	for (stage = 0; stage < IOLAT_STAGE_NR; stage++) {
		if (!iolat_record_stage(r, stage, &ns))
			continue;
		hist_add(st->s, &st->hist[dev][op][stage], ns);
		if (st->intervals)
			hist_add(st->s, &st->ival[dev][op][stage], ns);
	}
	p = proc_find(st, dev, r);
	if (!p) {
		st->s->run.nomem = true;
		return;
	}
	p->ios++;
	p->bytes += r->bytes;
	hist_add(st->s, &p->lat, iolat_record_latency(r));
}

static unsigned int op_result(struct iolat_hist *h[IOLAT_STAGE_NR],
			      unsigned int op, struct iolat_op_result *res)
{
	unsigned int stage, n = 0;

	res->op = iolat_op_name(op);
	for (stage = 0; stage < IOLAT_STAGE_NR; stage++) {
		res->hist[stage] = h[stage];
		n += h[stage] != NULL;
	}
	return n;
}

static void begin(struct rec_state *st)
{
	if (!st->begun)
		st->out->begin(&st->s->run);
	st->begun = true;
}

static void on_tick(void *arg, double elapsed)
{
	struct rec_state *st = arg;
	struct iolat_op_result res;
	unsigned int d, op, stage;
	bool first = true;

	begin(st);
	for (d = 0; d < st->s->nr_devs; d++) {
		for (op = 0; op < IOLAT_OP_NR; op++) {
			if (!op_result(st->ival[d][op], op, &res))
				continue;
			st->out->interval(elapsed, st->s->devs[d].name, &res, first);
			first = false;
			for (stage = 0; stage < IOLAT_STAGE_NR; stage++)
				if (st->ival[d][op][stage])
					iolat_hist_init(st->ival[d][op][stage]);
		}
	}
	if (first)
		st->out->interval(elapsed, NULL, NULL, true);
	fflush(stdout);
}

static void report(struct rec_state *st)
{
	struct iolat_op_result ops[IOLAT_OP_NR];
	struct iolat_proc_result *pr;
	unsigned int d, op, n, i;
	bool first = true;

	begin(st);
	for (d = 0; d < st->s->nr_devs; d++) {
		for (n = 0, op = 0; op < IOLAT_OP_NR; op++)
			if (op_result(st->hist[d][op], op, &ops[n]))
				n++;
		if (!n)
			continue;
		st->out->device(st->s->devs[d].name, ops, n, first);
		first = false;
	}
	pr = calloc(st->nr_procs ? st->nr_procs : 1, sizeof(*pr));
	if (!pr) {
		st->s->run.nomem = true;
	} else {
		for (i = 0; i < st->nr_procs; i++) {
			pr[i].pid = st->procs[i].pid;
			pr[i].tgid = st->procs[i].tgid;
			pr[i].comm = st->procs[i].comm;
			pr[i].dev = st->s->devs[st->procs[i].dev].name;
			pr[i].ios = st->procs[i].ios;
			pr[i].bytes = st->procs[i].bytes;
			pr[i].q2c = st->procs[i].lat;
		}
		st->out->procs(pr, st->nr_procs);
		free(pr);
	}
	st->out->end(&st->s->run);
}

static void rec_free(struct rec_state *st)
{
	unsigned int d, op, stage, i;

	for (d = 0; d < IOLAT_MAX_DEVS; d++)
		for (op = 0; op < IOLAT_OP_NR; op++)
			for (stage = 0; stage < IOLAT_STAGE_NR; stage++) {
				free(st->hist[d][op][stage]);
				free(st->ival[d][op][stage]);
			}
	for (i = 0; i < st->nr_procs; i++)
		free(st->procs[i].lat);
	free(st->procs);
}

int cmd_record(int argc, const char **argv)
{
	char *outname = NULL, *ival = NULL;
	struct poptOption opts[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_session_options, 0,
		  "Devices and filters:", NULL },
		{ "output", 'o', POPT_ARG_STRING, &outname, 0,
		  "output format: text, json", "FORMAT" },
		{ "interval", 'i', POPT_ARG_STRING, &ival, 0,
		  "also print each SECS seconds a line per device and operation",
		  "SECS" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	struct iolat_session s = { 0 };
	struct rec_state st = { .s = &s };
	poptContext pc;
	char *end;
	int rc = EXIT_USAGE;

	pc = poptGetContext("iolat record", argc, argv, opts,
			    POPT_CONTEXT_POSIXMEHARDER);
	if (iolat_session_getopt(&s, &o, pc))
		goto out;
	st.out = iolat_output_find(outname ? outname : "text");
	if (!st.out) {
		iolat_err("unknown output format '%s' (text, json)", outname);
		goto out;
	}
	if (ival) {
		s.tick_s = strtod(ival, &end);
		if (*end || end == ival || s.tick_s < 0.1 || s.tick_s > 86400) {
			iolat_err("-i takes a number of seconds from 0.1 to 86400, not '%s'",
				  ival);
			goto out;
		}
		s.tick = on_tick;
		st.intervals = true;
	}
	rc = iolat_session_setup(&s, &o);
	if (rc)
		goto out;
	s.record = on_record;
	s.arg = &st;
	rc = iolat_session_run(&s);
	if (rc && !s.run.incomplete)
		goto out;
	report(&st);
	rc = iolat_session_accounted(&s) ? EXIT_OK : EXIT_FAIL;
out:
	rec_free(&st);
	iolat_session_opts_free(&o);
	free(outname);
	free(ival);
	poptFreeContext(pc);
	return rc;
}
