// SPDX-License-Identifier: GPL-2.0
/*
 * `iolat plot`: a self-contained SVG of a run, over time: a latency
 * heatmap (interval x log latency, colour = requests) with the chosen
 * percentiles as lines over it, then IOPS and MB/s, then the average
 * queue depth (requests in the queue, from their own [first stage,
 * completion] times).  All devices and ops of the chosen stage together.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"

#define U(x) ((unsigned long long)(x))

#define ROWS_PER_POW2	4
#define ROW_MIN_EXP	10	/* 1 us */
#define ROW_MAX_EXP	36	/* 68.7 s */
#define NR_ROWS		((ROW_MAX_EXP - ROW_MIN_EXP) * ROWS_PER_POW2)

#define W		1000	/* plot area */
#define LEFT		80
#define HEAT_H		320
#define LINE_H		140
#define GAP		50

struct col {
	uint64_t from_ns;
	uint64_t to_ns;
	uint64_t ios, bytes;
	uint64_t rows[NR_ROWS];
	uint64_t pct[IOLAT_MAX_PCT];
	double inflight_ns;	/* sum of the requests' time in this span */
};

struct svg {
	struct col *cols;
	size_t nr, cap;
	uint64_t max_row;
};

static struct svg svg_state;

static unsigned int row_of(uint64_t ns)
{
	double e = log2((double)(ns ? ns : 1));
	int r = (int)floor((e - ROW_MIN_EXP) * ROWS_PER_POW2);

	return r < 0 ? 0 : r >= NR_ROWS ? NR_ROWS - 1 : r;
}

static struct col *col_get(struct iolat_an *an, size_t i)
{
	struct svg *g = &svg_state;

	while (i >= g->nr) {
		if (g->nr == g->cap) {
			size_t cap = g->cap ? 2 * g->cap : 256;
			struct col *c = realloc(g->cols, cap * sizeof(*c));

			if (!c) {
				an->nomem = true;
				return NULL;
			}
			g->cols = c;
			g->cap = cap;
		}
		memset(&g->cols[g->nr++], 0, sizeof(struct col));
	}
	return &g->cols[i];
}

/* Each request's time in the queue, spread over the spans it covers. */
static void svg_record(struct iolat_an *an, unsigned int dev,
		       const struct iolat_record *r)
{
	uint64_t t0 = an->meta.t0_ns, step = an->o.interval_ns;
	uint64_t first = r->q_ns ? r->q_ns : r->g_ns ? r->g_ns :
			 r->i_ns ? r->i_ns : r->d_ns;
	uint64_t a, b, i;
	struct col *c;

	(void)dev;
	if (!first || r->c_ns < first || r->c_ns < t0)
		return;
	a = first > t0 ? first - t0 : 0;
	b = r->c_ns - t0;
	for (i = a / step; i <= b / step; i++) {
		uint64_t lo = i * step, hi = lo + step;

		c = col_get(an, i);
		if (!c)
			return;
		c->inflight_ns += (b < hi ? b : hi) - (a > lo ? a : lo);
	}
}

static void svg_interval(struct iolat_an *an, uint64_t from, uint64_t to)
{
	struct iolat_hist *sum = malloc(sizeof(*sum));
	struct col *c = col_get(an, from / an->o.interval_ns);
	unsigned int d, op, i;
	bool any = false;

	if (!c || !sum) {
		an->nomem = true;
		free(sum);
		return;
	}
	c->from_ns = from;
	c->to_ns = to;
	iolat_hist_init(sum);
	for (d = 0; d < an->nr_devs; d++) {
		for (op = 0; op < IOLAT_OP_NR; op++) {
			const struct iolat_an_op *o = &an->devs[d].ival[op];
			const struct iolat_hist *h = o->hist[an->o.stage];

			c->ios += o->ios;
			c->bytes += o->bytes;
			if (!h || !h->count)
				continue;
			iolat_hist_merge(sum, h);
			any = true;
		}
	}
	for (i = 0; any && i < IOLAT_HIST_NR_BINS; i++)
		if (sum->bins[i])
			c->rows[row_of(iolat_hist_bin_lo(i))] += sum->bins[i];
	if (any)
		c->rows[NR_ROWS - 1] += sum->overflow;
	for (i = 0; any && i < an->o.nr_pct; i++)
		c->pct[i] = iolat_hist_percentile(sum, an->o.pct_ppm[i]);
	for (i = 0; i < NR_ROWS; i++)
		if (c->rows[i] > svg_state.max_row)
			svg_state.max_row = c->rows[i];
	free(sum);
}

