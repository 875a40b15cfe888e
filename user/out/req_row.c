// SPDX-License-Identifier: GPL-2.0
/*
 * A request as a row: a line of `iolat trace`, in text, CSV or JSON
 * (`-o`), and the csv output of record and report.
 */
#include <stdio.h>
#include <string.h>
#include "out/output.h"
#include "dev/dev.h"

static const struct {
	uint32_t bit;
	const char *name;
} flag_names[] = {
	{ IOLAT_F_SYNC, "sync" }, { IOLAT_F_META, "meta" },
	{ IOLAT_F_FUA, "fua" }, { IOLAT_F_PREFLUSH, "preflush" },
	{ IOLAT_F_SPLIT, "split" }, { IOLAT_F_BIO, "bio" },
	{ IOLAT_F_STACK, "stack" },
};

/* "sync|fua", or "-" for none; the submitter bit is shown by pid. */
/* The flags shown: an empty write's preflush, which blk-mq cleared, too. */
uint32_t iolat_row_flags(const struct iolat_record *r)
{
	return r->flags | (iolat_record_empty_write(r) ? IOLAT_F_PREFLUSH : 0);
}

void iolat_fmt_flags(char *buf, size_t len, uint32_t flags)
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
void iolat_safe_comm(char *dst, const char *comm)
{
	size_t i;

	for (i = 0; i < IOLAT_COMM_LEN - 1 && comm[i]; i++)
		dst[i] = (unsigned char)comm[i] < 0x20 || comm[i] == '"' ||
			 comm[i] == '\\' || comm[i] == ',' ? '?' : comm[i];
	dst[i] = '\0';
	if (!i)
		strcpy(dst, "?");
}

/*
 * A request's columns: in text, the stages with their units; in CSV and
 * JSON, the record's fields, the stages in ns, the completion on the
 * wall clock and the stack link, an absent value left empty (CSV) or out
 * (JSON).  Each is its own list: their orders differ.
 */
enum {
	T_TIME, T_COMM, T_PID, T_DEV, T_OP, T_SECTOR, T_BYTES, T_STAGE,
	T_HWQ = T_STAGE + IOLAT_STAGE_NR, T_TAG, T_QD, T_BIO, T_RQ, T_FLAGS,
	T_CGROUP, NR_TEXT	/* the cgroup last: only with --cgroups */
};

static struct iolat_col text_cols[NR_TEXT] = {
	[T_TIME] = { "time_s", "time_s", 12, 6 },
	[T_COMM] = { "comm", "comm", -15 },
	[T_PID] = { "pid", "pid", 7 },
	[T_DEV] = { "device", "device", -9 },
	[T_OP] = { "op", "op", -12 },
	[T_SECTOR] = { "sector", "sector", 12 },
	[T_BYTES] = { "bytes", "bytes", 8 },
	[T_HWQ] = { "hwq", "hwq", 3 },
	[T_TAG] = { "tag", "tag", 4 },
	[T_QD] = { "qd", "qd", 3 },
	[T_BIO] = { "bio", "bio", 3 },
	[T_RQ] = { "rq", "rq", 2 },
	[T_FLAGS] = { "flags", "flags", -12 },
	[T_CGROUP] = { "cgroup", "cgroup", 0 },
};

enum {
	D_Q, D_G, D_I, D_D, D_C, D_DEV, D_MAJOR, D_MINOR, D_OP, D_FLAGS,
	D_SECTOR, D_BYTES, D_HWQ, D_TAG, D_BIOS, D_REQUEUES, D_QDI, D_QDD,
	D_ERROR, D_PID, D_TGID, D_COMM, D_STAGE,
	D_REAL = D_STAGE + IOLAT_STAGE_NR, D_LINK,
	D_CGROUP, D_CGROUP_ID, NR_DATA	/* the cgroup's last: --cgroups */
};

