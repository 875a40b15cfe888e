// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "iolat": the CLI's door to sessions and the
 * drain of the per-CPU record buffers.  Attributes are validated by
 * strict policies; every error carries an extended-ack message.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/log2.h>
#include <linux/notifier.h>
#include <linux/cpumask.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <linux/slab.h>
#include <linux/kdev_t.h>
#include "acct.h"
#include "agg.h"
#include "clocktest.h"
#include "upper.h"

/*
 * Every range in a struct netlink_range_validation, validated by the
 * policy where the kernel can, by iolat_nl_validate() where it cannot
 * (compat.h).
 */
static struct netlink_range_validation iolat_major_range = {
	.min = 1,
	.max = (1U << 12) - 1,
};

static struct netlink_range_validation iolat_minor_range = {
	.max = MINORMASK,
};

static struct netlink_range_validation iolat_hwq_range = {
	.min = 1,
	.max = IOLAT_MAX_HWQ,
};

static struct netlink_range_validation iolat_depth_range = {
	.min = 1,
	.max = IOLAT_MAX_DEPTH,
};

static struct netlink_range_validation iolat_nvme_ctrl_range = {
	.max = U16_MAX,
};

static struct netlink_range_validation iolat_ring_range = {
	.min = IOLAT_RING_MIN,
	.max = IOLAT_RING_MAX,
};

static const struct nla_policy iolat_dev_policy[IOLAT_DEV_A_MAX + 1] = {
	[IOLAT_DEV_A_MAJOR] = IOLAT_NLA_U32_RANGE(&iolat_major_range),
	[IOLAT_DEV_A_MINOR] = IOLAT_NLA_U32_RANGE(&iolat_minor_range),
	[IOLAT_DEV_A_NR_HWQ] = IOLAT_NLA_U32_RANGE(&iolat_hwq_range),
	[IOLAT_DEV_A_DEPTH] = IOLAT_NLA_U32_RANGE(&iolat_depth_range),
	[IOLAT_DEV_A_NVME_CTRL] = IOLAT_NLA_U32_RANGE(&iolat_nvme_ctrl_range),
	[IOLAT_DEV_A_DISK_MAJOR] = IOLAT_NLA_U32_RANGE(&iolat_major_range),
	[IOLAT_DEV_A_DISK_MINOR] = IOLAT_NLA_U32_RANGE(&iolat_minor_range),
	[IOLAT_DEV_A_START] = { .type = NLA_U64 },
	[IOLAT_DEV_A_SECTORS] = { .type = NLA_U64 },
	[IOLAT_DEV_A_BIO_BASED] = { .type = NLA_FLAG },
	[IOLAT_DEV_A_LOWER] = { .type = NLA_FLAG },
};

static struct netlink_range_validation iolat_ops_range = {
	.min = 1,
	.max = (1U << IOLAT_OP_NR) - 1,
};

static struct netlink_range_validation iolat_pid_range = {
	.min = 1,
	.max = PID_MAX_LIMIT,
};

static struct netlink_range_validation iolat_clock_loops_range = {
	.min = IOLAT_CLOCK_LOOPS_MIN,
	.max = IOLAT_CLOCK_LOOPS_MAX,
};

/* Attributes absent here are replies only; strict validation rejects them. */
static const struct nla_policy iolat_policy[IOLAT_A_MAX + 1] = {
	[IOLAT_A_DEV] = IOLAT_NLA_NESTED(iolat_dev_policy),
	[IOLAT_A_RING_RECORDS] = IOLAT_NLA_U32_RANGE(&iolat_ring_range),
	[IOLAT_A_FILTER_OPS] = IOLAT_NLA_U32_RANGE(&iolat_ops_range),
	[IOLAT_A_FILTER_PID] = IOLAT_NLA_U32_RANGE(&iolat_pid_range),
	[IOLAT_A_FILTER_TGID] = IOLAT_NLA_U32_RANGE(&iolat_pid_range),
	[IOLAT_A_FILTER_COMM] = { .type = NLA_NUL_STRING,
				  .len = IOLAT_COMM_LEN - 1 },
	[IOLAT_A_FILTER_MIN_NS] = { .type = NLA_U64 },
	[IOLAT_A_COUNTERS_ONLY] = { .type = NLA_FLAG },
	[IOLAT_A_AGGREGATE] = { .type = NLA_FLAG },
	[IOLAT_A_NVME] = { .type = NLA_FLAG },
	[IOLAT_A_CLOCK_LOOPS] = IOLAT_NLA_U32_RANGE(&iolat_clock_loops_range),
};

