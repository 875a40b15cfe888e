// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cgroup groups of `record --cgroups`: each cgroup's requests on each
 * device (struct iolat_record's cgroup), their bytes, Q2C and D2C, and
 * their share of the device's queue time (the sum of its requests' Q2C:
 * what aqu-sz averages).  A cgroup's path is taken when its first
 * request arrives, so that one removed before the end keeps its name.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "dev/dev.h"
#include "nl/nl.h"

static struct iolat_an_cg *cg_find(struct iolat_an *an, unsigned int dev,
				   uint64_t id)
{
	struct iolat_an_cg *g;
	const char *path;
	unsigned int i;

	if (an->nr_cgs && an->cgs[an->last_cg].id == id &&
	    an->cgs[an->last_cg].dev == dev)
		return &an->cgs[an->last_cg];
	/* a few cgroups a device: a walk of them all */
	for (i = 0; i < an->nr_cgs; i++) {
		if (an->cgs[i].id == id && an->cgs[i].dev == dev) {
			an->last_cg = i;
			return &an->cgs[i];
		}
	}
	an->cgs = iolat_grow(an->cgs, &an->cap_cgs, an->nr_cgs + 1,
			     sizeof(*an->cgs));
	g = &an->cgs[an->nr_cgs];
	memset(g, 0, sizeof(*g));
	g->id = id;
	g->dev = dev;
	path = iolat_cgroup_path(id);
	g->path = path ? strdup(path) : NULL;
	an->last_cg = an->nr_cgs;
	return &an->cgs[an->nr_cgs++];
}

/**
 * iolat_an_cgroup_record() - a block request into its cgroup's group
 * @an: the analysis, whose records carry cgroups (an->o.cgroups)
 * @dev: the record's device
 * @r: the record
 */
void iolat_an_cgroup_record(struct iolat_an *an, unsigned int dev,
			    const struct iolat_record *r)
{
	struct iolat_an_cg *g = cg_find(an, dev, r->cgroup);
	uint64_t q2c = iolat_record_latency(r);

	g->ios++;
	g->bytes += r->bytes;
	g->q2c_ns += q2c;
	if (q2c)
		iolat_an_hist_add(an, &g->q2c, q2c);
	if (r->d_ns && r->c_ns > r->d_ns)
		iolat_an_hist_add(an, &g->d2c, r->c_ns - r->d_ns);
}

/**
 * iolat_an_cgroup_run() - a run of block requests into their cgroup's group
 * @an: the analysis, whose records carry cgroups (an->o.cgroups)
 * @dev: their device
 * @id: their cgroup
 * @n: how many
 * @bytes: their bytes
 * @q2c: [@n] their latencies, none 0 (an_runs.c's run_plain())
 * @d2c: [@n] their D2C, none 0
 *
 * As @n calls of iolat_an_cgroup_record() (an_runs.c).
 */
void iolat_an_cgroup_run(struct iolat_an *an, unsigned int dev, uint64_t id,
			 unsigned int n, uint64_t bytes, const __u64 *q2c,
			 const __u64 *d2c)
{
	struct iolat_an_cg *g = cg_find(an, dev, id);
	unsigned int i;

	g->ios += n;
	g->bytes += bytes;
	for (i = 0; i < n; i++)
		g->q2c_ns += q2c[i];
	iolat_an_hist_add_many(an, &g->q2c, q2c, n);
	iolat_an_hist_add_many(an, &g->d2c, d2c, n);
}

/**
 * iolat_an_cg_share() - a group's share of its device's queue time
 * @an: the analysis
 * @g: one of its groups
 *
 * Return: from 0 to 1; 0 if the device's requests had none.
 */
double iolat_an_cg_share(const struct iolat_an *an, const struct iolat_an_cg *g)
{
	uint64_t all = 0;
	unsigned int i;

	for (i = 0; i < an->nr_cgs; i++)
		if (an->cgs[i].dev == g->dev)
			all += an->cgs[i].q2c_ns;
	return all ? (double)g->q2c_ns / all : 0;
}

static const struct iolat_an *sort_an;

