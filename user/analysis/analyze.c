// SPDX-License-Identifier: GPL-2.0
/*
 * Records -> histograms per device, op and stage, per interval and over
 * the run; size, queue-depth and offset distributions; processes and NVMe
 * queues.  See analyze.h for intervals and marks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"

/* A block stage, or the NVMe command's setup -> completion. */
int iolat_an_stage(const struct iolat_record *r, unsigned int stage,
		   uint64_t *ns)
{
	__u64 v;

	if (stage < IOLAT_STAGE_NR) {
		if (!iolat_record_stage(r, stage, &v))
			return 0;
		*ns = v;
		return 1;
	}
	if (stage != IOLAT_AN_NVME || !(r->flags & IOLAT_F_NVME) ||
	    !r->nvme_setup_ns || r->nvme_done_ns < r->nvme_setup_ns)
		return 0;
	*ns = r->nvme_done_ns - r->nvme_setup_ns;
	return 1;
}

/* <= 512 bytes, then one bucket per power of two; the last takes all. */
unsigned int iolat_size_bucket(uint32_t bytes)
{
	unsigned int b;

	if (bytes <= 512)
		return 0;
	/* the first b with 512 << b >= bytes */
	b = 64 - __builtin_clzll(bytes - 1ULL) - 9;
	return b < IOLAT_SIZE_BUCKETS ? b : IOLAT_SIZE_BUCKETS - 1;
}

int iolat_an_init(struct iolat_an *an, const struct iolat_an_opts *o,
		  const struct iolat_output *out)
{
	memset(an, 0, sizeof(*an));
	an->o = *o;
	if (!an->o.nr_pct)
		iolat_an_default_pct(&an->o);
	if (out->needs_intervals && !an->o.interval_ns)
		an->o.interval_ns = 1000000000ULL;
	an->out = out;
	return 0;
}

/* The partition of a whole disk's request, or the disk's own row. */
static struct iolat_an_part *part_of(struct iolat_an_dev *d,
				     const struct iolat_record *r)
{
	struct iolat_an_part *p = &d->parts[d->last_part];
	unsigned int i;

	if (!iolat_record_has_sector(r))
		return &d->parts[d->nr_parts];
	if (d->last_part < d->nr_parts && r->sector - p->start < p->sectors)
		return p;
	for (i = 0; i < d->nr_parts; i++) {
		p = &d->parts[i];
		if (r->sector - p->start < p->sectors) {
			d->last_part = i;
			return p;
		}
	}
	return &d->parts[d->nr_parts];
}

void iolat_an_op_reset(struct iolat_an_op *op)
{
	unsigned int s;

	op->ios = op->bytes = op->bios = 0;
	for (s = 0; s < IOLAT_AN_STAGES; s++)
		if (op->hist[s])
			iolat_hist_init(op->hist[s]);
}

/* The histogram a request's total is shown as: Q2C, else D2C, else NVMe. */
const struct iolat_hist *iolat_an_total(const struct iolat_an_op *op,
					unsigned int *stage)
{
	static const unsigned int order[] = {
		IOLAT_STAGE_Q2C, IOLAT_STAGE_D2C, IOLAT_AN_NVME,
	};
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (op->hist[order[i]] && op->hist[order[i]]->count) {
			*stage = order[i];
			return op->hist[order[i]];
		}
	}
	*stage = IOLAT_STAGE_Q2C;
	return NULL;
}

/* A record's stage times, worked out once for every histogram. */
struct stage_ns {
	unsigned int known;	/* bit per stage */
	__u64 ns[IOLAT_AN_STAGES];
};

static void stages_of(const struct iolat_record *r, struct stage_ns *t)
{
	uint64_t v;

	t->known = iolat_stages_ns(r->q_ns, r->g_ns, r->i_ns, r->d_ns,
				   r->c_ns, t->ns);
	if ((r->flags & IOLAT_F_NVME) && iolat_an_stage(r, IOLAT_AN_NVME, &v)) {
		t->ns[IOLAT_AN_NVME] = v;
		t->known |= 1U << IOLAT_AN_NVME;
	}
}