static struct iolat_col data_cols[NR_DATA] = {
	[D_Q] = { "q_ns" }, [D_G] = { "g_ns" }, [D_I] = { "i_ns" },
	[D_D] = { "d_ns" }, [D_C] = { "c_ns" },
	[D_DEV] = { "device", .str = true },
	[D_MAJOR] = { "major" }, [D_MINOR] = { "minor" },
	[D_OP] = { "op", .str = true }, [D_FLAGS] = { "flags", .str = true },
	[D_SECTOR] = { "sector" }, [D_BYTES] = { "bytes" },
	[D_HWQ] = { "hwq" }, [D_TAG] = { "tag" }, [D_BIOS] = { "nr_bios" },
	[D_REQUEUES] = { "requeues" }, [D_QDI] = { "qd_insert" },
	[D_QDD] = { "qd_issue" }, [D_ERROR] = { "error" },
	[D_PID] = { "pid" }, [D_TGID] = { "tgid" },
	[D_COMM] = { "comm", .str = true },
	[D_REAL] = { "c_real_ns" }, [D_LINK] = { "link" },
	[D_CGROUP] = { "cgroup", .str = true }, [D_CGROUP_ID] = { "cgroup_id" },
};

/* The stages' keys: "Q2C" in text, "Q2C_ns" in CSV and JSON. */
static char stage_keys[IOLAT_STAGE_NR][8];

/**
 * iolat_row_table() - a table of requests, a row each by iolat_row()
 * @t: the table
 * @fmt: its format
 * @f: where
 * @cgroups: with each request's cgroup (the records have them)
 */
void iolat_row_table(struct iolat_table *t, enum iolat_fmt fmt, FILE *f,
		     bool cgroups)
{
	unsigned int stage;

	for (stage = 0; stage < IOLAT_STAGE_NR; stage++) {
		snprintf(stage_keys[stage], sizeof(stage_keys[stage]), "%s_ns",
			 iolat_stage_name(stage));
		data_cols[D_STAGE + stage].key = stage_keys[stage];
		text_cols[T_STAGE + stage].key = stage_keys[stage];
		text_cols[T_STAGE + stage].head = iolat_stage_name(stage);
		text_cols[T_STAGE + stage].width = 9;
	}
	/* without cgroups, the flags end a line of text, not a column */
	text_cols[T_FLAGS].width = cgroups ? -12 : 0;
	if (fmt == IOLAT_FMT_TEXT)
		iolat_table_init(t, text_cols, cgroups ? NR_TEXT : T_CGROUP,
				 fmt, f);
	else
		iolat_table_init(t, data_cols, cgroups ? NR_DATA : D_CGROUP,
				 fmt, f);
}

/* A request's cgroup, if its table has the column. */
static void cgroup_cells(struct iolat_table *t, const struct iolat_record *r)
{
	bool text = t->fmt == IOLAT_FMT_TEXT;
	char name[128];

	if (t->nr != (text ? NR_TEXT : NR_DATA) || !r->cgroup)
		return;
	/* text: a container by its short id; CSV and JSON: the path */
	iolat_cell_str(t, text ? T_CGROUP : D_CGROUP,
		       iolat_cgroup_label(r->cgroup, iolat_cgroup_path(r->cgroup),
					  text, name, sizeof(name)));
	if (!text)
		iolat_cell_u64(t, D_CGROUP_ID, r->cgroup);
}

static void text_cells(struct iolat_table *t, const struct iolat_record *r,
		       const char *flags, const char *comm, uint64_t t0_ns)
{
	unsigned int stage;
	char buf[80];
	__u64 ns;

	iolat_cell_dbl(t, T_TIME, r->c_ns > t0_ns ? (r->c_ns - t0_ns) / 1e9 : 0);
	/* "-" (a cell left empty): no submitter seen, no sector */
	if (r->flags & IOLAT_F_SUBMITTER) {
		iolat_cell_str(t, T_COMM, comm);
		iolat_cell_u64(t, T_PID, r->pid);
	}
	iolat_cell_str(t, T_OP, iolat_op_name(r->op));
	if (iolat_record_has_sector(r))
		iolat_cell_u64(t, T_SECTOR, r->sector);
	iolat_cell_u64(t, T_BYTES, r->bytes);
	for (stage = 0; stage < IOLAT_STAGE_NR; stage++)
		if (iolat_record_stage(r, stage, &ns))
			iolat_cell_ns(t, T_STAGE + stage, ns);
	iolat_cell_u64(t, T_HWQ, r->hwq);
	iolat_cell_u64(t, T_TAG, r->tag);
	iolat_cell_u64(t, T_QD, r->qd_issue);
	iolat_cell_u64(t, T_BIO, r->nr_bios);
	iolat_cell_u64(t, T_RQ, r->requeues);
	snprintf(buf, sizeof(buf), "%s%s", flags, r->error ? " error" : "");
	iolat_cell_str(t, T_FLAGS, buf);
}

