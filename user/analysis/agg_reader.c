// SPDX-License-Identifier: GPL-2.0
/*
 * `iolat record --aggregate`: the module keeps the histograms (per CPU,
 * summed when read) and the CLI reads them at each interval's end and at
 * the stop.  The difference between two readings is what completed in
 * between; it goes into the analysis as records would, so that every
 * output that needs no per-request data (text, json, fio, prom) is the
 * same in form.  With cgroup slots (IOLAT_A_CGROUP_SLOTS), each slot's
 * histogram and counts since the start replace its group's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"

struct iolat_agg_reader {
	struct iolat_session *s;
	struct iolat_agg *prev;		/* [nr_devs], the last reading */
	struct iolat_agg *cur;
	struct iolat_dev_counters *before;	/* [nr_devs], its counters */
	struct iolat_dev_counters *now;		/* [nr_devs] */
	struct iolat_hist *delta[IOLAT_AGG_STAGES];
	struct iolat_an *an;	/* iolat_agg_take()'s, for the cgroup slots */
};

void iolat_agg_reader_free(struct iolat_agg_reader *r)
{
	unsigned int i;

	if (!r)
		return;
	iolat_counters_free(r->s, r->now);
	for (i = 0; i < IOLAT_AGG_STAGES; i++)
		free(r->delta[i]);
	free(r->prev);
	free(r->cur);
	free(r->before);
	free(r);
}

/* A reader for @s, whose devices are set up; NULL if out of memory. */
struct iolat_agg_reader *iolat_agg_reader_new(struct iolat_session *s)
{
	struct iolat_agg_reader *r = calloc(1, sizeof(*r));
	unsigned int d, op, i;

	if (!r)
		return NULL;
	r->s = s;
	r->prev = calloc(s->nr_devs, sizeof(*r->prev));
	r->cur = calloc(s->nr_devs, sizeof(*r->cur));
	r->before = calloc(s->nr_devs, sizeof(*r->before));
	for (i = 0; i < IOLAT_AGG_STAGES; i++)
		r->delta[i] = malloc(sizeof(*r->delta[i]));
	if (!r->prev || !r->cur || !r->before || !r->delta[0] ||
	    !r->delta[1] || !(r->now = iolat_counters_new(s))) {
		iolat_agg_reader_free(r);
		return NULL;
	}
	for (d = 0; d < s->nr_devs; d++)
		for (op = 0; op < IOLAT_OP_NR; op++)
			for (i = 0; i < IOLAT_AGG_STAGES; i++)
				iolat_hist_init(&r->prev[d].h[op][i]);
	return r;
}

/**
 * iolat_agg_reader_grow() - room for the devices that joined the session
 * @r: the reader, for @from devices
 * @from: how many it had; the session has more now
 *
 * Out of memory, the CLI exits after one line (iolat_grow_to()).
 */
void iolat_agg_reader_grow(struct iolat_agg_reader *r, unsigned int from)
{
	unsigned int to = r->s->nr_devs, d, op, i;

	r->prev = iolat_grow_to(r->prev, from, to, sizeof(*r->prev));
	r->cur = iolat_grow_to(r->cur, from, to, sizeof(*r->cur));
	r->before = iolat_grow_to(r->before, from, to, sizeof(*r->before));
	iolat_counters_grow(r->s, &r->now, from);
	for (d = from; d < to; d++)
		for (op = 0; op < IOLAT_OP_NR; op++)
			for (i = 0; i < IOLAT_AGG_STAGES; i++)
				iolat_hist_init(&r->prev[d].h[op][i]);
}

/* A cgroup slot's histogram into its group of the analysis. */
static struct iolat_hist *cg_hist(void *arg, uint32_t major, uint32_t minor,
				  uint64_t id)
{
	struct iolat_agg_reader *r = arg;
	int d = iolat_dev_find_num(&r->s->lookup, r->s->devs, r->s->nr_devs,
				   major, minor);

	return d >= 0 ? iolat_an_cgroup_hist(r->an, d, id) : NULL;
}

/* A cgroup slot's counts into its group of the analysis. */
static void cg_counts(void *arg, const struct iolat_cg_counts *c)
{
	struct iolat_agg_reader *r = arg;
	int d = iolat_dev_find_num(&r->s->lookup, r->s->devs, r->s->nr_devs,
				   c->major, c->minor);

	if (d >= 0)
		iolat_an_cgroup_set(r->an, d, c);
}

