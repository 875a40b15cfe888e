// SPDX-License-Identifier: GPL-2.0
/*
 * The frame of `iolat plot` (out_svg.c): the heatmap's colour scale,
 * round ticks (1, 2 or 5 times a power of ten) and their labels, the time
 * axis, axis titles, the legend, and a line panel's frame.
 */
#include <math.h>
#include <stdio.h>
#include "out/out_svg.h"

/* White -> blue -> red as log(count) grows; f in [0, 1]. */
void svg_colour_f(char *buf, size_t len, double f)
{
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

void svg_colour(char *buf, size_t len, uint64_t n, uint64_t max)
{
	svg_colour_f(buf, len, max > 1 ? log((double)n) / log((double)max) : 1);
}

/**
 * iolat_nice_step() - a round tick step for an axis from 0 to @max
 * @max: the axis' largest value, above 0
 * @ticks: at most this many steps
 *
 * Return: 1, 2 or 5 times a power of ten, the smallest that takes at
 * most @ticks steps to pass @max.
 */
double iolat_nice_step(double max, int ticks)
{
	static const double m[] = { 1, 2, 5 };
	double p = pow(10, floor(log10(max / ticks)));
	int k;

	for (;; p *= 10)
		for (k = 0; k < 3; k++)
			if (m[k] * p * ticks >= max)
				return m[k] * p;
}

/* "15k", "20", "0.25": a tick's label, to its step's precision */
void svg_tick_label(char *buf, size_t len, double v, double step)
{
	if (v && step >= 1000)
		snprintf(buf, len, "%gk", v / 1000);
	else
		snprintf(buf, len, "%.*f", step >= 1 ? 0 : (int)ceil(-log10(step)),
			 v);
}

/* "1us", "20us", "500ms", "2s" */
void svg_ns_label(char *buf, size_t len, double ns)
{
	if (ns < 1e6)
		snprintf(buf, len, "%gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%gms", ns / 1e6);
	else
		snprintf(buf, len, "%gs", ns / 1e9);
}

double svg_y_of_ns(double ns, unsigned int lo, unsigned int hi,
		      double top)
{
	double r = (log2(ns > 1 ? ns : 1) - ROW_MIN_EXP) * ROWS_PER_POW2;

	return top + HEAT_H - (r - lo) * HEAT_H / (hi - lo + 1);
}

const char *const svg_line_colours[6] = {
	"#000000", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd", "#8c564b",
};

const char *const svg_op_colours[IOLAT_AN_OPS] = {
	"#1f77b4", "#ff7f0e", "#7f7f7f", "#9467bd", "#8c564b", "#bcbd22",
	"#17becf",
};

double svg_run_end_s(const struct svg *g)
{
	return g->nr ? g->cols[g->nr - 1].to_ns / 1e9 : 1;
}

/* x of a time, the run spread over the plot's width */
double svg_x_of(const struct svg *g, double ns)
{
	double total = svg_run_end_s(g) * 1e9;

	return LEFT + (total > 0 ? ns / total : 0) * W;
}

/* Vertical grid lines at the time ticks, and their labels below. */
void svg_time_axis(const struct svg *g, double top, double h, bool labels)
{
	double end = svg_run_end_s(g), step = iolat_nice_step(end, 10), t;
	char buf[32];

	for (t = 0; t <= end * 1.0001; t += step) {
		double x = svg_x_of(g, t * 1e9);

		printf("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
		       x, top, x, top + h);
		if (!labels)
			continue;
		svg_tick_label(buf, sizeof(buf), t, step);
		printf("<text class=\"tick time\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
		       x, top + h + 14, buf);
	}
	if (labels)
		printf("<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">time (s)</text>\n",
		       LEFT + W / 2.0, top + h + 30);
}

/* A rotated axis title at the left of a panel. */
void svg_y_title(double top, double h, const char *title)
{
	printf("<text class=\"axis-title\" x=\"18\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">%s</text>\n",
	       top + h / 2, top + h / 2, title);
}

/* The colour scale: requests per cell, log, from 1 to the most. */
void svg_legend(const struct svg *g, double top)
{
	double x = LEFT + W + 10, h = 120, f;
	char fill[16];
	int i;

	printf("<g id=\"legend\" class=\"legend\">\n");
	printf("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">requests</text>\n",
	       x, top - 6);
	for (i = 0; i < 40; i++) {
		f = 1 - i / 39.0;
		svg_colour_f(fill, sizeof(fill), f);
		printf("<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"%.2f\" fill=\"%s\"/>\n",
		       x, top + i * h / 40, h / 40 + 0.3, fill);
	}
	printf("<text class=\"tick legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%llu</text>\n",
	       x + 18, top + 9, U(g->max_row));
	if (g->max_row > 10)
		printf("<text class=\"tick legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%.0f</text>\n",
		       x + 18, top + h / 2 + 4, sqrt((double)g->max_row));
	printf("<text class=\"tick legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\">1</text>\n",
	       x + 18, top + h);
	printf("</g>\n");
}

/*
 * A line panel's frame at @top: its group (class "panel @cls", left open),
 * title, time axis, value ticks from 0 to @max by @step, and @unit.
 */
void svg_line_frame(const struct svg *g, double top, const char *cls,
		       const char *title, const char *unit, double max,
		       double step)
{
	char buf[32];
	double t;

	printf("<g class=\"panel %s\" data-title=\"%s\">\n", cls, title);
	printf("<text class=\"panel-title\" x=\"%d\" y=\"%.1f\" font-size=\"13\">%s</text>\n",
	       LEFT, top - 8, title);
	svg_time_axis(g, top, LINE_H, false);
	for (t = 0; t <= max * 1.0001; t += step) {
		double y = top + LINE_H - t / max * LINE_H;

		svg_tick_label(buf, sizeof(buf), t, step);
		printf("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
		       LEFT, y, LEFT + W, y);
		printf("<text class=\"tick value\" x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
		       LEFT - 4, y + 4, buf);
	}
	printf("<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
	       LEFT, top, W, LINE_H);
	svg_y_title(top, LINE_H, unit);
}