/* Inline: a call per record cost about 18 instructions. */
static inline __attribute__((always_inline))
void op_add(struct iolat_an *an, struct iolat_an_op *op,
	    const struct iolat_record *r, const struct stage_ns *t)
{
	unsigned int known = t->known;

	op->ios++;
	op->bytes += r->bytes;
	op->bios += r->nr_bios ? r->nr_bios : 1;
	/* the stages known: a test each, unrolled, cheaper than a loop */
#define OP_ADD_STAGE(s)							\
	do {								\
		if (known & (1U << (s)))				\
			iolat_an_hist_add(an, &op->hist[s], t->ns[s]);	\
	} while (0)
	OP_ADD_STAGE(IOLAT_STAGE_Q2G);
	OP_ADD_STAGE(IOLAT_STAGE_G2I);
	OP_ADD_STAGE(IOLAT_STAGE_I2D);
	OP_ADD_STAGE(IOLAT_STAGE_D2C);
	OP_ADD_STAGE(IOLAT_STAGE_Q2C);
	OP_ADD_STAGE(IOLAT_AN_NVME);
#undef OP_ADD_STAGE
}

static bool group_is(const struct iolat_an_group *g, unsigned int dev,
		     const struct iolat_record *r)
{
	return g->pid == r->pid && g->dev == dev &&
	       iolat_an_comm_eq(g->comm, r->comm);
}

static unsigned int group_hash(uint32_t pid, unsigned int dev)
{
	return (pid * 0x9e3779b1U) ^ (dev * 0x85ebca6bU);
}

struct proc_key {
	const char *dev;
	const struct iolat_an_group *g;
};

static int by_dev_ios(const void *a, const void *b)
{
	const struct proc_key *x = a, *y = b;
	int c = strcmp(x->dev, y->dev);

	if (c)
		return c;
	if (x->g->ios != y->g->ios)
		return x->g->ios < y->g->ios ? 1 : -1;
	if (x->g->pid != y->g->pid)
		return x->g->pid < y->g->pid ? -1 : 1;
	return strncmp(x->g->comm, y->g->comm, IOLAT_COMM_LEN);
}

/**
 * iolat_an_procs_sorted() - the processes' groups in the order shown
 * @an: the analysis
 *
 * By device name, then most requests first, then pid and comm: the
 * same whatever order the processes' first requests completed in (two
 * jobs started together), for text and JSON alike.
 *
 * Return: an array of an->nr_procs groups to free(), or NULL if out of
 * memory or there are none.
 */
const struct iolat_an_group **iolat_an_procs_sorted(const struct iolat_an *an)
{
	const struct iolat_an_group **out;
	struct proc_key *k;
	unsigned int i;

	if (!an->nr_procs)
		return NULL;
	k = calloc(an->nr_procs, sizeof(*k));
	out = calloc(an->nr_procs, sizeof(*out));
	if (!k || !out) {
		free(k);
		free(out);
		return NULL;
	}
	for (i = 0; i < an->nr_procs; i++) {
		k[i].dev = an->devs[an->procs[i].dev].name;
		k[i].g = &an->procs[i];
	}
	qsort(k, an->nr_procs, sizeof(*k), by_dev_ios);
	for (i = 0; i < an->nr_procs; i++)
		out[i] = k[i].g;
	free(k);
	return out;
}

/* Index groups [0, nr_procs) in a table of @size slots (a power of 2). */
static int group_index(struct iolat_an *an, unsigned int size)
{
	unsigned int *idx = calloc(size, sizeof(*idx)), i, h;

	if (!idx)
		return -1;
	for (i = 0; i < an->nr_procs; i++) {
		h = group_hash(an->procs[i].pid, an->procs[i].dev);
		while (idx[h & (size - 1)])
			h++;
		idx[h & (size - 1)] = i + 1;
	}
	free(an->proc_idx);
	an->proc_idx = idx;
	an->proc_mask = size - 1;
	return 0;
}

