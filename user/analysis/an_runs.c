// SPDX-License-Identifier: GPL-2.0
/*
 * The stream's records in runs (iolat_an_records()): a run of a device's
 * records with the same op, process and interval, taken in place from
 * the rings mapped, its stages' values in columns and each histogram
 * added once for the run (iolat_hist_add_many()); what a run leaves out
 * goes to iolat_an_record(), record by record.  docs/design.md,
 * "Draining".
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"

/*
 * Records of a run analysed together by iolat_an_records(): at most
 * AN_RUN, and at least AN_RUN_MIN (below, a record of its own costs less
 * than its share of five histograms' loads and stores around the run)
 */
#define AN_RUN		64
#define AN_RUN_MIN	4

/*
 * Whether iolat_an_records() may take @r in a run: a block record with
 * Q, G, D and C in order and C after D (D and C known: a request's, not
 * a bio's; its latency and D2C not 0, which a cgroup's group leaves out)
 * and nothing iolat_an_record() does besides the stages' histograms,
 * the cgroup's group and the device's tables.  Its fields past the block
 * part are not read: in the mapped rings of a block session they are
 * the next slot's.
 */
static bool run_plain(const struct iolat_record *r)
{
	return !(r->flags & (IOLAT_F_NVME | IOLAT_F_NVME_ADMIN | IOLAT_F_BIO |
			     IOLAT_F_STACK)) &&
	       r->q_ns && r->g_ns >= r->q_ns && r->d_ns >= r->g_ns &&
	       r->c_ns > r->d_ns;
}

/* A run's columns: each stage's values, G2I's and I2D's where seen. */
struct an_run {
	__u64 col[IOLAT_STAGE_NR][AN_RUN];
	unsigned int nr[IOLAT_STAGE_NR];
	uint64_t bytes, bios, first, last;
};

/*
 * The records at @p (at most @n, @stride apart) that run_plain() allows
 * and that share the first's op, interval, process (group_is()) and, with
 * cgroups, cgroup, into @run's columns.
 * Return: how many (0: the first is not plain).
 */
static unsigned int run_scan(const struct iolat_an *an,
			     const unsigned char *p, unsigned int n,
			     size_t stride, struct an_run *run)
{
	const struct iolat_record *r0 = (const void *)p, *r;
	unsigned int i, op = iolat_an_op(r0), ng = 0, ni = 0;
	bool ival = r0->c_ns >= an->ival_from_ns;
	uint64_t bytes = 0, bios = 0, first = UINT64_MAX, last = 0;

	for (i = 0; i < n; i++, p += stride) {
		r = (const void *)p;
		if (!run_plain(r) ||
		    (i && (r->pid != r0->pid || iolat_an_op(r) != op ||
			   (r->c_ns >= an->ival_from_ns) != ival ||
			   !iolat_an_comm_eq(r->comm, r0->comm) ||
			   (an->o.cgroups && r->cgroup != r0->cgroup))))
			break;
		run->col[IOLAT_STAGE_Q2G][i] = r->g_ns - r->q_ns;
		run->col[IOLAT_STAGE_D2C][i] = r->c_ns - r->d_ns;
		run->col[IOLAT_STAGE_Q2C][i] = r->c_ns - r->q_ns;
		/*
		 * iolat_stages_ns()'s rules for I, written out: the call
		 * tests run_plain()'s order again (16 instructions a record)
		 */
		if (r->i_ns >= r->g_ns)
			run->col[IOLAT_STAGE_G2I][ng++] = r->i_ns - r->g_ns;
		if (r->i_ns && r->d_ns >= r->i_ns)
			run->col[IOLAT_STAGE_I2D][ni++] = r->d_ns - r->i_ns;
		bytes += r->bytes;
		bios += r->nr_bios ? r->nr_bios : 1;
		first = r->q_ns < first ? r->q_ns : first;
		last = r->c_ns > last ? r->c_ns : last;
	}
	run->bytes = bytes;
	run->bios = bios;
	run->first = first;
	run->last = last;
	run->nr[IOLAT_STAGE_Q2G] = i;
	run->nr[IOLAT_STAGE_G2I] = ng;
	run->nr[IOLAT_STAGE_I2D] = ni;
	run->nr[IOLAT_STAGE_D2C] = i;
	run->nr[IOLAT_STAGE_Q2C] = i;
	return i;
}

