// SPDX-License-Identifier: GPL-2.0
/*
 * The module's readings, asked over the netlink socket: a session's
 * device counters (IOLAT_CMD_COUNTERS), an aggregating session's
 * histograms (IOLAT_CMD_HIST), the cgroup slots (IOLAT_CMD_CGROUPS) and
 * the clock test (IOLAT_CMD_CLOCKTEST).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>
#include "nl/nl.h"
#include "nl/nlsock.h"

/* A u64 array attribute into @dst, as much as both have. */
static void get_u64s(struct nlattr **tb, int attr, uint64_t *dst, size_t n)
{
	size_t len;

	if (!tb[attr])
		return;
	len = nla_len(tb[attr]);
	memcpy(dst, nla_data(tb[attr]),
	       len < n * sizeof(*dst) ? len : n * sizeof(*dst));
}

struct counters_ctx {
	struct iolat_dev_counters *c;
	unsigned int nr;
};

static void hwq_reply(struct iolat_dev_counters *c, struct nlattr *nla)
{
	struct nlattr *tb[IOLAT_HWQ_A_MAX + 1];
	struct iolat_hwq_counters *h;
	uint32_t i;

	if (nla_parse_nested(tb, IOLAT_HWQ_A_MAX, nla, NULL) < 0 ||
	    !tb[IOLAT_HWQ_A_INDEX])
		return;
	i = nla_get_u32(tb[IOLAT_HWQ_A_INDEX]);
	if (i >= c->nr_hwq)
		return;
	h = &c->hwqs[i];
	h->busy_ns = get_u64(tb, IOLAT_HWQ_A_BUSY_NS);
	h->qbusy_ns = get_u64(tb, IOLAT_HWQ_A_QBUSY_NS);
	h->queued = get_u32(tb, IOLAT_HWQ_A_QUEUED);
	h->issued = get_u32(tb, IOLAT_HWQ_A_ISSUED);
}

static int counters_reply(struct iolat_req *req, struct nlattr **tb)
{
	struct counters_ctx *ctx = req->arg;
	struct nlattr *t[IOLAT_CNT_A_MAX + 1], *nla;
	struct iolat_dev_counters *c = NULL;
	unsigned int i;
	int rem;

	if (!tb[IOLAT_A_DEV_COUNTERS] ||
	    nla_parse_nested(t, IOLAT_CNT_A_MAX, tb[IOLAT_A_DEV_COUNTERS],
			     NULL) < 0)
		return 0;
	for (i = 0; i < ctx->nr; i++)
		if (ctx->c[i].major == get_u32(t, IOLAT_CNT_A_MAJOR) &&
		    ctx->c[i].minor == get_u32(t, IOLAT_CNT_A_MINOR))
			c = &ctx->c[i];
	if (!c)
		return 0;
	if (t[IOLAT_CNT_A_NOW_NS]) {	/* the first message of a device */
		c->valid = true;
		c->start_ns = get_u64(t, IOLAT_CNT_A_START_NS);
		c->now_ns = get_u64(t, IOLAT_CNT_A_NOW_NS);
		c->busy_ns = get_u64(t, IOLAT_CNT_A_BUSY_NS);
		c->qbusy_ns = get_u64(t, IOLAT_CNT_A_QBUSY_NS);
		c->inflight_ns = get_u64(t, IOLAT_CNT_A_INFLIGHT_NS);
		c->qinflight_ns = get_u64(t, IOLAT_CNT_A_QINFLIGHT_NS);
		c->queued = get_u32(t, IOLAT_CNT_A_QUEUED);
		c->issued = get_u32(t, IOLAT_CNT_A_ISSUED);
		c->issues = get_u64(t, IOLAT_CNT_A_ISSUES);
		c->qd_sum = get_u64(t, IOLAT_CNT_A_QD_SUM);
		get_u64s(t, IOLAT_CNT_A_IOS, c->ios, IOLAT_OP_NR);
		get_u64s(t, IOLAT_CNT_A_BYTES, c->bytes, IOLAT_OP_NR);
		get_u64s(t, IOLAT_CNT_A_WAIT_NS, c->wait_ns, IOLAT_OP_NR);
		get_u64s(t, IOLAT_CNT_A_QD_HIST, c->qd_hist, IOLAT_QD_BUCKETS);
		get_u64s(t, IOLAT_CNT_A_AGG_IOS, c->agg_ios, IOLAT_OP_NR);
		get_u64s(t, IOLAT_CNT_A_AGG_BYTES, c->agg_bytes, IOLAT_OP_NR);
		c->has_below = t[IOLAT_CNT_A_BELOW_NS] != NULL;
		get_u64s(t, IOLAT_CNT_A_BELOW_IOS, c->below_ios, IOLAT_OP_NR);
		get_u64s(t, IOLAT_CNT_A_BELOW_NS, c->below_ns, IOLAT_OP_NR);
	}
	nla_for_each_nested(nla, tb[IOLAT_A_DEV_COUNTERS], rem)
		if (nla_type(nla) == IOLAT_CNT_A_HWQ)
			hwq_reply(c, nla);
	return 0;
}