/*
 * The group of (pid, comm, device), found or added: the last one, else by
 * a hash of (pid, device) in an open-addressed index kept at most half
 * full.
 */
struct iolat_an_group *iolat_an_group_find(struct iolat_an *an,
					   unsigned int dev,
					   const struct iolat_record *r)
{
	struct iolat_an_group *g;
	unsigned int h, i;

	if (an->nr_procs && group_is(&an->procs[an->last_proc], dev, r))
		return &an->procs[an->last_proc];
	h = group_hash(r->pid, dev);
	for (; an->proc_idx && (i = an->proc_idx[h & an->proc_mask]); h++) {
		if (group_is(&an->procs[i - 1], dev, r)) {
			an->last_proc = i - 1;
			return &an->procs[i - 1];
		}
	}
	if (an->nr_procs == an->cap_procs) {
		unsigned int cap = an->cap_procs ? 2 * an->cap_procs : 16;

		g = realloc(an->procs, cap * sizeof(*g));
		if (!g)
			return NULL;
		an->procs = g;
		an->cap_procs = cap;
		if (group_index(an, 2 * cap))
			return NULL;
		h = group_hash(r->pid, dev);
		while (an->proc_idx[h & an->proc_mask])
			h++;
	}
	g = &an->procs[an->nr_procs];
	memset(g, 0, sizeof(*g));
	g->pid = r->pid;
	g->tgid = r->tgid;
	memcpy(g->comm, r->comm, IOLAT_COMM_LEN);
	g->comm[IOLAT_COMM_LEN - 1] = '\0';
	g->dev = dev;
	an->proc_idx[h & an->proc_mask] = an->nr_procs + 1;
	an->last_proc = an->nr_procs;
	return &an->procs[an->nr_procs++];
}

static struct iolat_an_group *qid_find(struct iolat_an *an, unsigned int dev,
				       unsigned int qid)
{
	unsigned int i;

	for (i = 0; i < an->nr_qids; i++)
		if (an->qids[i].dev == dev && an->qids[i].qid == qid)
			return &an->qids[i];
	if (an->nr_qids == IOLAT_MAX_QIDS)
		return NULL;
	if (!an->qids) {
		an->qids = calloc(IOLAT_MAX_QIDS, sizeof(*an->qids));
		if (!an->qids)
			return NULL;
	}
	an->qids[an->nr_qids].dev = dev;
	an->qids[an->nr_qids].qid = qid;
	return &an->qids[an->nr_qids++];
}

/*
 * Where the interval being built starts, kept so that a record's test
 * is one compare: none (never reached) without intervals.
 */
static void ival_from(struct iolat_an *an)
{
	an->ival_from_ns = an->o.interval_ns ?
		an->meta.t0_ns + an->ival_index * an->o.interval_ns : UINT64_MAX;
}

void __iolat_an_begin(struct iolat_an *an)
{
	an->begun = true;
	ival_from(an);
	if (an->out->begin && an->out->begin(an))
		an->nomem = true;
}

static void hist_merge_into(struct iolat_an *an, struct iolat_hist **h,
			    const struct iolat_hist *src)
{
	if (!src || !src->count)
		return;
	if (!*h) {
		*h = malloc(sizeof(**h));
		if (!*h) {
			an->nomem = true;
			return;
		}
		iolat_hist_init(*h);
	}
	iolat_hist_merge(*h, src);
}

static void op_merge(struct iolat_an *an, struct iolat_an_op *op,
		     const struct iolat_an_op *delta)
{
	unsigned int s;

	op->ios += delta->ios;
	op->bytes += delta->bytes;
	op->bios += delta->bios;
	for (s = 0; s < IOLAT_AN_STAGES; s++)
		hist_merge_into(an, &op->hist[s], delta->hist[s]);
}

/*
 * With intervals, a record goes into the interval being built only, and
 * the interval into the run when it is handed over: half the histogram
 * updates per record.
 */
