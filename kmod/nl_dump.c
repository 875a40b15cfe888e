// SPDX-License-Identifier: GPL-2.0
/*
 * The dumps: READ (a session's records from the per-CPU buffers, and its
 * events), COUNTERS (each device's busy time, depths and counts) and
 * HIST (an aggregating session's histograms); and the session counters
 * as STOP and WATCH send them
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <net/genetlink.h>
#include <linux/slab.h>
#include "acct.h"
#include "agg.h"
#include "cgstat.h"
#include "upper.h"
#include "cpus.h"
#include "netlink.h"
#include "watch.h"

/* The session counters, STOP's and WATCH's replies' IOLAT_A_STATS. */
static const u8 iolat_nl_stat_attr[] = {
#define IOLAT_STAT(field, ATTR, ...) IOLAT_STAT_A_##ATTR,
#include <linux/iolat_stats.h>
};

int iolat_nl_put_stats(struct sk_buff *msg, const struct iolat_cpu_stats *st)
{
	struct nlattr *nest = nla_nest_start(msg, IOLAT_A_STATS);
	unsigned int i;

	if (!nest)
		return -EMSGSIZE;
	BUILD_BUG_ON(ARRAY_SIZE(iolat_nl_stat_attr) != IOLAT_STAT_NR);
	for (i = 0; i < IOLAT_STAT_NR; i++)
		if (nla_put_u64_64bit(msg, iolat_nl_stat_attr[i], st->n[i],
				      IOLAT_STAT_A_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * The session of a dump's reader, locked.  Checked by each ->dumpit(),
 * never by ->start(): before v6.5 ("netlink: support extack in dump
 * ->start()") a start has no extack, and the reason for an error there
 * never reaches the reader.  A dump's errors, with their messages, end
 * it in NLMSG_DONE instead.
 */
struct iolat_session *iolat_nl_dump_session(struct netlink_callback *cb)
{
	if (!iolat_nl_capable(cb->skb, iolat_cb_extack(cb)))
		return ERR_PTR(-EPERM);
	return iolat_session_lock(NETLINK_CB(cb->skb).portid,
				  iolat_cb_extack(cb));
}

/*
 * One message with as many of @cpu's records as fit in @skb, and as
 * @left allows: the records the CPU has left to give in this dump, plus
 * one.  Each slot's sequence is read once, by the copy, which stops at
 * the first record still being written: the CPU has given all it can
 * in this dump then.
 * Return: true if records are left to give that did not fit.
 */
static bool iolat_nl_read_cpu(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct genl_family *fam,
			      struct iolat_session *s, struct iolat_ring *r,
			      int cpu, unsigned int size, unsigned long *left)
{
	unsigned int want, room, n;
	struct nlattr *nla;
	void *hdr;

	want = min_t(unsigned long, *left - 1, (U16_MAX - NLA_HDRLEN) / size);
	if (!want)
		return false;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  fam, NLM_F_MULTI, IOLAT_CMD_READ);
	if (!hdr)
		return true;
	if (nla_put_u32(skb, IOLAT_A_CPU, cpu) ||
	    nla_put_u32(skb, IOLAT_A_RECORD_SIZE, size))
		goto full;
	room = skb_tailroom(skb);
	n = room > NLA_HDRLEN ? min(want, (room - NLA_HDRLEN) / size) : 0;
	if (!n)
		goto full;
	nla = nla_reserve(skb, IOLAT_A_RECORDS, n * size);
	if (!nla)
		goto full;
	want = n;
	n = iolat_ring_read(r, nla_data(nla), want, size);
	if (!n) {
		genlmsg_cancel(skb, hdr);
		*left = 1;
		return false;
	}
	if (n < want) {
		/* the attribute ends after the records copied */
		nla->nla_len = nla_attr_size(n * size);
		skb_trim(skb, (unsigned char *)nla + nla_total_size(n * size) -
			      skb->data);
		*left = n + 1;
	}
	iolat_count_task(s, IOLAT_S_COPIED, n);
	genlmsg_end(skb, hdr);
	*left -= n;
	return *left > 1;
full:
	genlmsg_cancel(skb, hdr);
	return true;
}

/*
 * The session's events since the last READ, in a message of their own;
 * the session is locked.
 */
static void iolat_nl_read_events(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 const struct genl_family *fam,
				 struct iolat_session *s)
{
	const struct iolat_event *ev = s->events;
	unsigned int n = s->nr_events, i;
	struct nlattr *nest;
	void *hdr;

	if (!n)
		return;
	s->nr_events = 0;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  fam, NLM_F_MULTI, IOLAT_CMD_READ);
	if (!hdr)
		goto lost;
	for (i = 0; i < n; i++) {
		nest = nla_nest_start(skb, IOLAT_A_EVENT);
		if (!nest ||
		    nla_put_u64_64bit(skb, IOLAT_EVENT_A_TIME_NS, ev[i].ns,
				      IOLAT_EVENT_A_PAD) ||
		    nla_put_u32(skb, IOLAT_EVENT_A_KIND, ev[i].kind) ||
		    nla_put_string(skb, IOLAT_EVENT_A_MODULE, ev[i].module)) {
			genlmsg_cancel(skb, hdr);
			goto lost;
		}
		nla_nest_end(skb, nest);
	}
	genlmsg_end(skb, hdr);
	return;
lost:
	iolat_count_task(s, IOLAT_S_EVENTS_LOST, n);
}

/*
 * READ dump state: args[0] the CPU being drained (0 at the start), and
 * args[1] the records it has left to give, plus one (0: not counted
 * yet).  A CPU gives at most the records it had reserved when the dump
 * came to it, up to the first one still being written, so that a dump
 * ends however fast records come in.
 */
int iolat_nl_read_dump(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct genl_family *fam)
{
	struct iolat_session *s;
	struct iolat_ring *r;
	struct iolat_cpu *c;
	unsigned int size;
	int cpu;

	s = iolat_nl_dump_session(cb);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (!cb->args[0])
		iolat_nl_read_events(skb, cb, fam, s);
	/* the part of its records the session sends (ring.h) */
	BUILD_BUG_ON(offsetof(struct iolat_record, cgroup) !=
		     IOLAT_RECORD_BLOCK_SIZE);
	BUILD_BUG_ON(offsetof(struct iolat_record, nvme_setup_ns) !=
		     IOLAT_RECORD_CGROUP_SIZE);
	size = s->record_size;
	/* a flight recorder's rings are copied only frozen (watch.h) */
	for (cpu = iolat_watch_readable(s) ? cb->args[0] : nr_cpu_ids;
	     cpu < nr_cpu_ids; cpu++, cb->args[1] = 0) {
		/*
		 * A CPU with a part: possible, and online since the start;
		 * not one whose ring its reader maps (ring_map.c)
		 */
		c = iolat_cpu_of(s, cpu);
		if (!c || c->ring.mapped)
			continue;
		r = &c->ring;
		if (!cb->args[1])
			cb->args[1] = iolat_ring_pending(r) + 1;
		if (iolat_nl_read_cpu(skb, cb, fam, s, r, cpu, size,
				      &cb->args[1]))
			break;
	}
	cb->args[0] = cpu;
	iolat_session_unlock();
	/*
	 * Every CPU done: 0 ends the dump, and netlink puts NLMSG_DONE
	 * after the records in this skb, not in one of its own (a dump's
	 * skb is 32 KiB, zeroed where init_on_alloc is on, as on Debian)
	 */
	return cpu < nr_cpu_ids ? skb->len : 0;
}

static int iolat_nl_put_hwqs(struct sk_buff *skb, struct iolat_session *s,
			     struct iolat_dev *d, u64 now, u32 *next)
{
	u64 busy[IOLAT_NR_SPANS], n;
	struct nlattr *nest;

	for (; *next < d->nr_hwq; (*next)++) {
		iolat_acct_hwq_busy(s, d, *next, now, busy);
		/* queued and issued from one reading of the count */
		n = iolat_n_counts(atomic64_read(&d->hwqs[*next].n),
				   d->nr_hwq);
		nest = nla_nest_start(skb, IOLAT_CNT_A_HWQ);
		if (!nest ||
		    nla_put_u32(skb, IOLAT_HWQ_A_INDEX, *next) ||
		    nla_put_u64_64bit(skb, IOLAT_HWQ_A_BUSY_NS,
				      busy[IOLAT_SPAN_DEV], IOLAT_HWQ_A_PAD) ||
		    nla_put_u64_64bit(skb, IOLAT_HWQ_A_QBUSY_NS,
				      busy[IOLAT_SPAN_QUEUE], IOLAT_HWQ_A_PAD) ||
		    nla_put_u32(skb, IOLAT_HWQ_A_QUEUED, iolat_n_queued(n)) ||
		    nla_put_u32(skb, IOLAT_HWQ_A_ISSUED, iolat_n_issued(n))) {
			if (nest)
				nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int iolat_nl_put_snap(struct sk_buff *skb, const struct iolat_session *s,
			     const struct iolat_dev *d,
			     const struct iolat_acct_snap *a)
{
	const struct {
		int attr;
		u64 v;
	} u64s[] = {
		{ IOLAT_CNT_A_START_NS, d->start_ns },
		{ IOLAT_CNT_A_NOW_NS, a->now_ns },
		{ IOLAT_CNT_A_BUSY_NS, a->busy_ns },
		{ IOLAT_CNT_A_QBUSY_NS, a->qbusy_ns },
		{ IOLAT_CNT_A_INFLIGHT_NS, a->inflight_ns },
		{ IOLAT_CNT_A_QINFLIGHT_NS, a->qinflight_ns },
		{ IOLAT_CNT_A_ISSUES, a->issues },
		{ IOLAT_CNT_A_QD_SUM, a->qd_sum },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(u64s); i++)
		if (nla_put_u64_64bit(skb, u64s[i].attr, u64s[i].v,
				      IOLAT_CNT_A_PAD))
			return -EMSGSIZE;
	if (s->aggregate) {
		u64 ios[IOLAT_OP_NR], bytes[IOLAT_OP_NR];

		iolat_agg_counts(d, ios, bytes);
		if (nla_put(skb, IOLAT_CNT_A_AGG_IOS, sizeof(ios), ios) ||
		    nla_put(skb, IOLAT_CNT_A_AGG_BYTES, sizeof(bytes), bytes))
			return -EMSGSIZE;
	}
	if (nla_put_u32(skb, IOLAT_CNT_A_QUEUED, a->queued) ||
	    nla_put_u32(skb, IOLAT_CNT_A_ISSUED, a->issued) ||
	    nla_put(skb, IOLAT_CNT_A_IOS, sizeof(a->ios), a->ios) ||
	    nla_put(skb, IOLAT_CNT_A_BYTES, sizeof(a->bytes), a->bytes) ||
	    nla_put(skb, IOLAT_CNT_A_WAIT_NS, sizeof(a->wait_ns), a->wait_ns) ||
	    nla_put(skb, IOLAT_CNT_A_QD_HIST, sizeof(a->qd_hist), a->qd_hist))
		return -EMSGSIZE;
	if (d->upper && s->links &&
	    (nla_put(skb, IOLAT_CNT_A_BELOW_IOS, sizeof(a->below_ios),
		     a->below_ios) ||
	     nla_put(skb, IOLAT_CNT_A_BELOW_NS, sizeof(a->below_ns),
		     a->below_ns)))
		return -EMSGSIZE;
	return 0;
}

/*
 * One message of device @d's counters: the totals and queues from 0 if
 * *@next is 0, else the queues from *@next on.
 * Return: 0 when the device is done, -EMSGSIZE if more is to come.
 */
static int iolat_nl_counters_dev(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 const struct genl_family *fam,
				 struct iolat_session *s, struct iolat_dev *d,
				 u32 *next)
{
	struct {
		struct iolat_acct_snap snap;
		struct iolat_acct_cpu cpu;
	} *buf;
	struct iolat_acct_snap *snap;
	struct nlattr *nest;
	u32 first = *next;
	void *hdr;
	int err;

	buf = kmalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	snap = &buf->snap;
	iolat_acct_snapshot(s, d, snap, &buf->cpu);
	err = -EMSGSIZE;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  fam, NLM_F_MULTI, IOLAT_CMD_COUNTERS);
	if (!hdr)
		goto out;
	nest = nla_nest_start(skb, IOLAT_A_DEV_COUNTERS);
	if (!nest ||
	    nla_put_u32(skb, IOLAT_CNT_A_MAJOR, MAJOR(d->id)) ||
	    nla_put_u32(skb, IOLAT_CNT_A_MINOR, MINOR(d->id)) ||
	    (!first && iolat_nl_put_snap(skb, s, d, snap))) {
		genlmsg_cancel(skb, hdr);
		goto out;
	}
	err = iolat_nl_put_hwqs(skb, s, d, snap->now_ns, next);
	if (err && *next == first) {	/* not one queue fitted */
		genlmsg_cancel(skb, hdr);
		goto out;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
out:
	kfree(buf);
	return err;
}

/* COUNTERS dump state: args[0] the device, args[1] its next queue. */
int iolat_nl_counters_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct genl_family *fam)
{
	struct iolat_session *s;
	u32 next;
	int err = 0;

	s = iolat_nl_dump_session(cb);
	if (IS_ERR(s))
		return PTR_ERR(s);
	for (; cb->args[0] < s->nr_devs; cb->args[0]++, cb->args[1] = 0) {
		next = cb->args[1];
		err = iolat_nl_counters_dev(skb, cb, fam, s,
					    s->devs[cb->args[0]], &next);
		cb->args[1] = next;
		if (err)
			break;
	}
	iolat_session_unlock();
	if (err == -EMSGSIZE && skb->len)
		return skb->len;	/* more in the next message */
	return err ?: skb->len;
}

/*
 * HIST dump state: args[0] the device, args[1] its histogram (op *
 * IOLAT_AGG_NR_STAGES + stage), args[2] the next bin to send (0: a new
 * histogram, to be summed), args[3] the sum being sent, allocated by the
 * first call (netlink starts every dump with its args at 0, so the dumps
 * need no ->start()).
 */
int iolat_nl_hist_done(struct netlink_callback *cb)
{
	kvfree((void *)cb->args[3]);
	return 0;
}

static int iolat_nl_hist_totals(struct sk_buff *skb,
				const struct iolat_hist *h)
{
	const struct {
		int attr;
		u64 v;
	} u64s[] = {
		{ IOLAT_HIST_A_COUNT, h->count },
		{ IOLAT_HIST_A_SUM_NS, h->sum },
		{ IOLAT_HIST_A_MIN_NS, h->count ? h->min : 0 },
		{ IOLAT_HIST_A_MAX_NS, h->max },
		{ IOLAT_HIST_A_OVERFLOW, h->overflow },
		{ IOLAT_HIST_A_SUMSQ_LO, h->sumsq_lo },
		{ IOLAT_HIST_A_SUMSQ_HI, h->sumsq_hi },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(u64s); i++)
		if (nla_put_u64_64bit(skb, u64s[i].attr, u64s[i].v,
				      IOLAT_HIST_A_PAD))
			return -EMSGSIZE;
	return 0;
}

/* The device's histograms: IOLAT_OP_NR ops by IOLAT_AGG_NR_STAGES stages */
#define IOLAT_NL_DEV_HISTS	(IOLAT_OP_NR * IOLAT_AGG_NR_STAGES)

/*
 * Which histogram @idx of device @d is: an op's stage, or from
 * IOLAT_NL_DEV_HISTS on a cgroup slot's Q2C (cgstat.h).
 */
static int iolat_nl_hist_which(struct sk_buff *skb, const struct iolat_dev *d,
			       unsigned int idx)
{
	unsigned int slot = idx - IOLAT_NL_DEV_HISTS;

	if (idx < IOLAT_NL_DEV_HISTS)
		return nla_put_u32(skb, IOLAT_HIST_A_OP,
				   idx / IOLAT_AGG_NR_STAGES) ||
		       nla_put_u32(skb, IOLAT_HIST_A_STAGE,
				   iolat_agg_dev_stage(d, idx % IOLAT_AGG_NR_STAGES));
	return nla_put_u64_64bit(skb, IOLAT_HIST_A_CGROUP,
				 iolat_cgstat_id(d->cg, slot), IOLAT_HIST_A_PAD) ||
	       nla_put_u32(skb, IOLAT_HIST_A_STAGE, IOLAT_AGG_STAGE_Q2C);
}

/* How many histograms @d has: its own, and its cgroup slots'. */
static unsigned int iolat_nl_dev_hists(const struct iolat_dev *d)
{
	return IOLAT_NL_DEV_HISTS + (d->cg && d->cg->hist ? d->cg->nr + 1 : 0);
}

/*
 * One message of histogram @h of device @d from bin *@next on, as many
 * bins as fit; *@next is set past the last bin sent, or to
 * IOLAT_HIST_NR_BINS when the rest are 0.
 * Return: 0, or -EMSGSIZE if not even the head fitted.
 */
static int iolat_nl_hist_msg(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct genl_family *fam,
			     const struct iolat_dev *d, unsigned int idx,
			     const struct iolat_hist *h, unsigned int *next)
{
	unsigned int first = *next, last = IOLAT_HIST_NR_BINS, n, room;
	struct nlattr *nest, *bins;
	void *hdr;

	while (first < IOLAT_HIST_NR_BINS && !h->bins[first])
		first++;
	while (last > first && !h->bins[last - 1])
		last--;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  fam, NLM_F_MULTI, IOLAT_CMD_HIST);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, IOLAT_A_HIST);
	if (!nest ||
	    nla_put_u32(skb, IOLAT_HIST_A_MAJOR, MAJOR(d->id)) ||
	    nla_put_u32(skb, IOLAT_HIST_A_MINOR, MINOR(d->id)) ||
	    iolat_nl_hist_which(skb, d, idx) ||
	    (!*next && iolat_nl_hist_totals(skb, h)) ||
	    nla_put_u32(skb, IOLAT_HIST_A_FIRST_BIN, first))
		goto full;
	/* room for the BINS header, the nest's and the message's ends */
	room = skb_tailroom(skb);
	n = room > 2 * NLA_HDRLEN ? (room - 2 * NLA_HDRLEN) / sizeof(u64) : 0;
	n = min(n, last - first);
	if (!n && first < last)
		goto full;
	bins = nla_reserve(skb, IOLAT_HIST_A_BINS, n * sizeof(u64));
	if (!bins)
		goto full;
	memcpy(nla_data(bins), &h->bins[first], n * sizeof(u64));
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	*next = first + n < last ? first + n : IOLAT_HIST_NR_BINS;
	return 0;
full:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Histogram @idx of @d (iolat_nl_hist_which()), summed into @h. */
static void iolat_nl_hist_sum(const struct iolat_dev *d, unsigned int idx,
			      struct iolat_hist *h)
{
	if (idx < IOLAT_NL_DEV_HISTS)
		iolat_agg_sum(d, idx / IOLAT_AGG_NR_STAGES,
			      idx % IOLAT_AGG_NR_STAGES, h);
	else
		iolat_cgstat_hist(d, idx - IOLAT_NL_DEV_HISTS, h);
}

int iolat_nl_hist_dump(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct genl_family *fam)
{
	struct iolat_hist *h = (struct iolat_hist *)cb->args[3];
	struct iolat_session *s;
	struct iolat_dev *d;
	unsigned int next;
	int err = 0;

	s = iolat_nl_dump_session(cb);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (!s->aggregate) {
		iolat_session_unlock();
		NL_SET_ERR_MSG(iolat_cb_extack(cb),
			       "the session does not aggregate");
		return -EINVAL;
	}
	if (!h) {
		h = kvmalloc(sizeof(*h), GFP_KERNEL);
		if (!h) {
			iolat_session_unlock();
			return -ENOMEM;
		}
		cb->args[3] = (long)h;
	}
	for (; cb->args[0] < s->nr_devs; cb->args[0]++, cb->args[1] = 0) {
		d = s->devs[cb->args[0]];
		for (; cb->args[1] < iolat_nl_dev_hists(d);
		     cb->args[1]++, cb->args[2] = 0) {
			if (!cb->args[2]) {
				iolat_nl_hist_sum(d, cb->args[1], h);
				if (!h->count)
					continue;
			}
			do {
				next = cb->args[2];
				err = iolat_nl_hist_msg(skb, cb, fam, d, cb->args[1],
							h, &next);
				if (err)
					goto out;
				cb->args[2] = next;
			} while (next < IOLAT_HIST_NR_BINS);
		}
	}
out:
	iolat_session_unlock();
	if (err == -EMSGSIZE && skb->len)
		return skb->len;	/* more in the next message */
	return err ?: skb->len;
}