/* White -> blue -> red as log(count) grows. */
static void colour(char *buf, size_t len, uint64_t n, uint64_t max)
{
	double f = max > 1 ? log((double)n) / log((double)max) : 1;
	int r, g, b;

	if (f < 0.5) {
		f *= 2;
		r = 230 - (int)(200 * f);
		g = 240 - (int)(140 * f);
		b = 255;
	} else {
		f = (f - 0.5) * 2;
		r = 30 + (int)(200 * f);
		g = 100 - (int)(80 * f);
		b = 255 - (int)(215 * f);
	}
	snprintf(buf, len, "#%02x%02x%02x", r, g, b);
}

static double y_of_ns(double ns, unsigned int lo, unsigned int hi)
{
	double r = (log2(ns > 1 ? ns : 1) - ROW_MIN_EXP) * ROWS_PER_POW2;

	return GAP + HEAT_H - (r - lo) * HEAT_H / (hi - lo + 1);
}

static const char *const line_colours[] = {
	"#000000", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd", "#8c564b",
};

/* x of a time, the run spread over the plot's width */
static double x_of(const struct svg *g, double ns)
{
	double total = g->nr ? g->cols[g->nr - 1].to_ns : 1;

	return LEFT + (total > 0 ? ns / total : 0) * W;
}

static void line_panel(const struct svg *g, double top, const char *title,
		       double (*val)(const struct col *), const char *colr)
{
	double max = 0, v;
	size_t i;

	for (i = 0; i < g->nr; i++) {
		v = val(&g->cols[i]);
		max = v > max ? v : max;
	}
	printf("<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
	       LEFT, top, W, LINE_H);
	printf("<text x=\"%d\" y=\"%.1f\" font-size=\"13\">%s (max %.3g)</text>\n",
	       LEFT, top - 6, title, max);
	printf("<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.3g</text>\n",
	       LEFT - 4, top + 10, max);
	printf("<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">0</text>\n",
	       LEFT - 4, top + LINE_H);
	printf("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
	       colr);
	for (i = 0; i < g->nr; i++) {
		v = val(&g->cols[i]);
		printf("%.1f,%.1f ",
		       x_of(g, (g->cols[i].from_ns + g->cols[i].to_ns) / 2.0),
		       top + LINE_H - (max > 0 ? v / max * (LINE_H - 4) : 0));
	}
	printf("\"/>\n");
}

static double col_secs(const struct col *c)
{
	return c->to_ns > c->from_ns ? (c->to_ns - c->from_ns) / 1e9 : 1;
}

static double col_iops(const struct col *c)
{
	return c->ios / col_secs(c);
}

static double col_mbs(const struct col *c)
{
	return c->bytes / col_secs(c) / 1e6;
}

static double col_qd(const struct col *c)
{
	return c->inflight_ns / (col_secs(c) * 1e9);
}