static void ival_into_run(struct iolat_an *an)
{
	unsigned int d, op;

	for (d = 0; d < an->nr_devs; d++) {
		for (op = 0; op < IOLAT_AN_OPS; op++) {
			op_merge(an, &an->devs[d].run[op], &an->devs[d].ival[op]);
			iolat_an_op_reset(&an->devs[d].ival[op]);
		}
		memset(an->devs[d].ival_qd, 0, sizeof(an->devs[d].ival_qd));
	}
}

/* Hand over every interval that ends at or before @upto_ns. */
static void flush_intervals(struct iolat_an *an, uint64_t upto_ns, bool last)
{
	uint64_t from, to;

	if (!an->o.interval_ns)
		return;
	iolat_an_begin(an);
	for (;;) {
		from = an->ival_index * an->o.interval_ns;
		to = from + an->o.interval_ns;
		if (an->meta.t0_ns + to > upto_ns) {
			if (!last || an->meta.t0_ns + from >= upto_ns)
				return;
			to = upto_ns - an->meta.t0_ns;	/* the last, partial */
		}
		if (an->out->interval)
			an->out->interval(an, from, to);
		ival_into_run(an);
		an->ival_index++;
		ival_from(an);
	}
}

/*
 * The seconds a device's rates are over: its requests' span, from the
 * first one's first stage to the last one's completion, not the
 * session's (which holds a command's start-up and end: record's IOPS
 * was half fio's for the same I/Os); the session's where records do not
 * say (aggregated in the module).
 */
double iolat_an_dev_secs(const struct iolat_an_dev *d, double session_secs)
{
	if (d->first_ns && d->last_ns > d->first_ns)
		return (d->last_ns - d->first_ns) / 1e9;
	return session_secs;
}

/**
 * iolat_an_record() - take one record into the analysis
 * @an: the analysis
 * @dev: index of the record's device
 * @r: the record
 */
void iolat_an_record(struct iolat_an *an, unsigned int dev,
		     const struct iolat_record *r)
{
	unsigned int op = iolat_an_op(r);
	struct iolat_an_dev *d = &an->devs[dev];
	struct iolat_an_group *g;
	uint64_t end = r->c_ns ? r->c_ns : r->nvme_done_ns, first, lat;
	struct stage_ns t = { 0 };

	iolat_an_begin(an);
	stages_of(r, &t);
	an->records++;
	if (r->flags & IOLAT_F_NVME)
		an->nvme = true;
	if (an->out->record)
		an->out->record(an, dev, r);
	/* a stack's I/O, or a request made from one (stack.c) */
	if (r->link && (r->flags & (IOLAT_F_BIO | IOLAT_F_STACK)))
		iolat_stack_record(an, dev, r);
	if (r->flags & IOLAT_F_NVME) {
		g = qid_find(an, dev, r->qid);
		if (g) {
			g->ios++;
			g->bytes += iolat_nvme_bytes(r);
			iolat_an_hist_add(an, &g->lat,
					  r->nvme_done_ns - r->nvme_setup_ns);
		}
	}
	/* a controller's admin command: its queue's (qid 0), no op's */
	if (r->flags & IOLAT_F_NVME_ADMIN)
		return;
	first = r->q_ns ? r->q_ns : r->g_ns ? r->g_ns : r->i_ns ? r->i_ns :
		r->d_ns;
	if (an->o.cgroups)
		iolat_an_cgroup_record(an, dev, r);
	if (first && (!d->first_ns || first < d->first_ns))
		d->first_ns = first;
	if (end > d->last_ns)
		d->last_ns = end;
	if (end >= an->ival_from_ns) {
		op_add(an, &d->ival[op], r, &t);	/* the run's at handover */
	} else {
		/* its interval was handed over: in the run only */
		if (an->o.interval_ns)
			an->late++;
		op_add(an, &d->run[op], r, &t);
	}
	iolat_an_dev_count(d, r);
	/* its latency: Q2C where Q was seen, as iolat_latency_ns() says */
	lat = t.known & (1U << IOLAT_STAGE_Q2C) ? t.ns[IOLAT_STAGE_Q2C] :
						  iolat_record_latency(r);
	if (d->nr_parts) {
		struct iolat_an_part *p = part_of(d, r);

		p->ios++;
		p->bytes += r->bytes;
		iolat_an_hist_add(an, &p->lat, lat);
	}
	g = iolat_an_group_find(an, dev, r);
	if (!g) {
		an->nomem = true;
	} else {
		g->ios++;
		g->bytes += r->bytes;
		iolat_an_hist_add(an, &g->lat, lat);
	}
}