/**
 * iolat_nl_counters() - the session's counters of some devices
 * @nl: the session's socket
 * @c: the devices, major, minor, nr_hwq and hwqs set; the rest is filled
 *     in, and valid set for each device the module reported
 * @nr: how many
 *
 * Return: 0 or a negative errno.
 */
int iolat_nl_counters(struct iolat_nl *nl, struct iolat_dev_counters *c,
		      unsigned int nr)
{
	struct counters_ctx ctx = { .c = c, .nr = nr };
	struct nl_msg *msg = nl_request(nl, IOLAT_CMD_COUNTERS, NLM_F_DUMP);
	unsigned int i;

	for (i = 0; i < nr; i++)
		c[i].valid = false;
	if (!msg)
		return -ENOMEM;
	return nl_transact(nl, msg, counters_reply, &ctx);
}

struct hist_ctx {
	const struct iolat_dev_counters *c;	/* which device is which */
	struct iolat_agg *agg;
	unsigned int nr;
	iolat_cg_hist_fn cg;
	void *cg_arg;
};

/* One message of an aggregating session's histogram (IOLAT_CMD_HIST). */
static int hist_reply(struct iolat_req *req, struct nlattr **tb)
{
	struct hist_ctx *ctx = req->arg;
	struct nlattr *t[IOLAT_HIST_A_MAX + 1];
	struct iolat_hist *h = NULL;
	uint32_t op, stage, first;
	unsigned int i;
	size_t n;

	if (!tb[IOLAT_A_HIST] ||
	    nla_parse_nested(t, IOLAT_HIST_A_MAX, tb[IOLAT_A_HIST], NULL) < 0)
		return 0;
	op = get_u32(t, IOLAT_HIST_A_OP);
	stage = get_u32(t, IOLAT_HIST_A_STAGE);
	if (t[IOLAT_HIST_A_CGROUP])	/* a cgroup slot's (IOLAT_A_CGROUP_SLOTS) */
		h = ctx->cg ? ctx->cg(ctx->cg_arg,
				      get_u32(t, IOLAT_HIST_A_MAJOR),
				      get_u32(t, IOLAT_HIST_A_MINOR),
				      get_u64(t, IOLAT_HIST_A_CGROUP)) : NULL;
	for (i = 0; !t[IOLAT_HIST_A_CGROUP] && i < ctx->nr && op < IOLAT_OP_NR;
	     i++)
		if (ctx->c[i].major == get_u32(t, IOLAT_HIST_A_MAJOR) &&
		    ctx->c[i].minor == get_u32(t, IOLAT_HIST_A_MINOR))
			h = iolat_agg_hist(&ctx->agg[i], op, stage);
	if (!h)
		return 0;
	if (t[IOLAT_HIST_A_COUNT]) {	/* the first message of a histogram */
		iolat_hist_init(h);
		h->count = get_u64(t, IOLAT_HIST_A_COUNT);
		h->sum = get_u64(t, IOLAT_HIST_A_SUM_NS);
		h->min = h->count ? get_u64(t, IOLAT_HIST_A_MIN_NS) : ~0ULL;
		h->max = get_u64(t, IOLAT_HIST_A_MAX_NS);
		h->overflow = get_u64(t, IOLAT_HIST_A_OVERFLOW);
		h->sumsq_lo = get_u64(t, IOLAT_HIST_A_SUMSQ_LO);
		h->sumsq_hi = get_u64(t, IOLAT_HIST_A_SUMSQ_HI);
	}
	first = get_u32(t, IOLAT_HIST_A_FIRST_BIN);
	if (!t[IOLAT_HIST_A_BINS] || first >= IOLAT_HIST_NR_BINS)
		return 0;
	n = nla_len(t[IOLAT_HIST_A_BINS]) / sizeof(uint64_t);
	if (n > IOLAT_HIST_NR_BINS - first)
		n = IOLAT_HIST_NR_BINS - first;
	memcpy(&h->bins[first], nla_data(t[IOLAT_HIST_A_BINS]),
	       n * sizeof(uint64_t));
	return 0;
}