/* A request's attributes, validated as a v5.8 kernel does (compat.h). */
static int iolat_nl_validate_info(const struct genl_info *info)
{
	return iolat_nl_validate(nlmsg_attrdata(info->nlhdr, GENL_HDRLEN),
				 nlmsg_attrlen(info->nlhdr, GENL_HDRLEN),
				 iolat_policy, IOLAT_A_MAX, info->extack);
}

static struct genl_family iolat_family;

/* Tracing is CAP_PERFMON's business; CAP_SYS_ADMIN implies it. */
static bool iolat_nl_capable(const struct sk_buff *skb,
			     struct netlink_ext_ack *extack)
{
	if (iolat_capable_perfmon(skb))
		return true;
	NL_SET_ERR_MSG(extack, "iolat needs CAP_PERFMON or CAP_SYS_ADMIN");
	return false;
}

static int iolat_nl_get_info(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	const char *tp;
	unsigned int i;
	void *hdr;
	int err;

	err = iolat_nl_validate_info(info);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &iolat_family, 0, IOLAT_CMD_GET_INFO);
	if (!hdr ||
	    nla_put_u32(msg, IOLAT_A_ABI_VERSION, IOLAT_ABI_VERSION) ||
	    nla_put_string(msg, IOLAT_A_MODULE_VERSION, IOLAT_VERSION) ||
	    nla_put_u32(msg, IOLAT_A_RECORD_SIZE, sizeof(struct iolat_record)) ||
	    nla_put_u32(msg, IOLAT_A_NR_CPUS, num_possible_cpus()) ||
	    nla_put_u64_64bit(msg, IOLAT_A_CLOCK_INVERSIONS,
			      iolat_clock_inversions(), IOLAT_A_PAD) ||
	    nla_put_u32(msg, IOLAT_A_NVME_AVAILABLE,
			iolat_attach_nvme_available())) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	for (i = 0; (tp = iolat_attach_missing(i)); i++) {
		if (nla_put_string(msg, IOLAT_A_MISSING_TP, tp)) {
			nlmsg_free(msg);
			return -EMSGSIZE;
		}
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * A partition's disk and range (IOLAT_DEV_A_DISK_MAJOR, _DISK_MINOR,
 * _START, _SECTORS: all or none), or the whole of the disk itself.
 */
static int iolat_nl_parse_part(const struct nlattr *nla, struct nlattr **tb,
			       struct iolat_dev_spec *spec,
			       struct netlink_ext_ack *extack)
{
	int n = !!tb[IOLAT_DEV_A_DISK_MAJOR] + !!tb[IOLAT_DEV_A_DISK_MINOR] +
		!!tb[IOLAT_DEV_A_START] + !!tb[IOLAT_DEV_A_SECTORS];

	spec->disk_major = spec->major;
	spec->disk_minor = spec->minor;
	spec->start = 0;
	spec->sectors = 0;	/* all: last is all ones */
	if (!n)
		return 0;
	if (n != 4) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a partition needs its disk's major and minor, its start and its sectors");
		return -EINVAL;
	}
	spec->disk_major = nla_get_u32(tb[IOLAT_DEV_A_DISK_MAJOR]);
	spec->disk_minor = nla_get_u32(tb[IOLAT_DEV_A_DISK_MINOR]);
	spec->start = nla_get_u64(tb[IOLAT_DEV_A_START]);
	spec->sectors = nla_get_u64(tb[IOLAT_DEV_A_SECTORS]);
	if (!spec->sectors || spec->start + spec->sectors < spec->start ||
	    spec->start + spec->sectors == U64_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IOLAT_DEV_A_SECTORS],
				    "a partition's sectors must be at least 1 and end on the disk");
		return -ERANGE;
	}
	if (spec->disk_major == spec->major &&
	    spec->disk_minor == spec->minor) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IOLAT_DEV_A_DISK_MINOR],
				    "a partition is not its own disk");
		return -EINVAL;
	}
	return 0;
}