/**
 * iolat_an_add_op() - take requests aggregated in the module
 * @an: the analysis
 * @dev: index of their device
 * @op: their op
 * @delta: their counts and stage histograms since the last call
 * @qd: [IOLAT_QD_BUCKETS], queue depths at issue since the last call,
 *	or NULL
 *
 * They go into the run and, with intervals, into the one being built:
 * the interval in which they were read, not the one in which each
 * completed (docs/output.md).
 */
void iolat_an_add_op(struct iolat_an *an, unsigned int dev, unsigned int op,
		     const struct iolat_an_op *delta, const uint64_t *qd)
{
	struct iolat_an_dev *d = &an->devs[dev];
	unsigned int i;

	iolat_an_begin(an);
	an->aggregated = true;
	an->records += delta->ios;
	op_merge(an, an->o.interval_ns ? &d->ival[op] : &d->run[op], delta);
	for (i = 0; qd && i < IOLAT_QD_BUCKETS; i++) {
		d->qd[i] += qd[i];
		d->ival_qd[i] += qd[i];
	}
	if (delta->above)
		iolat_stack_above(an, dev, op, delta);
}

/**
 * iolat_an_mark() - a drain that began at @now_ns is done
 * @an: the analysis
 * @now_ns: CLOCK_MONOTONIC when the drain began
 *
 * Every interval that ended by then is complete: hand it over.
 */
void iolat_an_mark(struct iolat_an *an, uint64_t now_ns)
{
	flush_intervals(an, now_ns, false);
	iolat_stack_settle(an, false);
}

/**
 * iolat_an_finish() - the run ended: the last intervals and the summary
 * @an: the analysis
 * @end_ns: CLOCK_MONOTONIC at the session's stop
 * @run: the session's accounting
 * @c: each device's counters at the stop, or NULL
 */
void iolat_an_finish(struct iolat_an *an, uint64_t end_ns,
		     const struct iolat_run *run,
		     const struct iolat_dev_counters *c)
{
	an->end_ns = end_ns;
	iolat_an_begin(an);
	flush_intervals(an, end_ns, true);
	/* records that ended after the last interval: in the run only */
	ival_into_run(an);
	iolat_stack_settle(an, true);
	if (an->out->summary)
		an->out->summary(an, run, c);
}

static void op_free(struct iolat_an_op *op)
{
	unsigned int s;

	for (s = 0; s < IOLAT_AN_STAGES; s++) {
		free(op->hist[s]);
		op->hist[s] = NULL;
	}
}

void iolat_an_free(struct iolat_an *an)
{
	unsigned int d, op, i;

	free(an->watch);
	an->watch = NULL;
	for (d = 0; d < an->nr_devs; d++) {
		for (op = 0; op < IOLAT_AN_OPS; op++) {
			op_free(&an->devs[d].run[op]);
			op_free(&an->devs[d].ival[op]);
		}
		for (i = 0; i <= an->devs[d].nr_parts; i++) {
			free(an->devs[d].parts[i].lat);
			an->devs[d].parts[i].lat = NULL;
		}
	}
	free(an->devs);
	an->devs = NULL;
	an->nr_devs = an->cap_devs = 0;
	for (i = 0; i < an->nr_procs; i++)
		free(an->procs[i].lat);
	free(an->procs);
	free(an->proc_idx);
	an->proc_idx = NULL;
	for (i = 0; i < an->nr_qids; i++)
		free(an->qids[i].lat);
	free(an->qids);
	an->procs = NULL;
	an->qids = NULL;
	iolat_an_cgroups_free(an);
	iolat_stack_free(an);
}
