// SPDX-License-Identifier: GPL-2.0
/*
 * `iolat plot`: a self-contained SVG of a run, over time: a latency
 * heatmap per device and op (interval x log latency, colour = requests,
 * with its scale) with the chosen percentiles as lines over it, then
 * IOPS and MB/s per op, then the average queue depth (requests in the
 * queue, from their own [first stage, completion] times), and for a
 * stack's device the mean time of its I/Os above it and below it
 * (stack.c), by the interval they completed in.  Axes carry
 * round ticks (1, 2 or 5 times a power of ten; latencies as 1us, 2us,
 * 5us...) and titles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/output.h"

#include "out/out_svg.h"

static struct svg svg_state;

static unsigned int row_of(uint64_t ns)
{
	double e = log2((double)(ns ? ns : 1));
	int r = (int)floor((e - ROW_MIN_EXP) * ROWS_PER_POW2);

	return r < 0 ? 0 : r >= NR_ROWS ? NR_ROWS - 1 : r;
}

/* The latency at the bottom of a row, in ns. */
static double row_lo_ns(unsigned int r)
{
	return pow(2, ROW_MIN_EXP + (double)r / ROWS_PER_POW2);
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

/* A stack's I/O, split: into the span it completed in. */
static void svg_split(struct iolat_an *an, unsigned int dev, uint64_t c_ns,
		      uint64_t above_ns, uint64_t below_ns)
{
	uint64_t t0 = an->meta.t0_ns;
	struct col *c;

	if (c_ns < t0 || dev >= SVG_MAX_DEVS)
		return;
	c = col_get(an, (c_ns - t0) / an->o.interval_ns);
	if (!c)
		return;
	c->split_n[dev]++;
	c->above_ns[dev] += above_ns;
	c->below_ns[dev] += below_ns;
}

static void svg_interval(struct iolat_an *an, uint64_t from, uint64_t to)
{
	struct col *c = col_get(an, from / an->o.interval_ns);
	unsigned int d, op, i;
	struct cell *cell;

	if (!c)
		return;
	c->from_ns = from;
	c->to_ns = to;
	for (d = 0; d < an->nr_devs; d++) {
		for (op = 0; op < IOLAT_AN_OPS; op++) {
			const struct iolat_an_op *o = &an->devs[d].ival[op];
			const struct iolat_hist *h = o->hist[an->o.stage];

			c->ios[op] += o->ios;
			c->bytes[op] += o->bytes;
			if (!h || !h->count || d >= SVG_MAX_DEVS)
				continue;
			cell = calloc(1, sizeof(*cell));
			if (!cell) {
				an->nomem = true;
				return;
			}
			c->cells[d * IOLAT_AN_OPS + op] = cell;
			for (i = 0; i < IOLAT_HIST_NR_BINS; i++)
				if (h->bins[i])
					cell->rows[row_of(iolat_hist_bin_lo(i))] +=
						h->bins[i];
			cell->rows[NR_ROWS - 1] += h->overflow;
			for (i = 0; i < an->o.nr_pct; i++)
				cell->pct[i] = iolat_hist_percentile(h, an->o.pct_ppm[i]);
			for (i = 0; i < NR_ROWS; i++)
				if (cell->rows[i] > svg_state.max_row)
					svg_state.max_row = cell->rows[i];
		}
	}
}

/*
 * The values of percentile @p of panel @pnl as attributes of its line,
 * for a reader of the file: its name, and per interval that has it, the
 * interval's start and end (s from the start) and the latency (ns).
 */
static void pct_values(const struct iolat_an *an, const struct svg *g,
		       unsigned int pnl, unsigned int p)
{
	static const char *const attr[] = { "data-from-s", "data-to-s",
					    "data-ns" };
	const struct col *c;
	unsigned int a;
	const char *sep;
	size_t i;

	printf(" data-pct=\"%s\"", an->o.pct_name[p]);
	for (a = 0; a < 3; a++) {
		printf(" %s=\"", attr[a]);
		sep = "";
		for (i = 0; i < g->nr; i++) {
			c = &g->cols[i];
			if (!c->cells[pnl] || !c->cells[pnl]->pct[p])
				continue;
			if (a < 2)
				printf("%s%.9f", sep,
				       (a ? c->to_ns : c->from_ns) / 1e9);
			else
				printf("%s%llu", sep, U(c->cells[pnl]->pct[p]));
			sep = " ";
		}
		printf("\"");
	}
}

/*
 * The heatmap of one device and op: rows four per power of two, round
 * latency ticks (1, 2, 5 times a power of ten), the percentiles drawn
 * over it with a white edge so that they show on dark cells too.
 */
static void heat_panel(struct iolat_an *an, const struct svg *g,
		       unsigned int pnl, double top)
{
	static const double m[] = { 1, 2, 5 };
	unsigned int lo = NR_ROWS, hi = 0, r, p, k;
	unsigned int d = pnl / IOLAT_AN_OPS, op = pnl % IOLAT_AN_OPS;
	double e, ns, y;
	char fill[16], a[32], b[32];
	size_t i;

	for (i = 0; i < g->nr; i++)
		for (r = 0; g->cols[i].cells[pnl] && r < NR_ROWS; r++)
			if (g->cols[i].cells[pnl]->rows[r]) {
				lo = r < lo ? r : lo;
				hi = r > hi ? r : hi;
			}
	if (lo == NR_ROWS)
		return;
	/* whole powers of two around the data */
	lo -= lo % ROWS_PER_POW2;
	hi += ROWS_PER_POW2 - 1 - hi % ROWS_PER_POW2;
	printf("<g class=\"panel heatmap\" data-device=\"%s\" data-op=\"%s\">\n",
	       an->devs[d].name, iolat_an_op_name(op));
	printf("<text class=\"panel-title\" x=\"%d\" y=\"%.1f\" font-size=\"13\">%s %s: %s latency</text>\n",
	       LEFT, top - 8, an->devs[d].name, iolat_an_op_name(op),
	       iolat_an_stage_name(an->o.stage));
	printf("<g shape-rendering=\"crispEdges\">\n");
	for (i = 0; i < g->nr; i++) {
		const struct col *c = &g->cols[i];

		for (r = lo; c->cells[pnl] && r <= hi; r++) {
			uint64_t n = c->cells[pnl]->rows[r];

			if (!n)
				continue;
			svg_colour(fill, sizeof(fill), n, g->max_row);
			svg_ns_label(a, sizeof(a), row_lo_ns(r));
			svg_ns_label(b, sizeof(b), row_lo_ns(r + 1));
			printf("<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%.3g-%.3g s, %s to %s: %llu requests</title></rect>\n",
			       svg_x_of(g, c->from_ns),
			       top + HEAT_H - (r - lo + 1.0) * HEAT_H / (hi - lo + 1),
			       svg_x_of(g, c->to_ns) - svg_x_of(g, c->from_ns) + 0.3,
			       (double)HEAT_H / (hi - lo + 1) + 0.3, fill,
			       c->from_ns / 1e9, c->to_ns / 1e9, a, b, U(n));
		}
	}
	printf("</g>\n");
	svg_time_axis(g, top, HEAT_H, false);
	printf("<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
	       LEFT, top, W, HEAT_H);
	/* latency ticks: 1, 2, 5 per decade; only the decades if crowded */
	for (e = 3; e <= 11; e++) {
		for (k = 0; k < 3; k++) {
			ns = m[k] * pow(10, e);
			y = svg_y_of_ns(ns, lo, hi, top);
			if (y < top - 0.5 || y > top + HEAT_H + 0.5 ||
			    (k && hi - lo + 1 > 10 * ROWS_PER_POW2))
				continue;
			svg_ns_label(a, sizeof(a), ns);
			printf("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ccc\" stroke-dasharray=\"3,3\"/>\n",
			       LEFT, y, LEFT + W, y);
			printf("<text class=\"tick latency\" x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
			       LEFT - 4, y + 4, a);
		}
	}
	svg_y_title(top, HEAT_H, "latency");
	/* the percentiles, each over a white edge */
	for (p = 0; p < an->o.nr_pct; p++) {
		for (k = 0; k < 2; k++) {
			printf("<polyline class=\"%s\"", k ? "percentile" : "halo");
			if (k)
				pct_values(an, g, pnl, p);
			printf(" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"",
			       k ? svg_line_colours[p % 6] : "#ffffff",
			       k ? "1.5" : "4");
			for (i = 0; i < g->nr; i++) {
				const struct col *c = &g->cols[i];

				if (c->cells[pnl] && c->cells[pnl]->pct[p])
					printf("%.1f,%.1f ",
					       svg_x_of(g, (c->from_ns + c->to_ns) / 2.0),
					       svg_y_of_ns(c->cells[pnl]->pct[p], lo,
						       hi, top));
			}
			printf("\"/>\n");
		}
		printf("<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">%s</text>\n",
		       LEFT + W + 10, top + 15 + 16 * p, svg_line_colours[p % 6],
		       an->o.pct_name[p]);
	}
	printf("</g>\n");
}

static double col_secs(const struct col *c)
{
	return c->to_ns > c->from_ns ? (c->to_ns - c->from_ns) / 1e9 : 1;
}

/* IOPS, MB/s of one op (IOLAT_AN_OPS: all), queue depth */
enum { V_IOPS, V_MBS, V_QD };

static double col_val(const struct col *c, int what, unsigned int op)
{
	uint64_t ios = 0, bytes = 0;
	unsigned int o;

	for (o = 0; o < IOLAT_AN_OPS; o++) {
		if (op != IOLAT_AN_OPS && o != op)
			continue;
		ios += c->ios[o];
		bytes += c->bytes[o];
	}
	switch (what) {
	case V_IOPS:
		return ios / col_secs(c);
	case V_MBS:
		return bytes / col_secs(c) / 1e6;
	default:
		return c->inflight_ns / (col_secs(c) * 1e9);
	}
}

/* A line panel: a line per op with requests (one for the queue depth). */
static void line_panel(const struct svg *g, double top, const char *title,
		       const char *unit, int what)
{
	double max = 0, v, step;
	unsigned int op, lines = 0;
	bool any[IOLAT_AN_OPS] = { false };
	size_t i;

	for (i = 0; i < g->nr; i++) {
		for (op = 0; op < IOLAT_AN_OPS; op++) {
			if (g->cols[i].ios[op])
				any[op] = true;
			v = col_val(&g->cols[i], what, what == V_QD ?
				    IOLAT_AN_OPS : op);
			max = v > max ? v : max;
		}
	}
	step = iolat_nice_step(max > 0 ? max : 1, 5);
	max = ceil((max > 0 ? max : 1) / step) * step;
	svg_line_frame(g, top, "line", title, unit, max, step);
	for (op = 0; op < IOLAT_AN_OPS; op++) {
		if (what == V_QD ? op : !any[op])
			continue;
		printf("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
		       what == V_QD ? "#d62728" : svg_op_colours[op]);
		for (i = 0; i < g->nr; i++) {
			v = col_val(&g->cols[i], what, what == V_QD ?
				    IOLAT_AN_OPS : op);
			printf("%.1f,%.1f ",
			       svg_x_of(g, (g->cols[i].from_ns + g->cols[i].to_ns) / 2.0),
			       top + LINE_H - v / max * LINE_H);
		}
		printf("\"/>\n");
		if (what != V_QD)
			printf("<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">%s</text>\n",
			       LEFT + W + 10, top + 15 + 16 * lines++,
			       svg_op_colours[op], iolat_an_op_name(op));
	}
	printf("</g>\n");
}

/* Has stack device @d I/Os split in any span? */
static bool split_used(const struct svg *g, unsigned int d)
{
	size_t i;

	for (i = 0; i < g->nr; i++)
		if (g->cols[i].split_n[d])
			return true;
	return false;
}

/*
 * Stack device @d's I/Os, by the span they completed in: the mean time
 * above it (the stack's own layers) and below it, in microseconds; a span
 * with none is left out of the lines.
 */
static void split_panel(const struct iolat_an *an, const struct svg *g,
			unsigned int d, double top)
{
	static const char *const names[] = { "above", "below" };
	static const char *const colours[] = { "#d62728", "#1f77b4" };
	double max = 0, v, step;
	char title[96];
	unsigned int k;
	size_t i;

	for (i = 0; i < g->nr; i++) {
		const struct col *c = &g->cols[i];

		if (!c->split_n[d])
			continue;
		v = (c->above_ns[d] > c->below_ns[d] ? c->above_ns[d] :
		     c->below_ns[d]) / c->split_n[d] / 1e3;
		max = v > max ? v : max;
	}
	step = iolat_nice_step(max > 0 ? max : 1, 5);
	max = ceil((max > 0 ? max : 1) / step) * step;
	snprintf(title, sizeof(title),
		 "%s: time above it and below it (mean per I/O)",
		 an->devs[d].name);
	svg_line_frame(g, top, "stack", title, "us", max, step);
	for (k = 0; k < 2; k++) {
		/* the values themselves too, for a reader of the file */
		printf("<polyline class=\"%s\" data-us=\"", names[k]);
		for (i = 0; i < g->nr; i++)
			if (g->cols[i].split_n[d])
				printf("%s%.3f", i ? " " : "",
				       (k ? g->cols[i].below_ns[d] :
					g->cols[i].above_ns[d]) /
				       g->cols[i].split_n[d] / 1e3);
		printf("\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
		       colours[k]);
		for (i = 0; i < g->nr; i++) {
			const struct col *c = &g->cols[i];

			if (!c->split_n[d])
				continue;
			v = (k ? c->below_ns[d] : c->above_ns[d]) /
			    c->split_n[d] / 1e3;
			printf("%.1f,%.1f ",
			       svg_x_of(g, (c->from_ns + c->to_ns) / 2.0),
			       top + LINE_H - v / max * LINE_H);
		}
		printf("\"/>\n");
		printf("<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">%s</text>\n",
		       LEFT + W + 10, top + 15 + 16 * k, colours[k], names[k]);
	}
	printf("</g>\n");
}

static bool panel_used(const struct svg *g, unsigned int pnl)
{
	size_t i;

	for (i = 0; i < g->nr; i++)
		if (g->cols[i].cells[pnl])
			return true;
	return false;
}

static void svg_summary(struct iolat_an *an, const struct iolat_run *run,
			const struct iolat_dev_counters *cnt)
{
	struct svg *g = &svg_state;
	double step_s = an->o.interval_ns / 1e9, top;
	unsigned int pnl, heat = 0, d, splits = 0;
	int height;
	size_t i;

	(void)run;
	(void)cnt;
	if (an->nr_devs > SVG_MAX_DEVS)
		iolat_warn("%u devices: the plot has panels for the first %d (choose them with -d); its IOPS, MB/s and depth count them all",
			   an->nr_devs, SVG_MAX_DEVS);
	for (pnl = 0; pnl < NR_PANELS; pnl++)
		heat += panel_used(g, pnl);
	for (d = 0; d < an->nr_devs && d < SVG_MAX_DEVS; d++)
		splits += split_used(g, d);
	height = GAP + heat * (HEAT_H + GAP) + (3 + splits) * (LINE_H + GAP) +
		 GAP;
	printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
	       LEFT + W + RIGHT, height, LEFT + W + RIGHT, height);
	printf("<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	printf("<text x=\"%d\" y=\"20\" font-size=\"15\">iolat: %s latency of", LEFT,
	       iolat_an_stage_name(an->o.stage));
	for (d = 0; d < an->nr_devs; d++)
		printf(" %s", an->devs[d].name);
	printf(" on %s (Linux %s), %.3g s intervals, %llu requests</text>\n",
	       an->meta.host, an->meta.kernel, step_s, U(an->records));
	top = GAP;
	for (pnl = 0; pnl < NR_PANELS; pnl++) {
		if (!panel_used(g, pnl))
			continue;
		heat_panel(an, g, pnl, top);
		top += HEAT_H + GAP;
	}
	if (heat)
		svg_legend(g, GAP + 16 * an->o.nr_pct + 40);
	line_panel(g, top, "IOPS", "IOPS", V_IOPS);
	top += LINE_H + GAP;
	line_panel(g, top, "MB/s", "MB/s", V_MBS);
	top += LINE_H + GAP;
	line_panel(g, top, "queue depth (requests in the queue, average)",
		   "requests", V_QD);
	for (d = 0; d < an->nr_devs && d < SVG_MAX_DEVS; d++) {
		if (!split_used(g, d))
			continue;
		top += LINE_H + GAP;
		split_panel(an, g, d, top);
	}
	svg_time_axis(g, top, LINE_H, true);
	printf("</svg>\n");
	for (i = 0; i < g->nr; i++)
		for (pnl = 0; pnl < NR_PANELS; pnl++)
			free(g->cols[i].cells[pnl]);
	free(g->cols);
	memset(g, 0, sizeof(*g));
}

const struct iolat_output iolat_out_svg = {
	.name = "svg",
	.needs_intervals = true,
	.record = svg_record,
	.interval = svg_interval,
	.summary = svg_summary,
	.split = svg_split,
};