static int iolat_nl_parse_dev(const struct nlattr *nla,
			      struct iolat_dev_spec *spec,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IOLAT_DEV_A_MAX + 1];
	int err;

	err = nla_parse_nested(tb, IOLAT_DEV_A_MAX, nla, iolat_dev_policy,
			       extack) ?:
	      iolat_nl_validate(nla_data(nla), nla_len(nla), iolat_dev_policy,
				IOLAT_DEV_A_MAX, extack);
	if (err)
		return err;
	if (!tb[IOLAT_DEV_A_MAJOR] || !tb[IOLAT_DEV_A_MINOR] ||
	    !tb[IOLAT_DEV_A_NR_HWQ] || !tb[IOLAT_DEV_A_DEPTH]) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a device needs major, minor, nr_hwq and depth");
		return -EINVAL;
	}
	spec->major = nla_get_u32(tb[IOLAT_DEV_A_MAJOR]);
	spec->minor = nla_get_u32(tb[IOLAT_DEV_A_MINOR]);
	spec->nr_hwq = nla_get_u32(tb[IOLAT_DEV_A_NR_HWQ]);
	spec->depth = nla_get_u32(tb[IOLAT_DEV_A_DEPTH]);
	spec->nvme_ctrl = tb[IOLAT_DEV_A_NVME_CTRL] ?
			  nla_get_u32(tb[IOLAT_DEV_A_NVME_CTRL]) : -1;
	spec->bio_based = !!tb[IOLAT_DEV_A_BIO_BASED];
	spec->lower = !!tb[IOLAT_DEV_A_LOWER];
	err = iolat_nl_parse_part(nla, tb, spec, extack);
	if (err || !spec->bio_based)
		return err;
	if (spec->lower) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IOLAT_DEV_A_LOWER],
				    "a lower device of a stack has requests: it is not bio-based");
		return -EINVAL;
	}
	if (spec->nr_hwq != 1 || !is_power_of_2(spec->depth) ||
	    spec->depth < IOLAT_UPPER_PROBES) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IOLAT_DEV_A_BIO_BASED],
				    "a bio-based device has one queue and a table of a power of two slots, at least 16");
		return -EINVAL;
	}
	if (spec->sectors || spec->nvme_ctrl >= 0) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IOLAT_DEV_A_BIO_BASED],
				    "a bio-based device is neither a partition nor an NVMe namespace");
		return -EINVAL;
	}
	return 0;
}

static unsigned int iolat_spec_rank(const struct iolat_dev_spec *spec)
{
	return spec->bio_based ? 2 : spec->sectors ? 1 : 0;
}

/*
 * The whole disks first, then the partitions, then the bio-based
 * devices, each in the order given: the session looks them up apart
 * (iolat_session_dev(), upper.h).
 */
static void iolat_nl_order_devs(struct iolat_dev_spec *specs, unsigned int nr)
{
	struct iolat_dev_spec tmp;
	unsigned int i, j;

	/* a stable insertion sort by rank: at most IOLAT_MAX_DEVS */
	for (i = 1; i < nr; i++) {
		tmp = specs[i];
		for (j = i; j > 0 && iolat_spec_rank(&specs[j - 1]) >
				     iolat_spec_rank(&tmp); j--)
			specs[j] = specs[j - 1];
		specs[j] = tmp;
	}
}

/*
 * Two devices that would share requests: the same one twice, or a disk
 * and its partition, or overlapping partitions.
 */
static bool iolat_spec_overlap(const struct iolat_dev_spec *a,
			       const struct iolat_dev_spec *b)
{
	if (a->major == b->major && a->minor == b->minor)
		return true;
	return a->disk_major == b->disk_major &&
	       a->disk_minor == b->disk_minor &&
	       a->start + a->sectors - 1 >= b->start &&
	       b->start + b->sectors - 1 >= a->start;
}

