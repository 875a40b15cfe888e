// SPDX-License-Identifier: GPL-2.0
/*
 * iolat trace: one line per completed request with its stage breakdown,
 * as text, CSV (-o csv) or JSON Lines (-o json).  Lines come in batches
 * per CPU buffer, so they are not sorted by time; every field needed to
 * sort is there.  Each batch is flushed as it is read: `iolat trace |
 * grep` is live.  The accounting of the run goes to stderr.
 *
 * With --nvme, a line per NVMe command instead: the namespace's commands
 * with the block stages of the request they carried, and the admin
 * commands of their controllers (qid 0, device nvme<N>).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd/cmd.h"
#include "util/json.h"
#include "../../lib/nvme_names.h"

#define U(x) ((unsigned long long)(x))

enum trace_fmt { FMT_TEXT, FMT_CSV, FMT_JSON };

struct trace_state {
	struct iolat_session *s;
	enum trace_fmt fmt;
	uint64_t t0_ns;		/* CLOCK_MONOTONIC at start, as the module's */
	int nvme;		/* --nvme: a line per NVMe command */
	uint64_t no_command;	/* --nvme: requests without one */
};

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

/* --nvme: the command's fields, in the CSV header's order. */
#define NR_NVME 28
static const char *const nvme_names[NR_NVME] = {
	"start_ns", "end_ns", "latency_ns", "comm", "pid", "device", "qid",
	"cid", "opcode", "nsid", "slba", "length_lbas", "length_bytes",
	"status", "ctrl", "admin", "qd", "retries", "result", "dsm_ranges",
	"dsm_lbas", "dsm_first_slba", "dsm_first_lbas", "q_ns", "d_ns",
	"c_ns", "D2C_ns", "Q2C_ns",
};

static void nvme_fields(const struct iolat_record *r, const char *dev,
			const char *comm, bool json)
{
	char v[NR_NVME][40], opcode[24], status[40];
	bool str[NR_NVME] = { [3] = true, [5] = true, [8] = true,
			      [13] = true };
	__u64 ns;

	iolat_nvme_opcode(opcode, sizeof(opcode), r);
	iolat_nvme_status(status, sizeof(status), r->status);
	snprintf(v[0], sizeof(v[0]), "%llu", U(r->nvme_setup_ns));
	snprintf(v[1], sizeof(v[1]), "%llu", U(r->nvme_done_ns));
	snprintf(v[2], sizeof(v[2]), "%llu",
		 U(r->nvme_done_ns - r->nvme_setup_ns));
	snprintf(v[3], sizeof(v[3]), "%s", comm);
	snprintf(v[4], sizeof(v[4]), "%u", r->pid);
	snprintf(v[5], sizeof(v[5]), "%s", dev);
	snprintf(v[6], sizeof(v[6]), "%u", r->qid);
	snprintf(v[7], sizeof(v[7]), "%u", r->cid);
	snprintf(v[8], sizeof(v[8]), "%s", opcode);
	snprintf(v[9], sizeof(v[9]), "%u", r->nsid);
	snprintf(v[10], sizeof(v[10]), "%llu", U(r->slba));
	snprintf(v[11], sizeof(v[11]), "%llu", U(iolat_nvme_lbas(r)));
	snprintf(v[12], sizeof(v[12]), "%llu", U(iolat_nvme_bytes(r)));
	snprintf(v[13], sizeof(v[13]), "%s", status);
	snprintf(v[14], sizeof(v[14]), "%u", r->ctrl);
	snprintf(v[15], sizeof(v[15]), "%u", !r->qid);
	snprintf(v[16], sizeof(v[16]), "%u", r->qd_setup);
	snprintf(v[17], sizeof(v[17]), "%u", r->retries);
	snprintf(v[18], sizeof(v[18]), "%u", r->result);
	snprintf(v[19], sizeof(v[19]), "%u", r->dsm_nr);
	snprintf(v[20], sizeof(v[20]), "%llu", U(r->dsm_lbas));
	snprintf(v[21], sizeof(v[21]), "%llu", U(r->dsm_slba));
	snprintf(v[22], sizeof(v[22]), "%u", r->dsm_nlb);
	snprintf(v[23], sizeof(v[23]), "%llu", U(r->q_ns));
	snprintf(v[24], sizeof(v[24]), "%llu", U(r->d_ns));
	snprintf(v[25], sizeof(v[25]), "%llu", U(r->c_ns));
	v[26][0] = v[27][0] = '\0';
	if (r->qid && iolat_record_stage(r, IOLAT_STAGE_D2C, &ns))
		snprintf(v[26], sizeof(v[26]), "%llu", U(ns));
	if (r->qid && iolat_record_stage(r, IOLAT_STAGE_Q2C, &ns))
		snprintf(v[27], sizeof(v[27]), "%llu", U(ns));
	if (json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj(&j, NULL);
		iolat_put_fields(nvme_names, v, str, NR_NVME, &j);
		json_end(&j);
	} else {
		iolat_put_fields(nvme_names, v, str, NR_NVME, NULL);
		printf("\n");
	}
}

