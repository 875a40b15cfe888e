// SPDX-License-Identifier: GPL-2.0
/*
 * The protobuf exposition (expo.h): each family a MetricFamily message
 * of io.prometheus.client (metrics.proto, packed by protobuf-c), after
 * its length as a varint.  A histogram carries its classic buckets, the
 * same as the text's, and its native ones (prom_buckets.c): a Prometheus
 * that ingests native histograms keeps those, one series each.
 */
#include <stdlib.h>
#include <string.h>
#include "out/expo.h"
#include "util/util.h"
#include "metrics.pb-c.h"

typedef Io__Prometheus__Client__MetricFamily pb_family;
typedef Io__Prometheus__Client__Metric pb_metric;
typedef Io__Prometheus__Client__LabelPair pb_label;
typedef Io__Prometheus__Client__Histogram pb_hist;
typedef Io__Prometheus__Client__Bucket pb_bucket;
typedef Io__Prometheus__Client__BucketSpan pb_span;

/* The family being built, and everything allocated for it. */
struct iolat_expo_pb {
	pb_family fam;
	unsigned int cap_metrics;
	void **ptrs;
	unsigned int nr_ptrs, cap_ptrs;
};

/* @n zeroed bytes that the family's end frees; NULL (x->failed) if not. */
static void *pb_alloc(struct iolat_expo *x, size_t n)
{
	struct iolat_expo_pb *pb = x->pb;
	void *p;

	pb->ptrs = iolat_grow(pb->ptrs, &pb->cap_ptrs, pb->nr_ptrs + 1,
			      sizeof(*pb->ptrs));
	p = calloc(1, n ? n : 1);
	if (!p)
		x->failed = true;
	else
		pb->ptrs[pb->nr_ptrs++] = p;
	return p;
}

/* The family so far to x->f, its length first; then freed. */
static void pb_flush(struct iolat_expo *x)
{
	struct iolat_expo_pb *pb = x->pb;
	uint8_t head[10], *buf;
	size_t len, n = 0, i;

	if (!pb || !pb->fam.name)
		return;
	if (!x->failed) {
		len = io__prometheus__client__metric_family__get_packed_size(&pb->fam);
		for (i = len; i >= 0x80; i >>= 7)
			head[n++] = (uint8_t)(i | 0x80);
		head[n++] = (uint8_t)i;
		buf = malloc(len ? len : 1);
		if (!buf) {
			x->failed = true;
		} else {
			io__prometheus__client__metric_family__pack(&pb->fam, buf);
			fwrite(head, 1, n, x->f);
			fwrite(buf, 1, len, x->f);
			free(buf);
		}
	}
	free(pb->fam.metric);
	for (i = 0; i < pb->nr_ptrs; i++)
		free(pb->ptrs[i]);
	pb->nr_ptrs = 0;
	pb->cap_metrics = 0;
	io__prometheus__client__metric_family__init(&pb->fam);
}

void iolat_expo_pb_family(struct iolat_expo *x, const char *name,
			  const char *help)
{
	static const Io__Prometheus__Client__MetricType types[] = {
		[IOLAT_EXPO_COUNTER] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER,
		[IOLAT_EXPO_GAUGE] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE,
		[IOLAT_EXPO_HISTOGRAM] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM,
	};

	if (!x->pb) {
		x->pb = calloc(1, sizeof(*x->pb));
		if (!x->pb) {
			x->failed = true;
			return;
		}
		io__prometheus__client__metric_family__init(&x->pb->fam);
	}
	pb_flush(x);
	x->pb->fam.name = (char *)name;
	x->pb->fam.help = (char *)help;
	x->pb->fam.has_type = true;
	x->pb->fam.type = types[x->type];
}

/* A new metric of the family, with its labels; NULL out of memory. */
static pb_metric *pb_metric_new(struct iolat_expo *x,
				const struct iolat_expo_label *l,
				unsigned int nr)
{
	struct iolat_expo_pb *pb = x->pb;
	pb_family *fam;
	pb_metric *m;
	unsigned int i;

	if (!pb || !pb->fam.name)
		return NULL;
	fam = &pb->fam;
	fam->metric = iolat_grow(fam->metric, &pb->cap_metrics,
				 fam->n_metric + 1, sizeof(*fam->metric));
	m = pb_alloc(x, sizeof(*m));
	if (!m)
		return NULL;
	io__prometheus__client__metric__init(m);
	m->label = pb_alloc(x, nr * sizeof(*m->label));
	if (!m->label)
		return NULL;
	for (i = 0; i < nr; i++) {
		pb_label *lp = pb_alloc(x, sizeof(*lp));

		if (!lp)
			return NULL;
		io__prometheus__client__label_pair__init(lp);
		lp->name = (char *)l[i].name;
		/* a value may be the caller's buffer, used again */
		lp->value = pb_alloc(x, strlen(l[i].value) + 1);
		if (!lp->value)
			return NULL;
		strcpy(lp->value, l[i].value);
		m->label[m->n_label++] = lp;
	}
	fam->metric[fam->n_metric++] = m;
	return m;
}

