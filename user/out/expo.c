// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition's families and samples (expo.h), in the classic text
 * format here, or handed to the protobuf one (expo_pb.c); and which of
 * the two a scrape's Accept header asks for.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "out/expo.h"

#define U(x) ((unsigned long long)(x))

void iolat_expo_init(struct iolat_expo *x, enum iolat_expo_format fmt,
		     FILE *f, unsigned int step,
		     const struct iolat_native_opts *native)
{
	*x = (struct iolat_expo){ .fmt = fmt, .f = f, .step = step ? step : 1,
				  .native = *native };
}

void iolat_expo_family(struct iolat_expo *x, const char *name,
		       enum iolat_expo_type type, const char *help)
{
	static const char *const types[] = {
		[IOLAT_EXPO_COUNTER] = "counter",
		[IOLAT_EXPO_GAUGE] = "gauge",
		[IOLAT_EXPO_HISTOGRAM] = "histogram",
	};

	x->family = name;
	x->type = type;
	if (x->fmt == IOLAT_EXPO_PROTOBUF)
		iolat_expo_pb_family(x, name, help);
	else
		fprintf(x->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
			types[type]);
}

/* name{a="x",b="y"[,extra]} */
static void text_series(struct iolat_expo *x, const char *suffix,
			const struct iolat_expo_label *l, unsigned int nr,
			const char *extra)
{
	unsigned int i;

	fprintf(x->f, "%s%s", x->family, suffix);
	if (!nr && !extra)
		return;
	for (i = 0; i < nr; i++)
		fprintf(x->f, "%s%s=\"%s\"", i ? "," : "{", l[i].name,
			l[i].value);
	if (extra)
		fprintf(x->f, "%s%s", nr ? "," : "{", extra);
	fputc('}', x->f);
}

static void text_ns(FILE *f, uint64_t ns)
{
	fprintf(f, " %llu.%09llu\n", U(ns / 1000000000ULL),
		U(ns % 1000000000ULL));
}

void iolat_expo_value(struct iolat_expo *x, const struct iolat_expo_label *l,
		      unsigned int nr, uint64_t v, bool ns)
{
	if (x->fmt == IOLAT_EXPO_PROTOBUF) {
		iolat_expo_pb_value(x, l, nr, ns ? v / 1e9 : (double)v);
		return;
	}
	text_series(x, "", l, nr, NULL);
	if (ns)
		text_ns(x->f, v);
	else
		fprintf(x->f, " %llu\n", U(v));
}

/*
 * Classic buckets: "le" is a bound less 1 ns, so that "<= le" counts
 * exactly the bins below the bound (latencies are whole nanoseconds).
 */
void iolat_expo_hist(struct iolat_expo *x, const struct iolat_expo_label *l,
		     unsigned int nr, const struct iolat_hist *h)
{
	uint64_t below[IOLAT_PROM_NR_BOUNDS];
	unsigned int i, n;
	char le[48];

	if (x->fmt == IOLAT_EXPO_PROTOBUF) {
		iolat_expo_pb_hist(x, l, nr, h);
		return;
	}
	n = iolat_prom_classic(h, x->step, below);
	for (i = 0; i < n; i++) {
		uint64_t b = iolat_prom_bound(i * x->step);

		snprintf(le, sizeof(le), "le=\"%llu.%09llu\"",
			 U((b - 1) / 1000000000ULL), U((b - 1) % 1000000000ULL));
		text_series(x, "_bucket", l, nr, le);
		fprintf(x->f, " %llu\n", U(below[i]));
	}
	text_series(x, "_bucket", l, nr, "le=\"+Inf\"");
	fprintf(x->f, " %llu\n", U(h->count));
	text_series(x, "_sum", l, nr, NULL);
	text_ns(x->f, h->sum);
	text_series(x, "_count", l, nr, NULL);
	fprintf(x->f, " %llu\n", U(h->count));
}

int iolat_expo_end(struct iolat_expo *x)
{
	if (x->fmt == IOLAT_EXPO_PROTOBUF)
		iolat_expo_pb_end(x);
	return x->failed || ferror(x->f) ? -1 : 0;
}

/* Skip blanks. */
static const char *blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Is [p, end) @word, in any case? */
static bool is_word(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return (size_t)(end - p) == n && !strncasecmp(p, word, n);
}

/*
 * One media range of an Accept header, [p, end): the format it names
 * (-1: none iolat has) and its quality.
 */
static int media_range(const char *p, const char *end, double *q)
{
	const char *semi = memchr(p, ';', end - p);
	const char *type_end = semi ? semi : end;
	bool pb = false, text = false, proto = false, delimited = false;
	bool version_ok = true;

	*q = 1;
	p = blanks(p);
	if (is_word(p, type_end, "application/vnd.google.protobuf"))
		pb = true;
	else if (is_word(p, type_end, "text/plain") ||
		 is_word(p, type_end, "text/*") ||
		 is_word(p, type_end, "*/*"))
		text = true;
	/* its parameters: name=value; ... */
	while (semi) {
		const char *eq, *val, *next;

		p = blanks(semi + 1);
		next = memchr(p, ';', end - p);
		semi = next;
		next = next ? next : end;
		eq = memchr(p, '=', next - p);
		if (!eq)
			continue;
		val = blanks(eq + 1);
		if (is_word(p, eq, "q"))
			*q = strtod(val, NULL);
		else if (is_word(p, eq, "proto"))
			proto = is_word(val, next,
					"io.prometheus.client.MetricFamily");
		else if (is_word(p, eq, "encoding"))
			delimited = is_word(val, next, "delimited");
		else if (is_word(p, eq, "version"))
			version_ok = is_word(val, next, "0.0.4");
	}
	if (pb && proto && delimited)
		return IOLAT_EXPO_PROTOBUF;
	if (text && version_ok)
		return IOLAT_EXPO_TEXT;
	return -1;
}

/**
 * iolat_expo_negotiate() - the format a scrape asks for
 * @accept: its Accept header's value, or NULL
 *
 * The acceptable range of the highest quality that iolat has (the
 * first of equals): the protobuf exposition (delimited MetricFamily
 * messages), or the text (text/plain of version 0.0.4 or none; a range
 * of any text, or of anything).  Text when none is: a scraper that names only formats iolat
 * does not have (OpenMetrics) gets the one all of them read.
 *
 * Return: IOLAT_EXPO_PROTOBUF or IOLAT_EXPO_TEXT.
 */
enum iolat_expo_format iolat_expo_negotiate(const char *accept)
{
	int best = IOLAT_EXPO_TEXT, fmt;
	double best_q = 0, q;
	const char *p = accept, *end;

	while (p && *p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		fmt = media_range(p, end, &q);
		if (fmt >= 0 && q > best_q) {
			best = fmt;
			best_q = q;
		}
		p = *end ? end + 1 : end;
	}
	return best;
}
