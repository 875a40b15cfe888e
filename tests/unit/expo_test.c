// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the Prometheus exposition's formats (user/out/expo*.c,
 * prom_buckets.c): the native buckets against their definition, the
 * negotiation of a scrape's Accept header, and the protobuf exposition
 * read back with protobuf-c against the text one of the same numbers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/expo.h"
#include "metrics.pb-c.h"
#include "kselftest_harness.h"
#include "unit.h"

/*
 * The Accept headers of Prometheus 2.42's scrapes (scrape/scrape.go):
 * with --enable-feature=native-histograms, and without.
 */
#define ACCEPT_NATIVE "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
#define ACCEPT_CLASSIC "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

/* Bucket i holds (2^((i-1)/2^s), 2^(i/2^s)]: every value, every schema. */
TEST(native_index_by_definition)
{
	int schema, i, k;

	for (schema = 0; schema <= 8; schema++) {
		for (k = 0; k < 20000; k++) {
			/* 1 ns to 100 s, log-uniform */
			double v = 1e-9 * pow(1e11, uniform());

			i = iolat_native_index(v, schema);
			ASSERT_LT(pow(2, (i - 1) / (double)(1 << schema)), v);
			ASSERT_GE(pow(2, i / (double)(1 << schema)) * (1 + 1e-15), v);
		}
		/* a power of two is its bucket's upper edge */
		EXPECT_EQ(0, iolat_native_index(1.0, schema));
		EXPECT_EQ(-(1 << schema), iolat_native_index(0.5, schema));
		EXPECT_EQ(-30 * (1 << schema), iolat_native_index(exp2(-30), schema));
		EXPECT_EQ(1, iolat_native_index(1.0000001, schema));
	}
}

/* The native buckets' counts, from spans and deltas: bucket index -> count. */
static void decode(const int32_t *off, const uint32_t *len, unsigned int spans,
		   const int64_t *delta, int64_t *count, int first, int nr)
{
	unsigned int s, j, b = 0;
	int64_t c = 0;
	int idx = 0;

	memset(count, 0, nr * sizeof(*count));
	for (s = 0; s < spans; s++) {
		idx += off[s];
		for (j = 0; j < len[s]; j++, b++, idx++) {
			c += delta[b];
			if (idx - first >= 0 && idx - first < nr)
				count[idx - first] += c;
		}
	}
}

#define FIRST	(-40 * 128)	/* below 1 ns at schema 7 */
#define NR	(48 * 128)

/*
 * A histogram of every kind of bin (below the zero bucket's edge, the
 * exact bins below 128 ns, log-linear ones, the overflow) to native
 * buckets: each bin's count is in the bucket of its midpoint, those
 * below zero_ns in the zero bucket, and nothing else anywhere; for the
 * module's schema (3) and the records' (7).
 */
TEST(native_buckets_hold_each_bin)
{
	static struct iolat_hist h;
	static int64_t want[NR], got[NR];
	const struct iolat_native_opts *opts[] = {
		&iolat_native_module, &iolat_native_records,
	};
	struct iolat_native n;
	unsigned int bin, o, k;
	uint64_t zero;

	for (o = 0; o < 2; o++) {
		const struct iolat_native_opts *no = opts[o];

		iolat_hist_init(&h);
		memset(want, 0, sizeof(want));
		zero = 0;
		for (k = 0; k < 3000; k++) {
			uint64_t v = (uint64_t)pow(2, 36 * uniform());

			iolat_hist_add(&h, v);
		}
		iolat_hist_add(&h, 0);
		iolat_hist_add(&h, 1ULL << 40);
		for (bin = 0; bin < IOLAT_HIST_NR_BINS; bin++) {
			uint64_t lo = iolat_hist_bin_lo(bin);
			uint64_t hi = iolat_hist_bin_hi(bin);
			double mid = (lo + (hi - lo) / 2) / 1e9;
			int i;

			if (!h.bins[bin])
				continue;
			if (lo < no->zero_ns) {
				zero += h.bins[bin];
				continue;
			}
			i = iolat_native_index(mid, no->schema);
			ASSERT_LT(iolat_native_upper(i - 1, no->schema), mid);
			ASSERT_GE(iolat_native_upper(i, no->schema), mid);
			want[i - FIRST] += h.bins[bin];
		}
		want[iolat_native_index(68.719476736, no->schema) - FIRST] +=
			h.overflow;
		ASSERT_EQ(1, h.overflow);
		ASSERT_EQ(0, iolat_native_from(&n, &h, no));
		EXPECT_EQ(zero, n.zero_count);
		EXPECT_LT(0, zero);
		decode(n.span_offset, n.span_length, n.nr_spans, n.delta, got,
		       FIRST, NR);
		EXPECT_EQ(0, memcmp(want, got, sizeof(want)));
		/* the spans' lengths are the buckets */
		for (k = 0, bin = 0; k < n.nr_spans; k++)
			bin += n.span_length[k];
		EXPECT_EQ(n.nr_buckets, bin);
		iolat_native_free(&n);
	}
}