/**
 * iolat_nl_hist() - an aggregating session's histograms, now
 * @nl: the session's socket
 * @c: the devices, as for iolat_nl_counters() (major and minor)
 * @agg: [@nr], one per device, filled in; histograms not sent are empty
 * @nr: number of devices
 *
 * Return: 0 or a negative errno (iolat_nl_errmsg() says more).
 */
int iolat_nl_hist(struct iolat_nl *nl, const struct iolat_dev_counters *c,
		  struct iolat_agg *agg, unsigned int nr)
{
	return iolat_nl_hist_cg(nl, c, agg, nr, NULL, NULL);
}

/**
 * iolat_nl_hist_cg() - iolat_nl_hist(), with the cgroup slots' histograms
 * @nl: the session's socket
 * @c: the devices
 * @agg: [@nr], filled in
 * @nr: number of devices
 * @cg: where each cgroup slot's histogram goes, or NULL
 * @cg_arg: for @cg
 *
 * Return: 0 or a negative errno.
 */
int iolat_nl_hist_cg(struct iolat_nl *nl, const struct iolat_dev_counters *c,
		     struct iolat_agg *agg, unsigned int nr,
		     iolat_cg_hist_fn cg, void *cg_arg)
{
	struct hist_ctx ctx = {
		.c = c, .agg = agg, .nr = nr, .cg = cg, .cg_arg = cg_arg,
	};
	struct nl_msg *msg = nl_request(nl, IOLAT_CMD_HIST, NLM_F_DUMP);
	unsigned int i, op, st;

	for (i = 0; i < nr; i++)
		for (op = 0; op < IOLAT_OP_NR; op++)
			for (st = 0; st < IOLAT_AGG_STAGES; st++)
				iolat_hist_init(&agg[i].h[op][st]);
	if (!msg)
		return -ENOMEM;
	return nl_transact(nl, msg, hist_reply, &ctx);
}

struct cgroups_ctx {
	iolat_cg_fn fn;
	void *arg;
};

/* One cgroup slot of a device (IOLAT_CMD_CGROUPS). */
static int cgroups_reply(struct iolat_req *req, struct nlattr **tb)
{
	struct cgroups_ctx *ctx = req->arg;
	struct nlattr *t[IOLAT_CGROUP_A_MAX + 1];
	struct iolat_cg_counts c = { 0 };

	if (!tb[IOLAT_A_CGROUP] ||
	    nla_parse_nested(t, IOLAT_CGROUP_A_MAX, tb[IOLAT_A_CGROUP],
			     NULL) < 0)
		return 0;
	c.major = get_u32(t, IOLAT_CGROUP_A_MAJOR);
	c.minor = get_u32(t, IOLAT_CGROUP_A_MINOR);
	c.id = get_u64(t, IOLAT_CGROUP_A_ID);
	get_u64s(t, IOLAT_CGROUP_A_IOS, c.ios, IOLAT_OP_NR);
	get_u64s(t, IOLAT_CGROUP_A_BYTES, c.bytes, IOLAT_OP_NR);
	get_u64s(t, IOLAT_CGROUP_A_WAIT_NS, c.wait_ns, IOLAT_OP_NR);
	ctx->fn(ctx->arg, &c);
	return 0;
}

/**
 * iolat_nl_cgroups() - a session's cgroup slots (IOLAT_A_CGROUP_SLOTS)
 * @nl: the session's socket
 * @fn: called for each slot of each device that has requests
 * @arg: for @fn
 *
 * Return: 0 or a negative errno (iolat_nl_errmsg() says more).
 */
int iolat_nl_cgroups(struct iolat_nl *nl, iolat_cg_fn fn, void *arg)
{
	struct cgroups_ctx ctx = { .fn = fn, .arg = arg };
	struct nl_msg *msg = nl_request(nl, IOLAT_CMD_CGROUPS, NLM_F_DUMP);

	if (!msg)
		return -ENOMEM;
	return nl_transact(nl, msg, cgroups_reply, &ctx);
}

/**
 * iolat_nl_cgroups_free() - free cgroup slots (IOLAT_CMD_CGROUPS_FREE)
 * @nl: the session's socket
 * @c: the slots: major, minor and id each
 * @nr: how many, at least one
 *
 * Their counts go to the others' slot of their device.
 * Return: 0 or a negative errno (iolat_nl_errmsg() says more).
 */
