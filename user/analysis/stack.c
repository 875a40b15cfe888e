// SPDX-License-Identifier: GPL-2.0
/*
 * A stack's split: each I/O of a bio-based device (dm-0, md0) joined to
 * the requests of the devices under it that were made from it, by the
 * number both records carry (struct iolat_record.link).  Below is the
 * time from the first of those requests queued there to the last one
 * completed; above is the rest of the I/O's Q2C, spent in the stack's own
 * layers (device-mapper's and md's queueing, dm-crypt's encryption before
 * and decryption after).
 *
 * The module writes a request's record at its completion, before the
 * I/O it was made from can complete, so a drain that holds an I/O's
 * record holds its requests' records too, or an earlier drain did: each
 * I/O seen is settled at the end of the drain (iolat_an_mark()) and the
 * requests waiting for theirs are kept.  Those still waiting at the end
 * belong to I/Os that were not recorded (dropped, filtered, or still in
 * flight at the stop).
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"

struct iolat_join_entry {
	uint64_t link;		/* 0: free */
	uint64_t q_ns, c_ns;	/* the I/O's, once its record is seen */
	uint64_t low_first;	/* the first request's first stage below */
	uint64_t low_last;	/* the last completion below */
	uint32_t pieces;	/* requests below */
	uint16_t dev;
	uint8_t op;
	uint8_t seen;		/* the I/O's record arrived */
};

struct iolat_join {
	struct iolat_join_entry *e;
	size_t cap, n;		/* cap: a power of two */
};

static size_t join_slot(const struct iolat_join *j, uint64_t link)
{
	size_t i = (link * 0x9e3779b97f4a7c15ULL) >> 17;

	for (i &= j->cap - 1; j->e[i].link && j->e[i].link != link;
	     i = (i + 1) & (j->cap - 1))
		;
	return i;
}

static int join_grow(struct iolat_join *j)
{
	struct iolat_join old = *j;
	size_t i;

	j->cap = old.cap ? old.cap * 2 : 256;
	j->e = calloc(j->cap, sizeof(*j->e));
	if (!j->e) {
		*j = old;
		return -1;
	}
	for (i = 0; i < old.cap; i++)
		if (old.e[i].link)
			j->e[join_slot(j, old.e[i].link)] = old.e[i];
	free(old.e);
	return 0;
}

/* @link's entry, new if need be; NULL without memory. */
static struct iolat_join_entry *join_get(struct iolat_an *an, uint64_t link)
{
	struct iolat_join *j = an->join;
	struct iolat_join_entry *e;

	if (!j) {
		j = an->join = calloc(1, sizeof(*j));
		if (!j)
			return NULL;
	}
	if ((j->n + 1) * 2 > j->cap && join_grow(j))
		return NULL;
	e = &j->e[join_slot(j, link)];
	if (!e->link) {
		e->link = link;
		j->n++;
	}
	return e;
}

/**
 * iolat_stack_record() - take a record of a stack into the joins
 * @an: the analysis
 * @dev: index of the record's device
 * @r: the record: an I/O of a bio-based device, or a request made from
 *	one; others are left alone
 */
void iolat_stack_record(struct iolat_an *an, unsigned int dev,
			const struct iolat_record *r)
{
	struct iolat_join_entry *e;
	uint64_t first;

	if (!r->link || !(r->flags & (IOLAT_F_BIO | IOLAT_F_STACK)))
		return;
	e = join_get(an, r->link);
	if (!e) {
		an->nomem = true;
		return;
	}
	if (r->flags & IOLAT_F_BIO) {
		e->seen = 1;
		e->dev = dev;
		e->op = iolat_an_op(r);
		e->q_ns = r->q_ns;
		e->c_ns = r->c_ns;
		return;
	}
	first = r->q_ns ? r->q_ns : r->g_ns ? r->g_ns : r->i_ns ? r->i_ns :
		r->d_ns;
	if (first && (!e->low_first || first < e->low_first))
		e->low_first = first;
	if (r->c_ns > e->low_last)
		e->low_last = r->c_ns;
	e->pieces++;
}

