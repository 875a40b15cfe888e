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
#include "out/table.h"
#include "../../lib/nvme_names.h"

#define U(x) ((unsigned long long)(x))

struct trace_state {
	struct iolat_session *s;
	struct iolat_table tab;	/* its fmt: -o */
	uint64_t t0_ns;		/* CLOCK_MONOTONIC at start, as the module's */
	int nvme;		/* --nvme: a line per NVMe command */
	int cgroups;		/* --cgroups: each request's cgroup */
	uint64_t no_command;	/* --nvme: requests without one */
};

/*
 * --nvme: a command's columns.  CSV and JSON have the fields in this
 * order; text has its own few, the driver's time and the queue depth
 * before the status (the columns only text shows).
 */
enum {
	N_TIME, N_START, N_END, N_LAT, N_COMM, N_PID, N_DEV, N_QID, N_CID,
	N_OPC, N_NSID, N_SLBA, N_LBAS, N_BYTES, N_TLAT, N_TQD, N_STATUS,
	N_CTRL, N_ADMIN, N_QD, N_RETRIES, N_RESULT, N_DSM_NR, N_DSM_LBAS,
	N_DSM_SLBA, N_DSM_NLB, N_Q, N_D, N_C, N_D2C, N_Q2C, NR_NVME
};

static const struct iolat_col nvme_cols[NR_NVME] = {
	[N_TIME] = { "time_s", "time_s", 12, 6, 6, IOLAT_IN_TEXT },
	[N_START] = { "start_ns", .in = IOLAT_IN_DATA },
	[N_END] = { "end_ns", .in = IOLAT_IN_DATA },
	[N_LAT] = { "latency_ns", .in = IOLAT_IN_DATA },
	[N_COMM] = { "comm", "comm", -15, .str = true },
	[N_PID] = { "pid", "pid", 7 },
	[N_DEV] = { "device", "device", -9, .str = true },
	[N_QID] = { "qid", "qid", 3 },
	[N_CID] = { "cid", "cid", 5 },
	[N_OPC] = { "opcode", "opcode", -13, .str = true },
	[N_NSID] = { "nsid", .in = IOLAT_IN_DATA },
	[N_SLBA] = { "slba", "slba", 12 },
	[N_LBAS] = { "length_lbas", "lbas", 8 },
	[N_BYTES] = { "length_bytes", "bytes", 10 },
	[N_TLAT] = { "latency", "latency", 9, .in = IOLAT_IN_TEXT },
	[N_TQD] = { "qd", "qd", 4, .in = IOLAT_IN_TEXT },
	[N_STATUS] = { "status", "status", 0, .str = true },
	[N_CTRL] = { "ctrl", .in = IOLAT_IN_DATA },
	[N_ADMIN] = { "admin", .in = IOLAT_IN_DATA },
	[N_QD] = { "qd", .in = IOLAT_IN_DATA },
	[N_RETRIES] = { "retries", .in = IOLAT_IN_DATA },
	[N_RESULT] = { "result", .in = IOLAT_IN_DATA },
	[N_DSM_NR] = { "dsm_ranges", .in = IOLAT_IN_DATA },
	[N_DSM_LBAS] = { "dsm_lbas", .in = IOLAT_IN_DATA },
	[N_DSM_SLBA] = { "dsm_first_slba", .in = IOLAT_IN_DATA },
	[N_DSM_NLB] = { "dsm_first_lbas", .in = IOLAT_IN_DATA },
	[N_Q] = { "q_ns", .in = IOLAT_IN_DATA },
	[N_D] = { "d_ns", .in = IOLAT_IN_DATA },
	[N_C] = { "c_ns", .in = IOLAT_IN_DATA },
	[N_D2C] = { "D2C_ns", .in = IOLAT_IN_DATA },
	[N_Q2C] = { "Q2C_ns", .in = IOLAT_IN_DATA },
};

/* Seconds since the start, of a time on the module's clock. */
static double since(const struct trace_state *t, uint64_t ns)
{
	return ns > t->t0_ns ? (ns - t->t0_ns) / 1e9 : 0.0;
}