static int by_dev_ios(const void *a, const void *b)
{
	const struct iolat_an_cg *x = *(const struct iolat_an_cg **)a;
	const struct iolat_an_cg *y = *(const struct iolat_an_cg **)b;
	int c = strcmp(sort_an->devs[x->dev].name, sort_an->devs[y->dev].name);

	if (c)
		return c;
	if (x->ios != y->ios)
		return x->ios < y->ios ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/**
 * iolat_an_cgroups_sorted() - the groups in the order shown
 * @an: the analysis
 *
 * By device name, then most requests first.
 * Return: an array of an->nr_cgs groups to free(), or NULL if there are
 * none or out of memory (then an->cgs's order).
 */
const struct iolat_an_cg **iolat_an_cgroups_sorted(const struct iolat_an *an)
{
	const struct iolat_an_cg **out;
	unsigned int i;

	if (!an->nr_cgs)
		return NULL;
	out = calloc(an->nr_cgs, sizeof(*out));
	if (!out)
		return NULL;
	for (i = 0; i < an->nr_cgs; i++)
		out[i] = &an->cgs[i];
	sort_an = an;
	qsort(out, an->nr_cgs, sizeof(*out), by_dev_ios);
	return out;
}

/* A group's name: its path, else its id (a cgroup gone before it was seen). */
const char *iolat_an_cg_name(const struct iolat_an_cg *g, char *buf,
			     size_t len)
{
	return g->rest ? "other" :
	       iolat_cgroup_label(g->id, g->path, false, buf, len);
}

/**
 * iolat_an_cgroups_name() - name at most @n cgroups of each device
 * @an: the analysis
 * @n: the most a device names
 *
 * The busiest cgroups (most requests) of each device that has fewer than
 * @n named are named, and stay so while they are there: a named series
 * goes back into "other" only once its cgroup is removed and it has had
 * no request since the last call, so every series of the exporter only
 * grows, and a node's churn of containers does not keep the names for
 * cgroups gone.
 */
void iolat_an_cgroups_name(struct iolat_an *an, unsigned int n)
{
	const struct iolat_an_cg **sorted;
	unsigned int i, j, named = 0;
	struct iolat_an_cg *g;

	for (i = 0; i < an->nr_cgs; i++) {
		g = &an->cgs[i];
		if (g->named && g->ios == g->seen_ios &&
		    iolat_cgroup_gone(g->id, g->path))
			g->gone = true;
		g->named &= !g->gone;
		g->seen_ios = g->ios;
	}
	sorted = iolat_an_cgroups_sorted(an);
	if (!sorted)
		return;
	for (i = 0; i < an->nr_cgs; i = j) {
		named = 0;
		for (j = i; j < an->nr_cgs && sorted[j]->dev == sorted[i]->dev; j++)
			named += sorted[j]->named;
		for (j = i; j < an->nr_cgs && sorted[j]->dev == sorted[i]->dev; j++)
			if (!sorted[j]->named && !sorted[j]->rest &&
			    !sorted[j]->gone && named < n) {
				((struct iolat_an_cg *)sorted[j])->named = true;
				named++;
			}
	}
	free(sorted);
}

/**
 * iolat_an_cgroup_set() - a cgroup slot of the module (IOLAT_CMD_CGROUPS)
 *	as its group: its counts since the session's start
 * @an: the analysis, of an aggregating session with cgroup slots
 * @dev: the device
 * @c: the slot; id 0 is the others', summed into "other"
 */
void iolat_an_cgroup_set(struct iolat_an *an, unsigned int dev,
			 const struct iolat_cg_counts *c)
{
	struct iolat_an_cg *g = cg_find(an, dev, c->id);
	unsigned int op;

	g->rest = !c->id;
	g->ios = g->bytes = g->q2c_ns = 0;
	for (op = 0; op < IOLAT_OP_NR; op++) {
		g->ios += c->ios[op];
		g->bytes += c->bytes[op];
		g->q2c_ns += c->wait_ns[op];
	}
}

/*
 * iolat_an_cgroup_hist() - where a cgroup slot's histogram of the module
 * goes: its group's Q2C, which the reading replaces (its first message
 * empties it); NULL out of memory
 */
struct iolat_hist *iolat_an_cgroup_hist(struct iolat_an *an, unsigned int dev,
					uint64_t id)
{
	struct iolat_an_cg *g = cg_find(an, dev, id);

	g->rest = !id;
	if (!g->q2c) {
		g->q2c = malloc(sizeof(*g->q2c));
		if (g->q2c)
			iolat_hist_init(g->q2c);
	}
	return g->q2c;
}

/* @g's counts and histograms, emptied: its slot's went to the others'. */
static void cg_empty(struct iolat_an_cg *g)
{
	g->ios = g->bytes = g->q2c_ns = 0;
	if (g->q2c)
		iolat_hist_init(g->q2c);
	if (g->d2c)
		iolat_hist_init(g->d2c);
}

/**
 * iolat_an_cgroups_retire() - after an exposition from the module's
 *	cgroup slots: the slots of the cgroups not named, to free for the
 *	cgroups doing I/O now, of which the busiest are named next
 * @an: the analysis, its cgroups the module's slots (IOLAT_A_CGROUP_SLOTS)
 * @free: set to an array (to free()) of the slots to free; their groups
 *	are emptied, their counts being the others' slot's once freed
 *
 * Return: the number of slots in *@free.
 */
unsigned int iolat_an_cgroups_retire(struct iolat_an *an,
				     struct iolat_an_cg_slot **free)
{
	struct iolat_an_cg *g;
	unsigned int i, nr = 0;

	*free = NULL;
	for (i = 0; i < an->nr_cgs; i++) {
		g = &an->cgs[i];
		if (g->rest || g->named || !g->ios)
			continue;
		*free = iolat_grow_to(*free, nr, nr + 1, sizeof(**free));
		(*free)[nr].dev = g->dev;
		(*free)[nr++].id = g->id;
		cg_empty(g);
	}
	return nr;
}

void iolat_an_cgroups_free(struct iolat_an *an)
{
	unsigned int i;

	for (i = 0; i < an->nr_cgs; i++) {
		free(an->cgs[i].path);
		free(an->cgs[i].q2c);
		free(an->cgs[i].d2c);
	}
	free(an->cgs);
	an->cgs = NULL;
	an->nr_cgs = an->cap_cgs = 0;
}