static void data_cells(struct iolat_table *t, const struct iolat_record *r,
		       const char *flags, const char *comm,
		       uint64_t real_offset)
{
	const struct { unsigned int col; uint64_t v; } nums[] = {
		{ D_Q, r->q_ns }, { D_G, r->g_ns }, { D_I, r->i_ns },
		{ D_D, r->d_ns }, { D_C, r->c_ns }, { D_MAJOR, r->major },
		{ D_MINOR, r->minor }, { D_BYTES, r->bytes },
		{ D_HWQ, r->hwq }, { D_TAG, r->tag },
		{ D_BIOS, r->nr_bios }, { D_REQUEUES, r->requeues },
		{ D_QDI, r->qd_insert }, { D_QDD, r->qd_issue },
	};
	unsigned int i, stage;
	char err[16];
	__u64 ns;

	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		iolat_cell_u64(t, nums[i].col, nums[i].v);
	iolat_cell_str(t, D_OP, iolat_op_name(r->op));
	iolat_cell_str(t, D_FLAGS, flags);
	/* a flush, an empty write: no sector */
	if (iolat_record_has_sector(r))
		iolat_cell_u64(t, D_SECTOR, r->sector);
	snprintf(err, sizeof(err), "%d", r->error);
	iolat_cell_str(t, D_ERROR, err);
	/* no submitter seen (a flush the kernel issued) */
	if (r->flags & IOLAT_F_SUBMITTER) {
		iolat_cell_u64(t, D_PID, r->pid);
		iolat_cell_u64(t, D_TGID, r->tgid);
		iolat_cell_str(t, D_COMM, comm);
	}
	for (stage = 0; stage < IOLAT_STAGE_NR; stage++)
		if (iolat_record_stage(r, stage, &ns))
			iolat_cell_u64(t, D_STAGE + stage, ns);
	/* the completion on the wall clock, to join other logs by */
	if (r->c_ns)
		iolat_cell_u64(t, D_REAL, r->c_ns + real_offset);
	/* a stack's I/O that the record is or is a piece of */
	if (r->link)
		iolat_cell_u64(t, D_LINK, r->link);
}

/**
 * iolat_row() - one request as a row of iolat_row_table()'s table
 * @t: the table
 * @r: the record
 * @dev: its device's name
 * @t0_ns: text: the start on the module's clock, of the column time_s
 * @real_offset: CSV and JSON: CLOCK_REALTIME less CLOCK_MONOTONIC at the
 *	session's start: c_real_ns, the completion on the wall clock, is
 *	c_ns plus it
 */
void iolat_row(struct iolat_table *t, const struct iolat_record *r,
	       const char *dev, uint64_t t0_ns, uint64_t real_offset)
{
	char flags[64], comm[IOLAT_COMM_LEN];

	iolat_safe_comm(comm, r->comm);
	iolat_fmt_flags(flags, sizeof(flags), iolat_row_flags(r));
	iolat_cell_str(t, t->fmt == IOLAT_FMT_TEXT ? T_DEV : D_DEV, dev);
	if (t->fmt == IOLAT_FMT_TEXT)
		text_cells(t, r, flags, comm, t0_ns);
	else
		data_cells(t, r, flags, comm, real_offset);
	cgroup_cells(t, r);
	iolat_table_row(t, NULL);
}

/* record and report -o csv: the analysis's records, as trace's CSV */
static struct iolat_table csv_table;

static int csv_begin(struct iolat_an *an)
{
	iolat_row_table(&csv_table, IOLAT_FMT_CSV, stdout, an->o.cgroups);
	iolat_table_header(&csv_table);
	return 0;
}

static void csv_record(struct iolat_an *an, unsigned int dev,
		       const struct iolat_record *r)
{
	iolat_row(&csv_table, r, an->devs[dev].name, 0,
		  an->meta.t0_real_ns - an->meta.t0_ns);
}

const struct iolat_output iolat_out_csv = {
	.name = "csv",
	.begin = csv_begin,
	.record = csv_record,
};