static void iolat_nl_parse_filter(struct nlattr **attrs,
				  struct iolat_filter *f)
{
	memset(f, 0, sizeof(*f));
	if (attrs[IOLAT_A_FILTER_OPS])
		f->ops = nla_get_u32(attrs[IOLAT_A_FILTER_OPS]);
	if (attrs[IOLAT_A_FILTER_PID])
		f->pid = nla_get_u32(attrs[IOLAT_A_FILTER_PID]);
	if (attrs[IOLAT_A_FILTER_TGID])
		f->tgid = nla_get_u32(attrs[IOLAT_A_FILTER_TGID]);
	if (attrs[IOLAT_A_FILTER_COMM])
		/* NLA_NUL_STRING: terminated within the attribute */
		strscpy(f->comm, nla_data(attrs[IOLAT_A_FILTER_COMM]),
			sizeof(f->comm));
	if (attrs[IOLAT_A_FILTER_MIN_NS])
		f->min_ns = nla_get_u64(attrs[IOLAT_A_FILTER_MIN_NS]);
}

/* START's flags, of which at most one of the ways to keep no records. */
static int iolat_nl_parse_mode(struct genl_info *info, unsigned int nr_devs,
			       u32 *mode)
{
	struct nlattr **attrs = info->attrs;

	*mode = (attrs[IOLAT_A_COUNTERS_ONLY] ? IOLAT_MODE_COUNTERS_ONLY : 0) |
		(attrs[IOLAT_A_NVME] ? IOLAT_MODE_NVME : 0) |
		(attrs[IOLAT_A_AGGREGATE] ? IOLAT_MODE_AGGREGATE : 0);
	if (*mode & IOLAT_MODE_COUNTERS_ONLY) {
		static const int filters[] = {
			IOLAT_A_FILTER_OPS, IOLAT_A_FILTER_PID,
			IOLAT_A_FILTER_TGID, IOLAT_A_FILTER_COMM,
			IOLAT_A_FILTER_MIN_NS,
		};
		unsigned int i;

		/* the counters are the device's: every request counts */
		for (i = 0; i < ARRAY_SIZE(filters); i++) {
			if (!attrs[filters[i]])
				continue;
			NL_SET_ERR_MSG_ATTR(info->extack, attrs[filters[i]],
					    "a counters-only session counts every request and takes no filter");
			return -EINVAL;
		}
	}
	if (!(*mode & IOLAT_MODE_AGGREGATE))
		return 0;
	if (*mode & IOLAT_MODE_COUNTERS_ONLY) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[IOLAT_A_AGGREGATE],
				    "aggregation and counters only exclude each other");
		return -EINVAL;
	}
	if (*mode & IOLAT_MODE_NVME) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[IOLAT_A_AGGREGATE],
				    "NVMe commands are traced as records, not aggregated");
		return -EINVAL;
	}
	if ((u64)nr_devs * num_possible_cpus() * IOLAT_AGG_CPU_BYTES >
	    IOLAT_AGG_MAX_BYTES) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[IOLAT_A_AGGREGATE],
				    "aggregation of this many devices on this many CPUs needs more than 256 MiB");
		return -E2BIG;
	}
	return 0;
}

/* START with @specs, room for IOLAT_MAX_DEVS devices, to parse them into. */
static int iolat_nl_start_devs(struct sk_buff *skb, struct genl_info *info,
			       struct iolat_dev_spec *specs)
{
	struct iolat_filter filter;
	unsigned int nr = 0, i, slots = IOLAT_RING_DEFAULT;
	const struct nlattr *nla;
	int rem, err;
	u32 mode;