/* An empty histogram has no buckets; its zero bucket has a width. */
TEST(native_empty)
{
	static struct iolat_hist h;
	struct iolat_native n;

	iolat_hist_init(&h);
	ASSERT_EQ(0, iolat_native_from(&n, &h, &iolat_native_module));
	EXPECT_EQ(0, n.nr_spans);
	EXPECT_EQ(0, n.nr_buckets);
	EXPECT_EQ(0, n.zero_count);
	iolat_native_free(&n);
	EXPECT_LT(1, iolat_native_module.zero_ns);
	EXPECT_LT(1, iolat_native_records.zero_ns);
}

TEST(negotiate)
{
	EXPECT_EQ(IOLAT_EXPO_PROTOBUF, iolat_expo_negotiate(ACCEPT_NATIVE));
	EXPECT_EQ(IOLAT_EXPO_TEXT, iolat_expo_negotiate(ACCEPT_CLASSIC));
	EXPECT_EQ(IOLAT_EXPO_TEXT, iolat_expo_negotiate(NULL));
	EXPECT_EQ(IOLAT_EXPO_TEXT, iolat_expo_negotiate(""));
	EXPECT_EQ(IOLAT_EXPO_TEXT, iolat_expo_negotiate("*/*"));
	/* nothing iolat has: the text */
	EXPECT_EQ(IOLAT_EXPO_TEXT, iolat_expo_negotiate("application/json"));
	/* protobuf, but not of MetricFamily, or not delimited */
	EXPECT_EQ(IOLAT_EXPO_TEXT, iolat_expo_negotiate("application/vnd.google.protobuf;proto=other.Message;encoding=delimited,*/*;q=0.1"));
	EXPECT_EQ(IOLAT_EXPO_TEXT, iolat_expo_negotiate("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text,*/*;q=0.1"));
	/* the quality decides, in any order, with blanks and any case */
	EXPECT_EQ(IOLAT_EXPO_PROTOBUF, iolat_expo_negotiate("text/plain;version=0.0.4;q=0.5, Application/Vnd.Google.Protobuf ; proto=io.prometheus.client.MetricFamily ; encoding=delimited ; q=0.7"));
	EXPECT_EQ(IOLAT_EXPO_TEXT, iolat_expo_negotiate("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.3,text/plain;q=0.6"));
	EXPECT_EQ(IOLAT_EXPO_TEXT, iolat_expo_negotiate("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0,text/plain;q=0.1"));
	/* a text of another version is not ours */
	EXPECT_EQ(IOLAT_EXPO_PROTOBUF, iolat_expo_negotiate("text/plain;version=1.0.0,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.2"));
}

/* The families of one exposition, in @fmt, into *@buf. */
static size_t expose(struct __test_metadata *_metadata,
		     enum iolat_expo_format fmt, char **buf,
		     const struct iolat_hist *h)
{
	const struct iolat_expo_label dev[] = {
		{ "device", "nvme0n1" }, { "op", "read" },
	};
	struct iolat_expo x;
	char reason[16];
	size_t len;
	FILE *f = open_memstream(buf, &len);

	iolat_expo_init(&x, fmt, f, 2, &iolat_native_module);
	iolat_expo_family(&x, "t_requests_total", IOLAT_EXPO_COUNTER, "Requests.");
	iolat_expo_value(&x, dev, 2, 12345, false);
	iolat_expo_family(&x, "t_busy_seconds_total", IOLAT_EXPO_COUNTER, "Busy.");
	iolat_expo_value(&x, dev, 1, 1234567890123ULL, true);
	iolat_expo_family(&x, "t_dropped_total", IOLAT_EXPO_COUNTER, "Drops.");
	/* a label of a buffer used again: each keeps its own */
	strcpy(reason, "ring_full");
	iolat_expo_value(&x, &(struct iolat_expo_label){ "reason", reason }, 1, 7, false);
	strcpy(reason, "no_slot");
	iolat_expo_value(&x, &(struct iolat_expo_label){ "reason", reason }, 1, 9, false);
	iolat_expo_family(&x, "t_memory_bytes", IOLAT_EXPO_GAUGE, "Memory.");
	iolat_expo_value(&x, NULL, 0, 4096, false);
	iolat_expo_family(&x, "t_duration_seconds", IOLAT_EXPO_HISTOGRAM, "Latency.");
	iolat_expo_hist(&x, dev, 2, h);
	EXPECT_EQ(0, iolat_expo_end(&x));
	fclose(f);
	return len;
}