/* An I/O and its requests below: into its device's split. */
static void settle(struct iolat_an *an, const struct iolat_join_entry *e)
{
	struct iolat_an_dev *d = &an->devs[e->dev];
	struct iolat_an_split *sp = &d->split[e->op];
	uint64_t q2c = e->c_ns - e->q_ns, below;

	if (!e->pieces) {
		d->split_alone++;
		return;
	}
	below = e->low_last - e->low_first;
	/* below lies within the I/O: anything else is counted, not split */
	if (!e->low_first || e->low_first < e->q_ns || e->low_last > e->c_ns) {
		d->split_outside++;
		return;
	}
	sp->ios++;
	sp->pieces += e->pieces;
	iolat_an_hist_add(an, &sp->below, below);
	iolat_an_hist_add(an, &sp->above, q2c - below);
	if (an->out && an->out->split)
		an->out->split(an, e->dev, e->c_ns, q2c - below, below);
}

/**
 * iolat_stack_settle() - settle the I/Os whose records arrived
 * @an: the analysis
 * @last: the run ended: the requests still waiting are counted as
 *	without their I/O
 */
void iolat_stack_settle(struct iolat_an *an, bool last)
{
	struct iolat_join *j = an->join;
	struct iolat_join keep = { 0 };
	size_t i;

	if (!j || !j->n)
		return;
	for (i = 0; i < j->cap; i++) {
		struct iolat_join_entry *e = &j->e[i];

		if (!e->link)
			continue;
		if (e->seen)
			settle(an, e);
		else if (last)
			an->split_orphans += e->pieces;
		else
			keep.n++;
	}
	/* the requests still waiting, in a table of their own */
	if (!keep.n) {
		memset(j->e, 0, j->cap * sizeof(*j->e));
		j->n = 0;
		return;
	}
	keep.cap = j->cap;
	keep.e = calloc(keep.cap, sizeof(*keep.e));
	if (!keep.e) {
		an->nomem = true;
		return;
	}
	keep.n = 0;
	for (i = 0; i < j->cap; i++)
		if (j->e[i].link && !j->e[i].seen) {
			keep.e[join_slot(&keep, j->e[i].link)] = j->e[i];
			keep.n++;
		}
	free(j->e);
	*j = keep;
}

/**
 * iolat_stack_above() - an aggregating session's split of a stack
 * @an: the analysis
 * @dev: index of a bio-based device
 * @op: the op
 * @delta: its I/Os since the last reading: Q2C, and the time above the
 *	requests below for those that had some (the module keeps no
 *	histogram of the time below, nor counts the requests: the lower
 *	devices' own histograms show them)
 */
void iolat_stack_above(struct iolat_an *an, unsigned int dev, unsigned int op,
		       const struct iolat_an_op *delta)
{
	struct iolat_an_dev *d = &an->devs[dev];
	struct iolat_an_split *sp = &d->split[op];
	const struct iolat_hist *q2c = delta->hist[IOLAT_STAGE_Q2C];
	uint64_t n = delta->above->count;

	if (!n && !(q2c && q2c->count))
		return;
	if (!sp->above) {
		sp->above = malloc(sizeof(*sp->above));
		if (!sp->above) {
			an->nomem = true;
			return;
		}
		iolat_hist_init(sp->above);
	}
	iolat_hist_merge(sp->above, delta->above);
	sp->ios += n;
	sp->aggregated = true;
	if (q2c && q2c->count > n)
		d->split_alone += q2c->count - n;
}

/* The joins and the splits' histograms: freed. */
void iolat_stack_free(struct iolat_an *an)
{
	unsigned int d, op;

	if (an->join)
		free(an->join->e);
	free(an->join);
	an->join = NULL;
	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; op < IOLAT_AN_OPS; op++) {
			free(an->devs[d].split[op].below);
			free(an->devs[d].split[op].above);
			an->devs[d].split[op].below = NULL;
			an->devs[d].split[op].above = NULL;
		}
}

/* Does device @d have I/Os split (or that could not be)? */
bool iolat_stack_has(const struct iolat_an_dev *d)
{
	unsigned int op;

	for (op = 0; op < IOLAT_AN_OPS; op++)
		if (d->split[op].ios)
			return true;
	return d->split_alone || d->split_outside;
}