	if (!iolat_nl_capable(skb, info->extack))
		return -EPERM;
	err = iolat_nl_validate_info(info);
	if (err)
		return err;
	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nla) != IOLAT_A_DEV)
			continue;
		if (nr == IOLAT_MAX_DEVS) {
			NL_SET_ERR_MSG_ATTR(info->extack, nla,
					    "too many devices for one session");
			return -E2BIG;
		}
		err = iolat_nl_parse_dev(nla, &specs[nr], info->extack);
		if (err)
			return err;
		for (i = 0; i < nr; i++) {
			if (iolat_spec_overlap(&specs[i], &specs[nr])) {
				NL_SET_ERR_MSG_ATTR(info->extack, nla,
						    "device given twice, or a disk with its partition");
				return -EINVAL;
			}
		}
		nr++;
	}
	if (!nr) {
		NL_SET_ERR_MSG(info->extack, "no device to trace");
		return -EINVAL;
	}
	if (info->attrs[IOLAT_A_RING_RECORDS]) {
		slots = nla_get_u32(info->attrs[IOLAT_A_RING_RECORDS]);
		if (!is_power_of_2(slots)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[IOLAT_A_RING_RECORDS],
					    "buffer size must be a power of two");
			return -EINVAL;
		}
	}
	if (info->attrs[IOLAT_A_FILTER_COMM] &&
	    !nla_len(info->attrs[IOLAT_A_FILTER_COMM])) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IOLAT_A_FILTER_COMM],
				    "the command name filter is empty");
		return -EINVAL;
	}
	iolat_nl_parse_filter(info->attrs, &filter);
	err = iolat_nl_parse_mode(info, nr, &mode);
	if (err)
		return err;
	iolat_nl_order_devs(specs, nr);
	return iolat_session_start(info->snd_portid, specs, nr, slots, &filter,
				   mode, info->extack);
}

/* (the devices' specs are too large for the stack of a KASAN kernel) */
static int iolat_nl_start(struct sk_buff *skb, struct genl_info *info)
{
	struct iolat_dev_spec *specs;
	int err;

	specs = kcalloc(IOLAT_MAX_DEVS, sizeof(*specs), GFP_KERNEL);
	if (!specs)
		return -ENOMEM;
	err = iolat_nl_start_devs(skb, info, specs);
	kfree(specs);
	return err;
}

/* Each counter's attribute, by its place: the list's order (lib/stats.h). */
static const u8 iolat_nl_stat_attr[] = {
#define IOLAT_STAT(field, ATTR, ...) IOLAT_STAT_A_##ATTR,
#include <linux/iolat_stats.h>
};

static int iolat_nl_put_stats(struct sk_buff *msg,
			      const struct iolat_cpu_stats *st)
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

static int iolat_nl_stop(struct sk_buff *skb, struct genl_info *info)
{
	struct iolat_cpu_stats st;
	struct sk_buff *msg;
	void *hdr;
	int err;

	if (!iolat_nl_capable(skb, info->extack))
		return -EPERM;
	err = iolat_nl_validate_info(info);
	if (err)
		return err;
	err = iolat_session_stop(info->snd_portid, &st, info->extack);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &iolat_family, 0, IOLAT_CMD_STOP);
	if (!hdr || iolat_nl_put_stats(msg, &st)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * The session of a dump's reader, locked.  Checked by each ->dumpit(),
 * never by ->start(): before v6.5 ("netlink: support extack in dump
 * ->start()") a start has no extack, and the reason for an error there
 * never reaches the reader.  A dump's errors, with their messages, end
 * it in NLMSG_DONE instead.
 */
static struct iolat_session *iolat_nl_dump_session(struct netlink_callback *cb)
{
	if (!iolat_nl_capable(cb->skb, iolat_cb_extack(cb)))
		return ERR_PTR(-EPERM);
	return iolat_session_lock(NETLINK_CB(cb->skb).portid,
				  iolat_cb_extack(cb));
}

/*
 * One message with as many of @cpu's records as fit in @skb, and as
 * @left allows: the records the CPU has left to give in this dump, plus
 * one.
 * Return: true if records are left to give that did not fit.
 */
static bool iolat_nl_read_cpu(struct sk_buff *skb, struct netlink_callback *cb,
			      struct iolat_ring *r, int cpu, unsigned int size,
			      unsigned long *left)
{
	unsigned int avail, room, n;
	struct nlattr *nla;
	void *hdr;

	avail = iolat_ring_readable(r, min_t(unsigned long, *left - 1,
					     (U16_MAX - NLA_HDRLEN) / size));
	if (!avail)
		return false;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &iolat_family, NLM_F_MULTI, IOLAT_CMD_READ);
	if (!hdr)
		return true;
	if (nla_put_u32(skb, IOLAT_A_CPU, cpu) ||
	    nla_put_u32(skb, IOLAT_A_RECORD_SIZE, size))
		goto full;
	room = skb_tailroom(skb);
	n = room > NLA_HDRLEN ? min(avail, (room - NLA_HDRLEN) / size) : 0;
	if (!n)
		goto full;
	nla = nla_reserve(skb, IOLAT_A_RECORDS, n * size);
	if (!nla)
		goto full;
	/* published records stay published: all n are there */
	WARN_ON_ONCE(iolat_ring_read(r, nla_data(nla), n, size) != n);
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
			  &iolat_family, NLM_F_MULTI, IOLAT_CMD_READ);
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
	this_cpu_add(s->rings->stats.n[IOLAT_S_EVENTS_LOST], n);
}

