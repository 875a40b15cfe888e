/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iolat plot` (out_svg.c) and its frame (svg_frame.c): the plot's rows,
 * columns and geometry, and the frame's drawing helpers.
 */
#ifndef IOLAT_OUT_SVG_H
#define IOLAT_OUT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "out/output.h"

#define U(x) ((unsigned long long)(x))

#define ROWS_PER_POW2	4
#define ROW_MIN_EXP	10	/* 1 us */
#define ROW_MAX_EXP	36	/* 68.7 s */
#define NR_ROWS		((ROW_MAX_EXP - ROW_MIN_EXP) * ROWS_PER_POW2)
/* devices with panels of their own; all of them in IOPS, MB/s, depth */
#define SVG_MAX_DEVS	16
#define NR_PANELS	(SVG_MAX_DEVS * IOLAT_AN_OPS)

#define W		1000	/* plot area */
#define LEFT		90
#define RIGHT		170
#define HEAT_H		260
#define LINE_H		140
#define GAP		56

/* One device and op's requests in one interval. */
struct cell {
	uint64_t rows[NR_ROWS];
	uint64_t pct[IOLAT_MAX_PCT];
};

struct col {
	uint64_t from_ns;
	uint64_t to_ns;
	uint64_t ios[IOLAT_AN_OPS], bytes[IOLAT_AN_OPS];
	double inflight_ns;	/* sum of the requests' time in this span */
	struct cell *cells[NR_PANELS];	/* [dev * IOLAT_AN_OPS + op] */
	/* a stack's devices' I/Os completed in this span, split */
	uint64_t split_n[SVG_MAX_DEVS];
	double above_ns[SVG_MAX_DEVS], below_ns[SVG_MAX_DEVS];
};

struct svg {
	struct col *cols;
	size_t nr, cap;
	uint64_t max_row;
};

/* svg_frame.c: colours, ticks and labels, axes, the legend */
double iolat_nice_step(double max, int ticks);
void svg_colour_f(char *buf, size_t len, double f);
void svg_colour(char *buf, size_t len, uint64_t n, uint64_t max);
void svg_tick_label(char *buf, size_t len, double v, double step);
void svg_ns_label(char *buf, size_t len, double ns);
double svg_y_of_ns(double ns, unsigned int lo, unsigned int hi, double top);
extern const char *const svg_line_colours[6];
extern const char *const svg_op_colours[IOLAT_AN_OPS];
double svg_run_end_s(const struct svg *g);
double svg_x_of(const struct svg *g, double ns);
void svg_time_axis(const struct svg *g, double top, double h, bool labels);
void svg_y_title(double top, double h, const char *title);
void svg_legend(const struct svg *g, double top);
void svg_line_frame(const struct svg *g, double top, const char *cls,
		    const char *title, const char *unit, double max,
		    double step);

#endif /* IOLAT_OUT_SVG_H */