static void svg_summary(struct iolat_an *an, const struct iolat_run *run,
			const struct iolat_dev_counters *cnt)
{
	struct svg *g = &svg_state;
	unsigned int lo = NR_ROWS, hi = 0, r, p, d;
	double step_s = an->o.interval_ns / 1e9, top;
	int height = GAP + HEAT_H + 3 * (GAP + LINE_H) + GAP;
	char fill[16];
	size_t i;

	(void)run;
	(void)cnt;
	for (i = 0; i < g->nr; i++)
		for (r = 0; r < NR_ROWS; r++)
			if (g->cols[i].rows[r]) {
				lo = r < lo ? r : lo;
				hi = r > hi ? r : hi;
			}
	if (lo == NR_ROWS)
		lo = hi = 0;
	/* whole powers of two around the data */
	lo -= lo % ROWS_PER_POW2;
	hi += ROWS_PER_POW2 - 1 - hi % ROWS_PER_POW2;
	printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
	       LEFT + W + 160, height, LEFT + W + 160, height);
	printf("<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	printf("<text x=\"%d\" y=\"20\" font-size=\"15\">iolat: %s latency of", LEFT,
	       iolat_an_stage_name(an->o.stage));
	for (d = 0; d < an->nr_devs; d++)
		printf(" %s", an->devs[d].name);
	printf(" on %s (Linux %s), %.3g s intervals, %llu requests</text>\n",
	       an->meta.host, an->meta.kernel, step_s, U(an->records));
	/* heatmap */
	printf("<g shape-rendering=\"crispEdges\">\n");
	for (i = 0; i < g->nr; i++) {
		for (r = lo; r <= hi; r++) {
			uint64_t n = g->cols[i].rows[r];

			if (!n)
				continue;
			colour(fill, sizeof(fill), n, g->max_row);
			printf("<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%.3g s: %llu</title></rect>\n",
			       x_of(g, g->cols[i].from_ns),
			       GAP + HEAT_H - (r - lo + 1.0) * HEAT_H / (hi - lo + 1),
			       x_of(g, g->cols[i].to_ns) - x_of(g, g->cols[i].from_ns) + 0.3,
			       (double)HEAT_H / (hi - lo + 1) + 0.3, fill,
			       g->cols[i].to_ns / 1e9, U(n));
		}
	}
	printf("</g>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
	       LEFT, GAP, W, HEAT_H);
	/* latency axis: powers of ten */
	for (p = 3; p <= 11; p++) {
		static const char *const names[] = {
			"1us", "10us", "100us", "1ms", "10ms", "100ms", "1s",
			"10s", "100s",
		};
		double y = y_of_ns(pow(10, p), lo, hi);

		if (y < GAP || y > GAP + HEAT_H)
			continue;
		printf("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ccc\" stroke-dasharray=\"3,3\"/>\n",
		       LEFT, y, LEFT + W, y);
		printf("<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
		       LEFT - 4, y + 4, names[p - 3]);
	}
	/* percentile lines */
	for (p = 0; p < an->o.nr_pct; p++) {
		const char *colr = line_colours[p % 6];

		printf("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
		       colr);
		for (i = 0; i < g->nr; i++)
			if (g->cols[i].pct[p])
				printf("%.1f,%.1f ",
				       x_of(g, (g->cols[i].from_ns + g->cols[i].to_ns) / 2.0),
				       y_of_ns(g->cols[i].pct[p], lo, hi));
		printf("\"/>\n<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s</text>\n",
		       LEFT + W + 10, GAP + 15 + 16 * p, colr, an->o.pct_name[p]);
	}
	top = GAP + HEAT_H + GAP;
	line_panel(g, top, "IOPS", col_iops, "#1f77b4");
	top += LINE_H + GAP;
	line_panel(g, top, "MB/s", col_mbs, "#2ca02c");
	top += LINE_H + GAP;
	line_panel(g, top, "queue depth (requests in the queue, average)",
		   col_qd, "#d62728");
	/* time axis */
	for (i = 0; i <= 10; i++) {
		double x = LEFT + i * W / 10.0;

		printf("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.3g s</text>\n",
		       x, top + LINE_H + 16,
		       (g->nr ? g->cols[g->nr - 1].to_ns : 0) / 1e9 * i / 10);
	}
	printf("</svg>\n");
	free(g->cols);
	memset(g, 0, sizeof(*g));
}

const struct iolat_output iolat_out_svg = {
	.name = "svg",
	.needs_intervals = true,
	.record = svg_record,
	.interval = svg_interval,
	.summary = svg_summary,
};