/*
 * Take up to AN_RUN records at @p (@n, @stride apart) that run_scan()
 * finds, as iolat_an_record() would take each: every histogram once for
 * the run, its values in columns.  Return: how many it took; 0 if the
 * first is not plain, minus the run's length if it is shorter than
 * AN_RUN_MIN (nothing taken).
 */
static int run_take(struct iolat_an *an, unsigned int dev,
		    const unsigned char *p, unsigned int n, size_t stride)
{
	const struct iolat_record *r0 = (const void *)p;
	struct iolat_an_dev *d = &an->devs[dev];
	struct iolat_an_group *g;
	struct iolat_an_op *op;
	struct an_run run;
	unsigned int i, s;

	if (n < AN_RUN_MIN)
		return -(int)n;
	n = run_scan(an, p, n < AN_RUN ? n : AN_RUN, stride, &run);
	/* a short run costs more in columns than record by record */
	if (n < AN_RUN_MIN)
		return -(int)n;
	for (i = 0; i < n; i++)
		iolat_an_dev_count(d, (const void *)(p + i * stride));
	an->records += n;
	if (!d->first_ns || run.first < d->first_ns)
		d->first_ns = run.first;
	if (run.last > d->last_ns)
		d->last_ns = run.last;
	if (r0->c_ns >= an->ival_from_ns) {
		op = &d->ival[iolat_an_op(r0)];
	} else {
		if (an->o.interval_ns)
			an->late += n;
		op = &d->run[iolat_an_op(r0)];
	}
	op->ios += n;
	op->bytes += run.bytes;
	op->bios += run.bios;
	for (s = 0; s < IOLAT_STAGE_NR; s++)
		if (run.nr[s])
			iolat_an_hist_add_many(an, &op->hist[s], run.col[s],
					       run.nr[s]);
	if (an->o.cgroups)
		iolat_an_cgroup_run(an, dev, r0->cgroup, n, run.bytes,
				    run.col[IOLAT_STAGE_Q2C],
				    run.col[IOLAT_STAGE_D2C]);
	g = iolat_an_group_find(an, dev, r0);
	if (!g) {
		an->nomem = true;
	} else {
		g->ios += n;
		g->bytes += run.bytes;
		iolat_an_hist_add_many(an, &g->lat, run.col[IOLAT_STAGE_Q2C], n);
	}
	return n;
}

/**
 * iolat_an_records() - take @n records of one device into the analysis
 * @an: the analysis
 * @dev: index of their device
 * @base: the first record
 * @n: how many
 * @stride: bytes from one record to the next
 * @size: each record's bytes (IOLAT_RECORD_BLOCK_SIZE at least): the
 *	fields past them are not read
 *
 * As @n calls of iolat_an_record(), in runs (run_take()) where nothing
 * but the stages' histograms, the cgroup's group and the device's tables
 * is needed: a block session's records taken in place from its rings.
 * The others are copied, the fields past @size zero.
 */
void iolat_an_records(struct iolat_an *an, unsigned int dev, const void *base,
		      unsigned int n, size_t stride, size_t size)
{
	const unsigned char *p = base;
	struct iolat_record rec;
	bool runs, zeroed = false;
	int k;

	iolat_an_begin(an);
	/* what a run leaves out: then each record on its own */
	runs = !an->out->record && !an->devs[dev].nr_parts &&
	       (!an->o.cgroups || size >= IOLAT_RECORD_CGROUP_SIZE);
	if (size > sizeof(rec))
		size = sizeof(rec);
	while (n) {
		k = runs ? run_take(an, dev, p, n, stride) : 0;
		if (k > 0) {
			p += k * stride;
			n -= k;
			continue;
		}
		/* the record, or the short run, each on its own */
		if (!zeroed) {
			/* the fields past @size stay zero */
			memset(&rec, 0, sizeof(rec));
			zeroed = true;
		}
		for (k = k ? -k : 1; k; k--, n--, p += stride) {
			iolat_record_copy(&rec, p, size);
			iolat_an_record(an, dev, &rec);
		}
	}
}