/* The next delimited message of [*p, end), unpacked; NULL at the end. */
static Io__Prometheus__Client__MetricFamily *next_family(const uint8_t **p,
							 const uint8_t *end)
{
	Io__Prometheus__Client__MetricFamily *mf;
	uint64_t len = 0;
	int shift = 0;

	if (*p >= end)
		return NULL;
	while (*p < end && (**p & 0x80)) {
		len |= (uint64_t)(**p & 0x7f) << shift;
		shift += 7;
		(*p)++;
	}
	if (*p >= end)
		return NULL;
	len |= (uint64_t)**p << shift;
	(*p)++;
	if (len > (uint64_t)(end - *p))
		return NULL;
	mf = io__prometheus__client__metric_family__unpack(NULL, len, *p);
	*p += len;
	return mf;
}

/* The text exposition's value of a line starting @series. */
static double text_value(const char *text, const char *series)
{
	char key[256];
	const char *at;

	snprintf(key, sizeof(key), "\n%s ", series);
	at = strstr(text, key);
	return at ? strtod(at + strlen(key), NULL) : NAN;
}

/*
 * The protobuf exposition, unpacked by protobuf-c, says what the text one
 * says: the families, their types and help, the labels, the values, the
 * classic buckets with their bounds; and its histogram is also native:
 * schema 3, a zero bucket of the module's lowest bin, buckets that are
 * the histogram's (prom_buckets.c, checked above).
 */
