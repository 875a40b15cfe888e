// SPDX-License-Identifier: GPL-2.0
/*
 * `iolat stat --cgroups`: per interval, a row per cgroup and device with
 * I/O in it, from the module's cgroup slots: each cgroup's r/s, w/s,
 * kB/s and await, as stat's device row counts them, its part of the
 * device's aqu-sz (the wait of its completed requests over the interval)
 * and that part's share of the device's (of the sum of the device's
 * slots, read together: they sum to the device's counters, read before).
 * The module counts --cgroups-top cgroups at a time on each device (16 by
 * default): the slots of those idle in an interval are freed after it,
 * and the requests of cgroups that find no slot are "other".  A cgroup
 * keeps the path it had when first read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/stat_cgroups.h"
#include "dev/dev.h"
#include "nl/nl.h"
#include "util/util.h"

/*
 * One cgroup of one device: its counts at the start, last row, now.  Now
 * is @off and the module's count of its slot: a slot freed goes to the
 * others', and @off keeps what it had counted (the others' @off the
 * opposite), so that every count only grows.
 */
struct stat_cg {
	unsigned int dev;
	uint64_t id;
	char *path;
	struct iolat_cg_counts first, prev, cur, off;
	bool idle;		/* in a slot, and idle in the last interval */
};

struct stat_cgroups {
	struct stat_cg *g;
	unsigned int nr, cap;
	struct iolat_table tab;
	struct iolat_session *s;	/* while sampling */
	unsigned int rows;		/* intervals with rows printed */
};

enum {
	K_TOTAL, K_TIME, K_DEV, K_CG, K_ID, K_RS, K_RKB, K_RAWAIT, K_WS,
	K_WKB, K_WAWAIT, K_OS, K_OAWAIT, K_AQU, K_SHARE, K_RIOS, K_WIOS,
	K_OIOS, K_RBYTES, K_WBYTES, K_OBYTES, K_WAITNS, K_ELAPSED, NR_KCOLS
};

static const struct iolat_col kcols[NR_KCOLS] = {
	[K_TOTAL] = { "total", NULL, 0, .in = IOLAT_IN_DATA },
	[K_TIME] = { "time", "time", 9 },
	[K_DEV] = { "device", "device", -10, .str = true },
	[K_CG] = { "cgroup", "cgroup", -40, .str = true },
	[K_ID] = { "cgroup_id", NULL, 0, .in = IOLAT_IN_DATA },
	[K_RS] = { "r_s", "r/s", 8, 1, 3 },
	[K_RKB] = { "rkB_s", "rkB/s", 9, 1, 3 },
	[K_RAWAIT] = { "r_await_ms", "r_await", 7, 3, 6 },
	[K_WS] = { "w_s", "w/s", 8, 1, 3 },
	[K_WKB] = { "wkB_s", "wkB/s", 9, 1, 3 },
	[K_WAWAIT] = { "w_await_ms", "w_await", 7, 3, 6 },
	[K_OS] = { "o_s", "o/s", 7, 1, 3 },
	[K_OAWAIT] = { "o_await_ms", "o_await", 7, 3, 6 },
	[K_AQU] = { "aqu_sz", "aqu-sz", 7, 3, 6 },
	[K_SHARE] = { "aqu_share", "%aqu", 6, 1, 6 },
	[K_RIOS] = { "r_ios", .in = IOLAT_IN_DATA },
	[K_WIOS] = { "w_ios", .in = IOLAT_IN_DATA },
	[K_OIOS] = { "o_ios", .in = IOLAT_IN_DATA },
	[K_RBYTES] = { "r_bytes", .in = IOLAT_IN_DATA },
	[K_WBYTES] = { "w_bytes", .in = IOLAT_IN_DATA },
	[K_OBYTES] = { "o_bytes", .in = IOLAT_IN_DATA },
	[K_WAITNS] = { "wait_ns", .in = IOLAT_IN_DATA },
	[K_ELAPSED] = { "elapsed_ns", .in = IOLAT_IN_DATA },
};

struct stat_cgroups *stat_cgroups_new(enum iolat_fmt fmt)
{
	struct stat_cgroups *c = calloc(1, sizeof(*c));

	if (c)
		iolat_table_init(&c->tab, kcols, NR_KCOLS, fmt, stdout);
	return c;
}

void stat_cgroups_free(struct stat_cgroups *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++)
		free(c->g[i].path);
	free(c->g);
	free(c);
}

void stat_cgroups_header(struct stat_cgroups *c)
{
	iolat_table_header(&c->tab);
}