/**
 * iolat_agg_each() - read the module's histograms, and give each device
 * and op what completed since the reading before
 * @r: the reader
 * @c: the devices' counters, if just read, else NULL to read them now
 * @fn: called for every device and op with the difference (its
 *      histograms are the reader's, valid until the next reading) and,
 *      with the first op, the queue depths' difference, else NULL
 * @arg: for @fn
 *
 * The histograms are read after the counters, so a request may be in the
 * histograms and not yet in the counters read; it is counted with the
 * next reading.
 *
 * Return: 0 or a negative errno.
 */
int iolat_agg_each(struct iolat_agg_reader *r,
		   const struct iolat_dev_counters *c, iolat_agg_fn fn,
		   void *arg)
{
	struct iolat_session *s = r->s;
	struct iolat_an_op delta;
	struct iolat_agg *t;
	uint64_t qd[IOLAT_QD_BUCKETS];
	unsigned int d, op, i;
	int err;

	if (!c) {
		err = iolat_session_counters(s, r->now);
		if (err)
			return err;
		c = r->now;
	}
	err = iolat_nl_hist_cg(s->nl, c, r->cur, s->nr_devs,
			       r->an && s->cg_slots ? cg_hist : NULL, r);
	if (err)
		return err;
	for (d = 0; d < s->nr_devs; d++) {
		for (i = 0; i < IOLAT_QD_BUCKETS; i++)
			qd[i] = c[d].qd_hist[i] - r->before[d].qd_hist[i];
		for (op = 0; op < IOLAT_OP_NR; op++) {
			memset(&delta, 0, sizeof(delta));
			delta.ios = c[d].agg_ios[op] - r->before[d].agg_ios[op];
			delta.bytes = c[d].agg_bytes[op] -
				      r->before[d].agg_bytes[op];
			/* the module does not count a request's bios */
			delta.bios = delta.ios;
			for (i = 0; i < IOLAT_AGG_STAGES; i++) {
				iolat_hist_diff(r->delta[i], &r->cur[d].h[op][i],
						&r->prev[d].h[op][i]);
				/* a bio-based device keeps its time above there */
				if (i && s->devs[d].bio_based)
					delta.above = r->delta[i];
				else
					delta.hist[iolat_agg_stage(i)] = r->delta[i];
			}
			fn(arg, d, op, &delta, op ? NULL : qd);
		}
		memcpy(r->before[d].agg_ios, c[d].agg_ios,
		       sizeof(c[d].agg_ios));
		memcpy(r->before[d].agg_bytes, c[d].agg_bytes,
		       sizeof(c[d].agg_bytes));
		memcpy(r->before[d].qd_hist, c[d].qd_hist,
		       sizeof(c[d].qd_hist));
	}
	t = r->prev;
	r->prev = r->cur;
	r->cur = t;
	return 0;
}

/* An op's difference into the analysis, as records of it would go. */
static void agg_to_an(void *arg, unsigned int dev, unsigned int op,
		      const struct iolat_an_op *delta, const uint64_t *qd)
{
	/* the queue depths go with the first op */
	if (qd || delta->ios || delta->hist[IOLAT_STAGE_Q2C]->count ||
	    (delta->hist[IOLAT_STAGE_D2C] &&
	     delta->hist[IOLAT_STAGE_D2C]->count) ||
	    (delta->above && delta->above->count))
		iolat_an_add_op(arg, dev, op, delta, qd);
}

/**
 * iolat_agg_take() - read the module's histograms into the analysis
 * @r: the reader
 * @an: the analysis
 * @c: the devices' counters, if just read (at the stop), else NULL to
 *     read them now
 *
 * Return: 0 or a negative errno.
 */
int iolat_agg_take(struct iolat_agg_reader *r, struct iolat_an *an,
		   const struct iolat_dev_counters *c)
{
	int err;

	r->an = an;
	err = iolat_agg_each(r, c, agg_to_an, an);
	/* the cgroup slots' counts, read after their histograms */
	if (!err && r->s->cg_slots)
		err = iolat_nl_cgroups(r->s->nl, cg_counts, r);
	r->an = NULL;
	return err;
}