TEST(protobuf_says_what_text_says)
{
	static struct iolat_hist h;
	static int64_t got[NR];
	Io__Prometheus__Client__MetricFamily *mf[8];
	const Io__Prometheus__Client__Histogram *ph;
	const uint8_t *p, *end;
	char *text, *pb, series[256];
	struct iolat_native n;
	size_t pb_len;
	unsigned int k, nr = 0, b;
	uint64_t total;

	iolat_hist_init(&h);
	for (k = 0; k < 5000; k++)
		iolat_hist_add(&h, (uint64_t)(50e3 * exp(uniform() * 4)));
	iolat_hist_add(&h, 100);	/* below 1.024 us: the zero bucket */
	expose(_metadata, IOLAT_EXPO_TEXT, &text, &h);
	pb_len = expose(_metadata, IOLAT_EXPO_PROTOBUF, &pb, &h);
	p = (const uint8_t *)pb;
	end = p + pb_len;
	while (nr < 8 && (mf[nr] = next_family(&p, end)))
		nr++;
	ASSERT_EQ(5, nr);
	EXPECT_EQ(p, end);

	EXPECT_STREQ("t_requests_total", mf[0]->name);
	EXPECT_STREQ("Requests.", mf[0]->help);
	EXPECT_EQ(IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER, mf[0]->type);
	ASSERT_EQ(1, mf[0]->n_metric);
	ASSERT_EQ(2, mf[0]->metric[0]->n_label);
	EXPECT_STREQ("device", mf[0]->metric[0]->label[0]->name);
	EXPECT_STREQ("nvme0n1", mf[0]->metric[0]->label[0]->value);
	EXPECT_STREQ("op", mf[0]->metric[0]->label[1]->name);
	EXPECT_STREQ("read", mf[0]->metric[0]->label[1]->value);
	ASSERT_NE(NULL, mf[0]->metric[0]->counter);
	EXPECT_EQ(text_value(text, "t_requests_total{device=\"nvme0n1\",op=\"read\"}"),
		  mf[0]->metric[0]->counter->value);
	EXPECT_EQ(text_value(text, "t_busy_seconds_total{device=\"nvme0n1\"}"),
		  mf[1]->metric[0]->counter->value);
	EXPECT_EQ(1234.567890123, mf[1]->metric[0]->counter->value);
	ASSERT_EQ(2, mf[2]->n_metric);
	EXPECT_STREQ("ring_full", mf[2]->metric[0]->label[0]->value);
	EXPECT_STREQ("no_slot", mf[2]->metric[1]->label[0]->value);
	EXPECT_EQ(9, mf[2]->metric[1]->counter->value);
	EXPECT_EQ(IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE, mf[3]->type);
	EXPECT_EQ(0, mf[3]->metric[0]->n_label);
	ASSERT_NE(NULL, mf[3]->metric[0]->gauge);
	EXPECT_EQ(text_value(text, "t_memory_bytes"), mf[3]->metric[0]->gauge->value);

	EXPECT_EQ(IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM, mf[4]->type);
	ph = mf[4]->metric[0]->histogram;
	ASSERT_NE(NULL, ph);
	EXPECT_EQ(h.count, ph->sample_count);
	EXPECT_EQ(text_value(text, "t_duration_seconds_count{device=\"nvme0n1\",op=\"read\"}"),
		  ph->sample_count);
	EXPECT_LT(fabs(text_value(text, "t_duration_seconds_sum{device=\"nvme0n1\",op=\"read\"}") -
		       ph->sample_sum), 1e-9);
	/* the classic buckets: the text's, bound for bound (2 per power of two) */
	EXPECT_EQ((IOLAT_PROM_NR_BOUNDS + 1) / 2, ph->n_bucket);
	for (b = 0; b < ph->n_bucket; b++) {
		snprintf(series, sizeof(series),
			 "t_duration_seconds_bucket{device=\"nvme0n1\",op=\"read\",le=\"%.9f\"}",
			 ph->bucket[b]->upper_bound);
		EXPECT_EQ(text_value(text, series), ph->bucket[b]->cumulative_count)
			TH_LOG("%s", series);
	}
	/* native */
	ASSERT_TRUE(ph->has_schema);
	EXPECT_EQ(3, ph->schema);
	EXPECT_EQ(1023e-9, ph->zero_threshold);
	EXPECT_EQ(1, ph->zero_count);
	ASSERT_EQ(0, iolat_native_from(&n, &h, &iolat_native_module));
	ASSERT_EQ(n.nr_spans, ph->n_positive_span);
	ASSERT_EQ(n.nr_buckets, ph->n_positive_delta);
	total = ph->zero_count;
	for (k = 0; k < ph->n_positive_span; k++) {
		n.span_offset[k] = ph->positive_span[k]->offset;
		n.span_length[k] = ph->positive_span[k]->length;
	}
	decode(n.span_offset, n.span_length, n.nr_spans, ph->positive_delta,
	       got, FIRST, NR);
	for (k = 0; k < NR; k++) {
		EXPECT_LE(0, got[k]);
		total += got[k];
	}
	EXPECT_EQ(h.count, total);
	iolat_native_free(&n);
	for (k = 0; k < nr; k++)
		io__prometheus__client__metric_family__free_unpacked(mf[k], NULL);
	free(text);
	free(pb);
}

/* A histogram without observations is still native (a span of none). */
TEST(protobuf_empty_histogram_is_native)
{
	static struct iolat_hist h;
	Io__Prometheus__Client__MetricFamily *mf[8];
	const Io__Prometheus__Client__Histogram *ph;
	const uint8_t *p;
	size_t len;
	char *pb;
	unsigned int nr = 0;

	iolat_hist_init(&h);
	len = expose(_metadata, IOLAT_EXPO_PROTOBUF, &pb, &h);
	p = (const uint8_t *)pb;
	while (nr < 8 && (mf[nr] = next_family(&p, (const uint8_t *)pb + len)))
		nr++;
	ASSERT_EQ(5, nr);
	ph = mf[4]->metric[0]->histogram;
	EXPECT_EQ(0, ph->sample_count);
	EXPECT_LT(0, ph->zero_threshold);
	ASSERT_EQ(1, ph->n_positive_span);
	EXPECT_EQ(0, ph->positive_span[0]->length);
	EXPECT_EQ(0, ph->n_positive_delta);
	while (nr)
		io__prometheus__client__metric_family__free_unpacked(mf[--nr], NULL);
	free(pb);
}

TEST_HARNESS_MAIN