/* cgroup @id's row of device @dev; a cgroup first seen starts at 0 */
static struct stat_cg *find(struct stat_cgroups *c, unsigned int dev,
			    uint64_t id)
{
	const char *path;
	struct stat_cg *g;
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (c->g[i].dev == dev && c->g[i].id == id)
			return &c->g[i];
	c->g = iolat_grow(c->g, &c->cap, c->nr + 1, sizeof(*c->g));
	g = &c->g[c->nr++];
	memset(g, 0, sizeof(*g));
	g->dev = dev;
	g->id = id;
	path = id ? iolat_cgroup_path(id) : NULL;
	g->path = path ? strdup(path) : NULL;
	return g;
}

/* @a += @sign * @b */
static void counts_add(struct iolat_cg_counts *a, const struct iolat_cg_counts *b,
		       int sign)
{
	unsigned int op;

	for (op = 0; op < IOLAT_OP_NR; op++) {
		a->ios[op] += sign * b->ios[op];
		a->bytes[op] += sign * b->bytes[op];
		a->wait_ns[op] += sign * b->wait_ns[op];
	}
}

/* A slot read: its cgroup's counts now (a cgroup may have two slots). */
static void on_slot(void *arg, const struct iolat_cg_counts *k)
{
	struct stat_cgroups *c = arg;
	struct iolat_session *s = c->s;
	int d = iolat_dev_find_num(&s->lookup, s->devs, s->nr_devs, k->major,
				   k->minor);

	if (d >= 0)
		counts_add(&find(c, d, k->id)->cur, k, 1);
}

/**
 * stat_cgroups_sample() - the module's cgroup slots, now
 * @c: the table
 * @s: the session, with cgroup slots
 *
 * Return: 0 or a negative errno.
 */
int stat_cgroups_sample(struct stat_cgroups *c, struct iolat_session *s)
{
	unsigned int i;

	c->s = s;
	for (i = 0; i < c->nr; i++)
		c->g[i].cur = c->g[i].off;
	return iolat_nl_cgroups(s->nl, on_slot, c);
}

/**
 * stat_cgroups_recycle() - free the slots of the cgroups idle in the
 *	interval just shown, for those that do I/O next
 * @c: the table, its rows of the interval printed
 * @s: the running session
 *
 * A cgroup idle now keeps its row, and takes a slot again when it does
 * I/O; what its slot had counted is the others' slot's in the module,
 * and stays the cgroup's here (its @off, and the opposite in the others').
 * Return: 0 or a negative errno.
 */
int stat_cgroups_recycle(struct stat_cgroups *c, struct iolat_session *s)
{
	struct iolat_cg_counts *slots = NULL, moved;
	unsigned int i, nr = 0;
	struct stat_cg *g;
	int err;

	for (i = 0; i < c->nr; i++) {
		g = &c->g[i];
		if (!g->idle)
			continue;
		slots = iolat_grow_to(slots, nr, nr + 1, sizeof(*slots));
		slots[nr].major = s->devs[g->dev].major;
		slots[nr].minor = s->devs[g->dev].minor;
		slots[nr++].id = g->id;
	}
	err = nr ? iolat_nl_cgroups_free(s->nl, slots, nr) : 0;
	free(slots);
	for (i = 0; !err && i < c->nr; i++) {
		if (!c->g[i].idle)
			continue;
		c->g[i].idle = false;
		moved = c->g[i].cur;
		counts_add(&moved, &c->g[i].off, -1);
		c->g[i].off = c->g[i].cur;
		/* may move c->g */
		counts_add(&find(c, c->g[i].dev, 0)->off, &moved, -1);
	}
	return err;
}

/* The readings so far are where the rows start (the session's start). */
void stat_cgroups_mark(struct stat_cgroups *c)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		c->g[i].first = c->g[i].prev = c->g[i].cur;
}

/* What a cgroup is called: in text as its container, else its path. */
static const char *label(const struct stat_cg *g, bool text, char *buf,
			 size_t len)
{
	return g->id ? iolat_cgroup_label(g->id, g->path, text, buf, len) :
		       "other";
}

/*
 * Requests of @op from @a to @b: -1 the ops but read and write, -2 all of
 * them.
 */
static void delta(const struct iolat_cg_counts *a,
		  const struct iolat_cg_counts *b, int op, double *ios,
		  double *kb, double *wait)
{
	unsigned int o;

	*ios = *kb = *wait = 0;
	for (o = 0; o < IOLAT_OP_NR; o++) {
		if (op >= 0 ? (int)o != op :
		    op == -1 && (o == IOLAT_OP_READ || o == IOLAT_OP_WRITE))
			continue;
		*ios += b->ios[o] - a->ios[o];
		*kb += (b->bytes[o] - a->bytes[o]) / 1024.0;
		*wait += b->wait_ns[o] - a->wait_ns[o];
	}
}