/* --nvme: one line per command. */
static void nvme_record(struct trace_state *t, unsigned int dev,
			const struct iolat_record *r)
{
	struct iolat_table *tab = &t->tab;
	char name[32], opcode[24], status[40], comm[IOLAT_COMM_LEN];
	uint64_t lat = r->nvme_done_ns - r->nvme_setup_ns;
	const struct { unsigned int col; uint64_t v; } nums[] = {
		{ N_START, r->nvme_setup_ns }, { N_END, r->nvme_done_ns },
		{ N_LAT, lat }, { N_PID, r->pid }, { N_QID, r->qid },
		{ N_CID, r->cid }, { N_NSID, r->nsid }, { N_SLBA, r->slba },
		{ N_LBAS, iolat_nvme_lbas(r) }, { N_BYTES, iolat_nvme_bytes(r) },
		{ N_TQD, r->qd_setup }, { N_CTRL, r->ctrl },
		{ N_ADMIN, !r->qid }, { N_QD, r->qd_setup },
		{ N_RETRIES, r->retries }, { N_RESULT, r->result },
		{ N_DSM_NR, r->dsm_nr }, { N_DSM_LBAS, r->dsm_lbas },
		{ N_DSM_SLBA, r->dsm_slba }, { N_DSM_NLB, r->dsm_nlb },
		{ N_Q, r->q_ns }, { N_D, r->d_ns }, { N_C, r->c_ns },
	};
	unsigned int i;
	__u64 ns;

	if (!(r->flags & IOLAT_F_NVME)) {
		t->no_command++;
		return;
	}
	iolat_safe_comm(comm, r->comm);
	iolat_nvme_opcode(opcode, sizeof(opcode), r);
	iolat_nvme_status(status, sizeof(status), r->status);
	iolat_cell_dbl(tab, N_TIME, since(t, r->nvme_done_ns));
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		iolat_cell_u64(tab, nums[i].col, nums[i].v);
	iolat_cell_ns(tab, N_TLAT, lat);
	iolat_cell_str(tab, N_COMM, comm);
	iolat_cell_str(tab, N_DEV,
		       iolat_nvme_device(t->s, dev, r, name, sizeof(name)));
	iolat_cell_str(tab, N_OPC, opcode);
	iolat_cell_str(tab, N_STATUS, status);
	if (r->qid && iolat_record_stage(r, IOLAT_STAGE_D2C, &ns))
		iolat_cell_u64(tab, N_D2C, ns);
	if (r->qid && iolat_record_stage(r, IOLAT_STAGE_Q2C, &ns))
		iolat_cell_u64(tab, N_Q2C, ns);
	iolat_table_row(tab, NULL);
}

static void on_record(void *arg, unsigned int dev, const struct iolat_record *r)
{
	struct trace_state *t = arg;

	if (t->nvme)
		nvme_record(t, dev, r);
	else
		iolat_row(&t->tab, r, t->s->devs[dev].name, t->t0_ns,
			  t->s->t0_real_ns - t->s->t0_ns);
}

static void header(struct trace_state *t)
{
	if (t->nvme)
		iolat_table_init(&t->tab, nvme_cols, NR_NVME, t->tab.fmt,
				 stdout);
	else
		iolat_row_table(&t->tab, t->tab.fmt, stdout, t->cgroups);
	iolat_table_header(&t->tab);
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
		{ "cgroups", 0, POPT_ARG_NONE, &t.cgroups, 0,
		  "each request's cgroup, the one the kernel charges it to (from its first bio): its path in the io controller's hierarchy",
		  NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	poptContext pc;
	int rc = EXIT_USAGE;

	pc = poptGetContext("iolat trace", argc, argv, opts,
			    POPT_CONTEXT_POSIXMEHARDER);
	if (iolat_session_getopt(&s, &o, pc))
		goto out;
	if (iolat_fmt_parse(outname, IOLAT_FMT_ALL, &t.tab.fmt))
		goto out;
	s.nvme = t.nvme;
	s.cgroups = t.cgroups;
	if (t.cgroups && t.nvme) {
		iolat_err("--cgroups is of the block requests' lines, not --nvme's");
		goto out;
	}
	rc = iolat_session_setup(&s, &o);
	if (rc)
		goto out;
	s.record = on_record;
	s.drained = on_drained;
	s.arg = &t;
	t.t0_ns = iolat_mono_ns();
	header(&t);
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
