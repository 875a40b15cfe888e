// SPDX-License-Identifier: GPL-2.0
/*
 * A record as one CSV line or one JSON object: `iolat trace -o csv|json`
 * and the csv output of record and report.
 */
#include <stdio.h>
#include <string.h>
#include "out/output.h"
#include "util/json.h"

#define U(x) ((unsigned long long)(x))

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
 * A row of @n fields: CSV values, or (@j) members of @j's open object in
 * which the fields flagged in @str are strings and empty ones are left
 * out.
 */
void iolat_put_fields(const char *const *names, char (*v)[40],
		      const bool *str, unsigned int n, struct json *j)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!j)
			printf("%s%s", i ? "," : "", v[i]);
		else if (!v[i][0])
			continue;
		else if (str[i])
			json_string(j, names[i], v[i]);
		else
			json_raw(j, names[i], v[i]);
	}
}

/* A CSV header line's first @n names. */
void iolat_put_names(const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		printf("%s%s", i ? "," : "", names[i]);
}

/* The raw fields of a record, in the CSV header's order. */
#define NR_RAW 22
static const char *const raw_names[NR_RAW] = {
	"q_ns", "g_ns", "i_ns", "d_ns", "c_ns", "device", "major", "minor",
	"op", "flags", "sector", "bytes", "hwq", "tag", "nr_bios", "requeues",
	"qd_insert", "qd_issue", "error", "pid", "tgid", "comm",
};

/* The JSON object of raw_fields(): its fields, the stages, the rest. */
static void json_fields(const struct iolat_record *r, char (*v)[40],
			const bool *str, uint64_t real_offset)
{
	char key[32];
	unsigned int stage;
	struct json j;
	__u64 ns;

	json_init(&j, stdout, true);
	json_obj(&j, NULL);
	iolat_put_fields(raw_names, v, str, NR_RAW, &j);
	for (stage = 0; stage < IOLAT_STAGE_NR; stage++) {
		if (!iolat_record_stage(r, stage, &ns))
			continue;
		snprintf(key, sizeof(key), "%s_ns", iolat_stage_name(stage));
		json_u64(&j, key, ns);
	}
	if (r->c_ns)
		json_u64(&j, "c_real_ns", r->c_ns + real_offset);
	if (r->link)
		json_u64(&j, "link", r->link);
	json_end(&j);
}

/* One CSV row, or one JSON object (strings quoted), with the stages. */
static void raw_fields(const struct iolat_record *r, const char *name,
		       const char *flags, const char *comm, bool json,
		       uint64_t real_offset)
{
	char v[NR_RAW][40];
	bool str[NR_RAW] = { [5] = true, [8] = true, [9] = true, [21] = true };
	unsigned int stage;
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
	/* a flush, an empty write: no sector, an empty field, not in JSON */
	if (!iolat_record_has_sector(r))
		v[10][0] = '\0';
	else
		snprintf(v[10], sizeof(v[10]), "%llu", U(r->sector));
	snprintf(v[11], sizeof(v[11]), "%u", r->bytes);
	snprintf(v[12], sizeof(v[12]), "%u", r->hwq);
	snprintf(v[13], sizeof(v[13]), "%u", r->tag);
	snprintf(v[14], sizeof(v[14]), "%u", r->nr_bios);
	snprintf(v[15], sizeof(v[15]), "%u", r->requeues);
	snprintf(v[16], sizeof(v[16]), "%u", r->qd_insert);
	snprintf(v[17], sizeof(v[17]), "%u", r->qd_issue);
	snprintf(v[18], sizeof(v[18]), "%d", r->error);
	/* no submitter seen (a flush the kernel issued): empty fields */
	if (r->flags & IOLAT_F_SUBMITTER) {
		snprintf(v[19], sizeof(v[19]), "%u", r->pid);
		snprintf(v[20], sizeof(v[20]), "%u", r->tgid);
		snprintf(v[21], sizeof(v[21]), "%s", comm);
	} else {
		v[19][0] = v[20][0] = v[21][0] = '\0';
	}
	if (json) {
		json_fields(r, v, str, real_offset);
		return;
	}
	iolat_put_fields(raw_names, v, str, NR_RAW, NULL);
	for (stage = 0; stage < IOLAT_STAGE_NR; stage++) {
		if (iolat_record_stage(r, stage, &ns))
			printf(",%llu", U(ns));
		else
			printf(",");
	}
	/* the completion on the wall clock, to join other logs by */
	if (r->c_ns)
		printf(",%llu", U(r->c_ns + real_offset));
	else
		printf(",");
	/* a stack's I/O that the record is or is a piece of */
	if (r->link)
		printf(",%llu\n", U(r->link));
	else
		printf(",\n");
}

/* The CSV header of iolat_row(). */
void iolat_row_header(void)
{
	unsigned int stage;

	iolat_put_names(raw_names, NR_RAW);
	for (stage = 0; stage < IOLAT_STAGE_NR; stage++)
		printf(",%s_ns", iolat_stage_name(stage));
	printf(",c_real_ns,link\n");
}

/**
 * iolat_row() - one request as a CSV line or a JSON object
 * @r: the record
 * @dev: its device's name
 * @json: a JSON object (JSON Lines) instead of CSV
 * @real_offset: CLOCK_REALTIME less CLOCK_MONOTONIC at the session's
 *	start: c_real_ns, the completion on the wall clock, is c_ns plus it
 */
void iolat_row(const struct iolat_record *r, const char *dev, bool json,
	       uint64_t real_offset)
{
	char flags[64], comm[IOLAT_COMM_LEN];

	iolat_safe_comm(comm, r->comm);
	iolat_fmt_flags(flags, sizeof(flags), iolat_row_flags(r));
	raw_fields(r, dev, flags, comm, json, real_offset);
}

static int csv_begin(struct iolat_an *an)
{
	(void)an;
	iolat_row_header();
	return 0;
}

static void csv_record(struct iolat_an *an, unsigned int dev,
		       const struct iolat_record *r)
{
	iolat_row(r, an->devs[dev].name, false,
		  an->meta.t0_real_ns - an->meta.t0_ns);
}

const struct iolat_output iolat_out_csv = {
	.name = "csv",
	.begin = csv_begin,
	.record = csv_record,
};