int iolat_nl_cgroups_free(struct iolat_nl *nl, const struct iolat_cg_counts *c,
			  unsigned int nr)
{
	struct nl_msg *msg = nl_request_size(nl, IOLAT_CMD_CGROUPS_FREE, 0,
					     256 + (size_t)nr * 48);
	struct nlattr *nest;
	unsigned int i;

	if (!msg)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		nest = nla_nest_start(msg, IOLAT_A_CGROUP);
		if (!nest || nla_put_u32(msg, IOLAT_CGROUP_A_MAJOR, c[i].major) ||
		    nla_put_u32(msg, IOLAT_CGROUP_A_MINOR, c[i].minor) ||
		    nla_put_u64(msg, IOLAT_CGROUP_A_ID, c[i].id)) {
			nlmsg_free(msg);
			return -ENOMEM;
		}
		nla_nest_end(msg, nest);
	}
	return nl_transact(nl, msg, NULL, NULL);
}

struct clock_ctx {
	struct iolat_clock_result *res;
	unsigned int max, nr;
};

static void clock_pair(struct iolat_clock_result *r, struct nlattr *nla)
{
	struct nlattr *tb[IOLAT_PAIR_A_MAX + 1];

	if (r->nr_pairs == IOLAT_MAX_CLOCK_PAIRS ||
	    nla_parse_nested(tb, IOLAT_PAIR_A_MAX, nla, NULL) < 0)
		return;
	r->pairs[r->nr_pairs].from = get_u32(tb, IOLAT_PAIR_A_FROM);
	r->pairs[r->nr_pairs].to = get_u32(tb, IOLAT_PAIR_A_TO);
	r->pairs[r->nr_pairs].count = get_u64(tb, IOLAT_PAIR_A_COUNT);
	r->nr_pairs++;
}

static int clock_reply(struct iolat_req *req, struct nlattr **tb)
{
	struct clock_ctx *ctx = req->arg;
	struct genlmsghdr *gnlh = nlmsg_data(req->nlh);
	struct nlattr *nla, *t[IOLAT_CLOCK_A_MAX + 1], *p;
	struct iolat_clock_result *r;
	int rem, prem;

	(void)tb;
	nla_for_each_attr(nla, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(nla) != IOLAT_A_CLOCK || ctx->nr == ctx->max ||
		    nla_parse_nested(t, IOLAT_CLOCK_A_MAX, nla, NULL) < 0)
			continue;
		r = &ctx->res[ctx->nr++];
		memset(r, 0, sizeof(*r));
		if (t[IOLAT_CLOCK_A_NAME])
			snprintf(r->name, sizeof(r->name), "%s",
				 nla_get_string(t[IOLAT_CLOCK_A_NAME]));
		if (t[IOLAT_CLOCK_A_UNITS])
			snprintf(r->units, sizeof(r->units), "%s",
				 nla_get_string(t[IOLAT_CLOCK_A_UNITS]));
		r->in_use = t[IOLAT_CLOCK_A_IN_USE];
		r->read_ps = get_u64(t, IOLAT_CLOCK_A_READ_PS);
		r->samples = get_u64(t, IOLAT_CLOCK_A_SAMPLES);
		r->inversions = get_u64(t, IOLAT_CLOCK_A_INVERSIONS);
		r->max_back = get_u64(t, IOLAT_CLOCK_A_MAX_BACK);
		nla_for_each_nested(p, nla, prem)
			if (nla_type(p) == IOLAT_CLOCK_A_PAIR)
				clock_pair(r, p);
	}
	return 0;
}

/**
 * iolat_nl_clocktest() - run the module's clock test
 * @nl: a socket
 * @loops: reads per CPU and clock, 0 for the module's default
 * @res: the clocks' results
 * @max: room in @res
 * @nr: set to the number of clocks
 *
 * Return: 0 or a negative errno.
 */
int iolat_nl_clocktest(struct iolat_nl *nl, uint32_t loops,
		       struct iolat_clock_result *res, unsigned int max,
		       unsigned int *nr)
{
	struct clock_ctx ctx = { .res = res, .max = max };
	struct nl_msg *msg = nl_request(nl, IOLAT_CMD_CLOCKTEST, 0);
	int err;

	if (!msg)
		return -ENOMEM;
	if (loops && nla_put_u32(msg, IOLAT_A_CLOCK_LOOPS, loops)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = nl_transact(nl, msg, clock_reply, &ctx);
	*nr = ctx.nr;
	return err;
}