void iolat_expo_pb_value(struct iolat_expo *x, const struct iolat_expo_label *l,
			 unsigned int nr, double v)
{
	pb_metric *m = pb_metric_new(x, l, nr);

	if (!m)
		return;
	if (x->type == IOLAT_EXPO_COUNTER) {
		m->counter = pb_alloc(x, sizeof(*m->counter));
		if (!m->counter)
			return;
		io__prometheus__client__counter__init(m->counter);
		m->counter->has_value = true;
		m->counter->value = v;
	} else {
		m->gauge = pb_alloc(x, sizeof(*m->gauge));
		if (!m->gauge)
			return;
		io__prometheus__client__gauge__init(m->gauge);
		m->gauge->has_value = true;
		m->gauge->value = v;
	}
}

/* The classic buckets, as the text's (expo.c). */
static int pb_classic(struct iolat_expo *x, pb_hist *ph,
		      const struct iolat_hist *h)
{
	uint64_t below[IOLAT_PROM_NR_BOUNDS];
	unsigned int i, n = iolat_prom_classic(h, x->step, below);

	ph->bucket = pb_alloc(x, n * sizeof(*ph->bucket));
	if (!ph->bucket)
		return -1;
	for (i = 0; i < n; i++) {
		pb_bucket *pbk = pb_alloc(x, sizeof(*pbk));

		if (!pbk)
			return -1;
		io__prometheus__client__bucket__init(pbk);
		pbk->has_cumulative_count = true;
		pbk->cumulative_count = below[i];
		pbk->has_upper_bound = true;
		pbk->upper_bound = (iolat_prom_bound(i * x->step) - 1) / 1e9;
		ph->bucket[ph->n_bucket++] = pbk;
	}
	return 0;
}

/* The native buckets (prom_buckets.c). */
static int pb_native(struct iolat_expo *x, pb_hist *ph,
		     const struct iolat_hist *h)
{
	struct iolat_native n;
	unsigned int i;
	int rc = -1;

	if (iolat_native_from(&n, h, &x->native)) {
		x->failed = true;
		return -1;
	}
	ph->has_schema = true;
	ph->schema = x->native.schema;
	ph->has_zero_threshold = true;
	ph->zero_threshold = (x->native.zero_ns - 1) / 1e9;
	ph->has_zero_count = true;
	ph->zero_count = n.zero_count;
	/* none yet: a span of no buckets says "native" all the same */
	ph->positive_span = pb_alloc(x, (n.nr_spans + 1) * sizeof(*ph->positive_span));
	ph->positive_delta = pb_alloc(x, n.nr_buckets * sizeof(*ph->positive_delta));
	if (!ph->positive_span || !ph->positive_delta)
		goto out;
	for (i = 0; i < n.nr_spans || (!i && !n.nr_spans); i++) {
		pb_span *sp = pb_alloc(x, sizeof(*sp));

		if (!sp)
			goto out;
		io__prometheus__client__bucket_span__init(sp);
		sp->has_offset = sp->has_length = true;
		sp->offset = n.nr_spans ? n.span_offset[i] : 0;
		sp->length = n.nr_spans ? n.span_length[i] : 0;
		ph->positive_span[ph->n_positive_span++] = sp;
	}
	memcpy(ph->positive_delta, n.delta, n.nr_buckets * sizeof(*n.delta));
	ph->n_positive_delta = n.nr_buckets;
	rc = 0;
out:
	iolat_native_free(&n);
	return rc;
}

void iolat_expo_pb_hist(struct iolat_expo *x, const struct iolat_expo_label *l,
			unsigned int nr, const struct iolat_hist *h)
{
	pb_metric *m = pb_metric_new(x, l, nr);
	pb_hist *ph;

	if (!m)
		return;
	ph = pb_alloc(x, sizeof(*ph));
	if (!ph)
		return;
	io__prometheus__client__histogram__init(ph);
	ph->has_sample_count = true;
	ph->sample_count = h->count;
	ph->has_sample_sum = true;
	ph->sample_sum = h->sum / 1e9;
	m->histogram = ph;
	if (!pb_classic(x, ph, h))
		pb_native(x, ph, h);
}

void iolat_expo_pb_end(struct iolat_expo *x)
{
	if (!x->pb)
		return;
	pb_flush(x);
	free(x->pb->ptrs);
	free(x->pb);
	x->pb = NULL;
}