/*
 * READ dump state: args[0] the CPU being drained (0 at the start), and
 * args[1] the records it has left to give, plus one (0: not counted
 * yet).  A CPU gives the records it had published when the dump came to
 * it, and no more, so that a dump ends however fast records come in.
 */
static int iolat_nl_read_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct iolat_session *s;
	struct iolat_ring *r;
	unsigned int size;
	int cpu;

	s = iolat_nl_dump_session(cb);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (!cb->args[0])
		iolat_nl_read_events(skb, cb, s);
	/* a session without NVMe or a stack sends the block part of its records */
	BUILD_BUG_ON(offsetof(struct iolat_record, nvme_setup_ns) !=
		     IOLAT_RECORD_BLOCK_SIZE);
	size = s->nvme || s->links ? sizeof(struct iolat_record) :
				     IOLAT_RECORD_BLOCK_SIZE;
	for (cpu = cb->args[0]; cpu < nr_cpu_ids; cpu++, cb->args[1] = 0) {
		if (!cpu_possible(cpu))
			continue;
		r = per_cpu_ptr(s->rings, cpu);
		if (!cb->args[1])
			cb->args[1] = iolat_ring_readable(r, r->mask + 1) + 1;
		if (iolat_nl_read_cpu(skb, cb, r, cpu, size, &cb->args[1]))
			break;
	}
	cb->args[0] = cpu;
	iolat_session_unlock();
	return skb->len;
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
		{ IOLAT_CNT_A_START_NS, s->start_ns },
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
			  &iolat_family, NLM_F_MULTI, IOLAT_CMD_COUNTERS);
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
static int iolat_nl_counters_dump(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct iolat_session *s;
	u32 next;
	int err = 0;

	s = iolat_nl_dump_session(cb);
	if (IS_ERR(s))
		return PTR_ERR(s);
	for (; cb->args[0] < s->nr_devs; cb->args[0]++, cb->args[1] = 0) {
		next = cb->args[1];
		err = iolat_nl_counters_dev(skb, cb, s, &s->devs[cb->args[0]],
					    &next);
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
static int iolat_nl_hist_done(struct netlink_callback *cb)
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

/*
 * One message of histogram @h of device @d from bin *@next on, as many
 * bins as fit; *@next is set past the last bin sent, or to
 * IOLAT_HIST_NR_BINS when the rest are 0.
 * Return: 0, or -EMSGSIZE if not even the head fitted.
 */
static int iolat_nl_hist_msg(struct sk_buff *skb, struct netlink_callback *cb,
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
			  &iolat_family, NLM_F_MULTI, IOLAT_CMD_HIST);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, IOLAT_A_HIST);
	if (!nest ||
	    nla_put_u32(skb, IOLAT_HIST_A_MAJOR, MAJOR(d->id)) ||
	    nla_put_u32(skb, IOLAT_HIST_A_MINOR, MINOR(d->id)) ||
	    nla_put_u32(skb, IOLAT_HIST_A_OP, idx / IOLAT_AGG_NR_STAGES) ||
	    nla_put_u32(skb, IOLAT_HIST_A_STAGE,
			iolat_agg_dev_stage(d, idx % IOLAT_AGG_NR_STAGES)) ||
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

static int iolat_nl_hist_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct iolat_hist *h = (struct iolat_hist *)cb->args[3];
	const unsigned int nr = IOLAT_OP_NR * IOLAT_AGG_NR_STAGES;
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
		d = &s->devs[cb->args[0]];
		for (; cb->args[1] < nr; cb->args[1]++, cb->args[2] = 0) {
			if (!cb->args[2]) {
				iolat_agg_sum(d, cb->args[1] / IOLAT_AGG_NR_STAGES,
					      cb->args[1] % IOLAT_AGG_NR_STAGES,
					      h);
				if (!h->count)
					continue;
			}
			do {
				next = cb->args[2];
				err = iolat_nl_hist_msg(skb, cb, d, cb->args[1],
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

static int iolat_nl_clocktest(struct sk_buff *skb, struct genl_info *info)
{
	u32 loops = IOLAT_CLOCK_LOOPS_DEFAULT;
	int err;

	if (!iolat_nl_capable(skb, info->extack))
		return -EPERM;
	err = iolat_nl_validate_info(info);
	if (err)
		return err;
	if (info->attrs[IOLAT_A_CLOCK_LOOPS])
		loops = nla_get_u32(info->attrs[IOLAT_A_CLOCK_LOOPS]);
	return iolat_clocktest_reply(info, &iolat_family, loops);
}

static const struct genl_ops iolat_ops[] = {
	{
		.cmd = IOLAT_CMD_GET_INFO,
		IOLAT_GENL_OP_POLICY(iolat_policy)
		.doit = iolat_nl_get_info,
	},
	{
		.cmd = IOLAT_CMD_START,
		IOLAT_GENL_OP_POLICY(iolat_policy)
		.doit = iolat_nl_start,
	},
	{
		.cmd = IOLAT_CMD_STOP,
		IOLAT_GENL_OP_POLICY(iolat_policy)
		.doit = iolat_nl_stop,
	},
	{
		.cmd = IOLAT_CMD_READ,
		IOLAT_GENL_OP_POLICY(iolat_policy)
		.dumpit = iolat_nl_read_dump,
	},
	{
		.cmd = IOLAT_CMD_COUNTERS,
		IOLAT_GENL_OP_POLICY(iolat_policy)
		.dumpit = iolat_nl_counters_dump,
	},
	{
		.cmd = IOLAT_CMD_CLOCKTEST,
		IOLAT_GENL_OP_POLICY(iolat_policy)
		.doit = iolat_nl_clocktest,
	},
	{
		.cmd = IOLAT_CMD_HIST,
		IOLAT_GENL_OP_POLICY(iolat_policy)
		.dumpit = iolat_nl_hist_dump,
		.done = iolat_nl_hist_done,
	},
};

static struct genl_family iolat_family __ro_after_init = {
	.name = IOLAT_GENL_NAME,
	.version = IOLAT_GENL_VERSION,
	.maxattr = IOLAT_A_MAX,
	IOLAT_GENL_FAMILY_POLICY(iolat_policy)
	.module = THIS_MODULE,
	.ops = iolat_ops,
	.n_ops = ARRAY_SIZE(iolat_ops),
};

/* A socket of the init namespace closed: its session, if any, goes too. */
static int iolat_nl_notify(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    net_eq(n->net, &init_net) && n->portid)
		iolat_session_release(n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block iolat_nl_notifier = {
	.notifier_call = iolat_nl_notify,
};

int iolat_netlink_init(void)
{
	int err;

	err = netlink_register_notifier(&iolat_nl_notifier);
	if (err)
		return err;
	err = genl_register_family(&iolat_family);
	if (err)
		netlink_unregister_notifier(&iolat_nl_notifier);
	return err;
}

void iolat_netlink_exit(void)
{
	genl_unregister_family(&iolat_family);
	netlink_unregister_notifier(&iolat_nl_notifier);
}