static void row(struct stat_cgroups *c, const struct stat_cg *g,
		const char *name, double t, bool total, double secs,
		double dev_wait)
{
	const struct iolat_cg_counts *a = total ? &g->first : &g->prev;
	static const int ops[] = { IOLAT_OP_READ, IOLAT_OP_WRITE, -1 };
	static const unsigned int at[] = { K_RS, K_WS, K_OS };
	struct iolat_table *tab = &c->tab;
	double ios, kb, wait, all = 0;
	char tbuf[16], dbuf[24], buf[128];
	unsigned int i;

	snprintf(tbuf, sizeof(tbuf), "%.2f", t);
	snprintf(dbuf, sizeof(dbuf), "%.3f", t);
	iolat_cell_two(tab, K_TOTAL, "", total ? "true" : "");
	iolat_cell_two(tab, K_TIME, total ? "total" : tbuf, dbuf);
	iolat_cell_str(tab, K_DEV, name);
	iolat_cell_two(tab, K_CG, label(g, true, buf, sizeof(buf)),
		       label(g, false, buf + 64, 64));
	iolat_cell_u64(tab, K_ID, g->id);
	for (i = 0; i < 3; i++) {
		delta(a, &g->cur, ops[i], &ios, &kb, &wait);
		all += wait;
		iolat_cell_u64(tab, K_RIOS + i, ios);
		iolat_cell_u64(tab, K_RBYTES + i, kb * 1024);
		iolat_cell_dbl(tab, at[i], ios / secs);
		if (i < 2)
			iolat_cell_dbl(tab, at[i] + 1, kb / secs);
		iolat_cell_dbl(tab, i < 2 ? at[i] + 2 : K_OAWAIT,
			       ios ? wait / ios / 1e6 : 0);
	}
	iolat_cell_dbl(tab, K_AQU, all / 1e9 / secs);
	iolat_cell_dbl(tab, K_SHARE, dev_wait ? 100 * all / dev_wait : 0);
	iolat_cell_u64(tab, K_WAITNS, all);
	iolat_cell_u64(tab, K_ELAPSED, secs * 1e9 + 0.5);
	iolat_table_row(tab, NULL);
}

/* Did the cgroup complete a request since @a? */
static bool had_io(const struct iolat_cg_counts *a,
		   const struct iolat_cg_counts *b)
{
	unsigned int op;

	for (op = 0; op < IOLAT_OP_NR; op++)
		if (b->ios[op] != a->ios[op])
			return true;
	return false;
}

/**
 * stat_cgroups_rows() - the interval's rows (or the run's, @total)
 * @c: the table, sampled at the interval's end
 * @s: the session
 * @t: the time shown
 * @total: since the start, else since the last rows
 * @a: the devices' counters at the interval's start
 * @b: ... at its end
 */
void stat_cgroups_rows(struct stat_cgroups *c, const struct iolat_session *s,
		       double t, bool total, const struct iolat_dev_counters *a,
		       const struct iolat_dev_counters *b)
{
	unsigned int d, i, shown = 0;
	double secs, wait, ios, kb, w;
	struct stat_cg *g;

	for (d = 0; d < s->nr_devs; d++) {
		secs = (b[d].now_ns - a[d].now_ns) / 1e9;
		/*
		 * the device's wait as its slots sum it, read at the same
		 * time as each of them (its counters are read before)
		 */
		wait = 0;
		for (i = 0; i < c->nr; i++) {
			if (c->g[i].dev != d)
				continue;
			delta(total ? &c->g[i].first : &c->g[i].prev,
			      &c->g[i].cur, -2, &ios, &kb, &w);
			wait += w;
		}
		for (i = 0; i < c->nr && secs > 0; i++) {
			g = &c->g[i];
			if (g->dev != d ||
			    !had_io(total ? &g->first : &g->prev, &g->cur))
				continue;
			/* as iostat, a blank line between the intervals */
			if (!shown++ && c->rows++ && !total &&
			    c->tab.fmt == IOLAT_FMT_TEXT)
				printf("\n");
			row(c, g, s->devs[d].name, t, total, secs, wait);
		}
	}
	for (i = 0; i < c->nr && !total; i++) {
		g = &c->g[i];
		/* in a slot (counted there since @off), idle in the interval */
		g->idle = g->id && memcmp(&g->cur, &g->off, sizeof(g->cur)) &&
			  !memcmp(&g->cur, &g->prev, sizeof(g->cur));
		g->prev = g->cur;
	}
	fflush(stdout);
}