/* --nvme: one line per command. */
static void nvme_record(struct trace_state *t, unsigned int dev,
			const struct iolat_record *r, const char *comm)
{
	char name[32], opcode[24], status[40], lat[32];
	const char *dname;

	if (!(r->flags & IOLAT_F_NVME)) {
		t->no_command++;
		return;
	}
	dname = iolat_nvme_device(t->s, dev, r, name, sizeof(name));
	if (t->fmt != FMT_TEXT) {
		nvme_fields(r, dname, comm, t->fmt == FMT_JSON);
		return;
	}
	iolat_nvme_opcode(opcode, sizeof(opcode), r);
	iolat_nvme_status(status, sizeof(status), r->status);
	iolat_fmt_ns(lat, sizeof(lat), r->nvme_done_ns - r->nvme_setup_ns);
	printf("%12.6f %-15s %7u %-9s %3u %5u %-13s %12llu %8llu %10llu %9s %4u %s\n",
	       r->nvme_done_ns > t->t0_ns ?
	       (r->nvme_done_ns - t->t0_ns) / 1e9 : 0.0, comm, r->pid, dname,
	       r->qid, r->cid, opcode, U(r->slba), U(iolat_nvme_lbas(r)),
	       U(iolat_nvme_bytes(r)), lat, r->qd_setup, status);
}

static void on_record(void *arg, unsigned int dev, const struct iolat_record *r)
{
	struct trace_state *t = arg;
	const char *name = t->s->devs[dev].name;
	char flags[64], comm[IOLAT_COMM_LEN], sector[24], pid[12];
	unsigned int stage;

	iolat_safe_comm(comm, r->comm);
	if (t->nvme) {
		nvme_record(t, dev, r, comm);
		return;
	}
	iolat_fmt_flags(flags, sizeof(flags), iolat_row_flags(r));
	switch (t->fmt) {
	case FMT_TEXT:
		/* "-": no sector (a flush, an empty write), a submitter not seen */
		if (!iolat_record_has_sector(r))
			strcpy(sector, "-");
		else
			snprintf(sector, sizeof(sector), "%llu", U(r->sector));
		if (r->flags & IOLAT_F_SUBMITTER) {
			snprintf(pid, sizeof(pid), "%u", r->pid);
		} else {
			strcpy(comm, "-");
			strcpy(pid, "-");
		}
		printf("%12.6f %-15s %7s %-9s %-12s %12s %8u",
		       r->c_ns > t->t0_ns ? (r->c_ns - t->t0_ns) / 1e9 : 0.0,
		       comm, pid, name, iolat_op_name(r->op), sector,
		       r->bytes);
		for (stage = 0; stage < IOLAT_STAGE_NR; stage++)
			text_stage(r, stage);
		printf(" %3u %4u %3u %3u %2u %s%s\n", r->hwq, r->tag,
		       r->qd_issue, r->nr_bios, r->requeues, flags,
		       r->error ? " error" : "");
		break;
	case FMT_CSV:
	case FMT_JSON:
		iolat_row(r, name, t->fmt == FMT_JSON,
			  t->s->t0_real_ns - t->s->t0_ns);
		break;
	}
}

