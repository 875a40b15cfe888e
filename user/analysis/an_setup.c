// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis's words and its setup, off the path of every record: the
 * names of ops, stages and percentiles (which the outputs print), the
 * devices and partitions it breaks requests down by, and the run's
 * description.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "analysis/analyze.h"
#include "file/recfile.h"

static const char *const stage_names[IOLAT_AN_STAGES] = {
	[IOLAT_STAGE_Q2G] = "Q2G", [IOLAT_STAGE_G2I] = "G2I",
	[IOLAT_STAGE_I2D] = "I2D", [IOLAT_STAGE_D2C] = "D2C",
	[IOLAT_STAGE_Q2C] = "Q2C", [IOLAT_AN_NVME] = "NVMe",
};

/* The record's op in the analysis: IOLAT_AN_PREFLUSH for an empty write. */
const char *iolat_an_op_name(unsigned int op)
{
	return op == IOLAT_AN_PREFLUSH ? "preflush" : iolat_op_name(op);
}

const char *iolat_an_stage_name(unsigned int stage)
{
	return stage < IOLAT_AN_STAGES ? stage_names[stage] : "?";
}

/* "D2C", "q2c", "nvme" -> the stage, or -1. */
int iolat_an_stage_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < IOLAT_AN_STAGES; i++)
		if (!strcasecmp(name, stage_names[i]))
			return i;
	return -1;
}

static const struct {
	const char *name;
	uint32_t ppm;
} default_pct[] = {
	{ "p50", 500000 }, { "p90", 900000 }, { "p99", 990000 },
	{ "p99.9", 999000 }, { "p99.99", 999900 },
};

void iolat_an_default_pct(struct iolat_an_opts *o)
{
	unsigned int i;

	o->nr_pct = sizeof(default_pct) / sizeof(default_pct[0]);
	for (i = 0; i < o->nr_pct; i++) {
		o->pct_ppm[i] = default_pct[i].ppm;
		o->pct_name[i] = default_pct[i].name;
	}
}

/*
 * "50,99,99.9" -> the percentiles, named "p50", "p99", "p99.9".  The names
 * are kept in a static table: one list per process.
 */
int iolat_an_parse_pct(struct iolat_an_opts *o, const char *list)
{
	static char names[IOLAT_MAX_PCT][16];
	const char *p = list;
	unsigned int i;
	char *end;
	double v;

	o->nr_pct = 0;
	while (*p) {
		v = strtod(p, &end);
		if (end == p || !(v > 0 && v <= 100) || o->nr_pct == IOLAT_MAX_PCT ||
		    (*end && *end != ','))
			return -EINVAL;
		for (i = 0; i < o->nr_pct; i++)
			if (o->pct_ppm[i] == (uint32_t)(v * 10000 + 0.5))
				return -EINVAL;
		snprintf(names[o->nr_pct], sizeof(names[0]), "p%.*s",
			 (int)(end - p), p);
		o->pct_name[o->nr_pct] = names[o->nr_pct];
		o->pct_ppm[o->nr_pct++] = (uint32_t)(v * 10000 + 0.5);
		p = *end ? end + 1 : end;
	}
	return o->nr_pct ? 0 : -EINVAL;
}

void iolat_an_add_dev(struct iolat_an *an, const char *name, uint64_t sectors)
{
	struct iolat_an_dev *d;
	unsigned int b;

	an->devs = iolat_grow(an->devs, &an->cap_devs, an->nr_devs + 1,
			      sizeof(*an->devs));
	d = &an->devs[an->nr_devs++];

	snprintf(d->name, sizeof(d->name), "%s", name);
	d->sectors = sectors;
	/* bucket b starts at the first sector s with s * BUCKETS >= b * sectors */
	for (b = 0; b < IOLAT_LBA_BUCKETS; b++)
		d->lba_start[b] = (uint64_t)(((unsigned __int128)b * sectors +
					      IOLAT_LBA_BUCKETS - 1) /
					     IOLAT_LBA_BUCKETS);
	/* BUCKETS / sectors below 1 only: 0 where it would not fit */
	d->lba_mul = sectors > IOLAT_LBA_BUCKETS ?
		(uint64_t)(((unsigned __int128)IOLAT_LBA_BUCKETS << 64) /
			   sectors) : 0;
}

/**
 * iolat_an_add_part() - break a whole disk's requests down by partition
 * @an: the analysis
 * @dev: the disk's index
 * @p: one of its partitions; at most IOLAT_MAX_PARTS, by start
 */
void iolat_an_add_part(struct iolat_an *an, unsigned int dev,
		       const struct iolat_part *p)
{
	struct iolat_an_dev *d = &an->devs[dev];
	struct iolat_an_part *q;

	if (d->nr_parts == IOLAT_MAX_PARTS)
		return;
	q = &d->parts[d->nr_parts++];
	snprintf(q->name, sizeof(q->name), "%s", p->name);
	q->start = p->start;
	q->sectors = p->sectors;
	snprintf(d->parts[d->nr_parts].name, sizeof(q->name), "-");
}

/* A session's device, with its partitions if it is a whole disk. */
void iolat_an_add_req(struct iolat_an *an, const struct iolat_dev_req *req)
{
	unsigned int i;

	iolat_an_add_dev(an, req->name, req->sectors);
	for (i = 0; i < req->nr_parts; i++)
		iolat_an_add_part(an, an->nr_devs - 1, &req->parts[i]);
}

/* The run's description from a record file's header (or a live one's). */
void iolat_an_meta_from(struct iolat_an *an, const struct iolat_file_header *h)
{
	struct iolat_an_meta *m = &an->meta;

	snprintf(m->host, sizeof(m->host), "%.*s", (int)sizeof(h->host),
		 h->host);
	snprintf(m->kernel, sizeof(m->kernel), "%.*s", (int)sizeof(h->kernel),
		 h->kernel);
	snprintf(m->cli_version, sizeof(m->cli_version), "%.*s",
		 (int)sizeof(h->cli_version), h->cli_version);
	snprintf(m->module_version, sizeof(m->module_version), "%.*s",
		 (int)sizeof(h->module_version), h->module_version);
	m->t0_ns = h->t0_ns;
	m->t0_real_ns = h->t0_real_ns;
}