static void header(enum trace_fmt fmt, int nvme)
{
	unsigned int stage;

	if (nvme && fmt == FMT_TEXT) {
		printf("%12s %-15s %7s %-9s %3s %5s %-13s %12s %8s %10s %9s %4s %s\n",
		       "time_s", "comm", "pid", "device", "qid", "cid",
		       "opcode", "slba", "lbas", "bytes", "latency", "qd",
		       "status");
	} else if (nvme && fmt == FMT_CSV) {
		iolat_put_names(nvme_names, NR_NVME);
		printf("\n");
	} else if (fmt == FMT_TEXT) {
		printf("%12s %-15s %7s %-9s %-12s %12s %8s", "time_s", "comm",
		       "pid", "device", "op", "sector", "bytes");
		for (stage = 0; stage < IOLAT_STAGE_NR; stage++)
			printf(" %9s", iolat_stage_name(stage));
		printf(" %3s %4s %3s %3s %2s %s\n", "hwq", "tag", "qd", "bio",
		       "rq", "flags");
	} else if (fmt == FMT_CSV) {
		iolat_row_header();
	}
}

/* After each read of the buffers: a pipe gets the lines now, not at exit. */
static void on_drained(void *arg, uint64_t now_ns)
{
	(void)arg;
	(void)now_ns;
	fflush(stdout);
}

/* The run's accounting, on stderr: stdout holds only requests. */
static void summary(const struct trace_state *t, const struct iolat_run *run)
{
	const struct iolat_stats *st = &run->stats;

	fprintf(stderr, "iolat: %llu requests traced, %llu dropped (",
		U(run->delivered), U(iolat_run_dropped(run)));
	iolat_stats_text(stderr, st, IOLAT_SC_drop);
	fprintf(stderr, "), %llu filtered in %.2f s\n", U(st->filtered),
		run->seconds);
	iolat_stack_line(stderr, "iolat: ", st);
	if (t->nvme) {
		fprintf(stderr, "iolat: NVMe: ");
		iolat_stats_text(stderr, st, IOLAT_SC_nvme);
		fprintf(stderr, "; %llu shown, %llu requests without a command seen\n",
			U(run->delivered - t->no_command), U(t->no_command));
	}
}

int cmd_trace(int argc, const char **argv)
{
	struct iolat_session s = { 0 };
	struct trace_state t = { .s = &s };
	char *outname = NULL;
	struct poptOption opts[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_session_options, 0,
		  "Devices and filters:", NULL },
		{ "output", 'o', POPT_ARG_STRING, &outname, 0,
		  "output format: text, csv, json (one object per line)",
		  "FORMAT" },
		{ "nvme", 0, POPT_ARG_NONE, &t.nvme, 0,
		  "a line per NVMe command (qid, cid, opcode, status...), admin commands included; no -d: every NVMe namespace",
		  NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
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
	s.nvme = t.nvme;
	rc = iolat_session_setup(&s, &o);
	if (rc)
		goto out;
	s.record = on_record;
	s.drained = on_drained;
	s.arg = &t;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t.t0_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	header(t.fmt, t.nvme);
	rc = iolat_session_run(&s);
	fflush(stdout);
	if (rc && !s.run.incomplete)
		goto out;
	summary(&t, &s.run);
	rc = iolat_session_accounted(&s) ? EXIT_OK : EXIT_FAIL;
out:
	iolat_session_free(&s);
	iolat_session_opts_free(&o);
	free(outname);
	poptFreeContext(pc);
	return rc;
}
