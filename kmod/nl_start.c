// SPDX-License-Identifier: GPL-2.0
/*
 * START: a session's devices, filters and mode, parsed from the request
 * and checked, each error with its extended-ack message; DEV_ADD: a disk
 * that joins the running session
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/cpumask.h>
#include <net/genetlink.h>
#include <linux/slab.h>
#include <linux/kdev_t.h>
#include <linux/stringify.h>
#include <linux/mm.h>
#include "acct.h"
#include "agg.h"
#include "upper.h"
#include "netlink.h"
#include "watch.h"

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

	err = nla_parse_nested(tb, IOLAT_DEV_A_MAX, nla, iolat_nl_dev_policy,
			       extack) ?:
	      iolat_nl_validate(nla_data(nla), nla_len(nla), iolat_nl_dev_policy,
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
 * @parsed into @specs: the whole disks first, then the partitions, then
 * the bio-based devices, each in the order given (struct iolat_session).
 */
static void iolat_nl_order_devs(struct iolat_dev_spec *specs,
				const struct iolat_dev_spec *parsed,
				unsigned int nr)
{
	unsigned int i, n = 0, rank;

	for (rank = 0; rank <= 2; rank++)
		for (i = 0; i < nr; i++)
			if (iolat_spec_rank(&parsed[i]) == rank)
				specs[n++] = parsed[i];
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
	if (attrs[IOLAT_A_FILTER_CGROUPS]) {
		const struct nlattr *a = attrs[IOLAT_A_FILTER_CGROUPS];
		const u8 *ids = nla_data(a);
		unsigned int i;
		u64 id;

		/* iolat_nl_check_cgroups(): whole u64s, at most the array */
		f->nr_cgroups = nla_len(a) / sizeof(u64);
		for (i = 0; i < f->nr_cgroups; i++) {
			memcpy(&id, ids + i * sizeof(id), sizeof(id));
			f->cgroups[i] = (u32)id;
		}
	}
	f->on = f->ops || f->pid || f->tgid || f->comm[0] || f->min_ns ||
		f->nr_cgroups;
}

/* IOLAT_A_FILTER_CGROUPS: 1 to IOLAT_FILTER_CGROUPS u64s, on a kernel with them. */
static int iolat_nl_check_cgroups(const struct nlattr *a,
				  struct netlink_ext_ack *extack)
{
	if (!a)
		return 0;
	if (!IS_ENABLED(CONFIG_BLK_CGROUP)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "this kernel has no block cgroups (CONFIG_BLK_CGROUP): its I/O has no cgroup to filter by");
		return -EOPNOTSUPP;
	}
	if (!nla_len(a) || nla_len(a) % sizeof(u64)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "the cgroup filter is an array of u64 cgroup ids");
		return -EINVAL;
	}
	return 0;
}

/*
 * IOLAT_A_CGROUP_SLOTS @a, in a session of @mode: for the counters of a
 * session without records, on a kernel whose I/O has cgroups.
 */
static int iolat_nl_check_cg_slots(const struct nlattr *a, u32 mode,
				   struct netlink_ext_ack *extack)
{
	if (!IS_ENABLED(CONFIG_BLK_CGROUP)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "this kernel has no block cgroups (CONFIG_BLK_CGROUP): its I/O has no cgroup to count by");
		return -EOPNOTSUPP;
	}
	if (!(mode & (IOLAT_MODE_COUNTERS_ONLY | IOLAT_MODE_AGGREGATE))) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "cgroup slots are for sessions without records: records carry their cgroup (IOLAT_A_CGROUPS)");
		return -EINVAL;
	}
	return 0;
}

/*
 * IOLAT_A_WATCH: a flight recorder (watch.h), beside the histograms of
 * an aggregating session, into @conf.
 */
static int iolat_nl_parse_watch(struct genl_info *info, u32 mode,
				struct iolat_watch_conf *conf)
{
	struct nlattr *a = info->attrs[IOLAT_A_WATCH];
	struct nlattr *tb[IOLAT_WATCH_A_MAX + 1];
	u32 stage;
	int err;

	if (!(mode & IOLAT_MODE_AGGREGATE)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "a flight recorder runs beside the histograms: START it with IOLAT_A_AGGREGATE");
		return -EINVAL;
	}
	err = iolat_nl_watch_parse(info, tb);
	if (err)
		return err;
	if (!tb[IOLAT_WATCH_A_BEFORE_NS]) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "a flight recorder needs its window before a trigger (IOLAT_WATCH_A_BEFORE_NS)");
		return -EINVAL;
	}
	conf->before_ns = nla_get_u64(tb[IOLAT_WATCH_A_BEFORE_NS]);
	conf->slower_ns = tb[IOLAT_WATCH_A_SLOWER_NS] ?
			  nla_get_u64(tb[IOLAT_WATCH_A_SLOWER_NS]) : 0;
	stage = tb[IOLAT_WATCH_A_STAGE] ?
		nla_get_u32(tb[IOLAT_WATCH_A_STAGE]) : IOLAT_STAGE_Q2C;
	/* Q2G is Q and G, ... D2C is D and C; Q2C, Q and C */
	conf->from = stage == IOLAT_STAGE_Q2C ? 0 : stage;
	conf->to = stage == IOLAT_STAGE_Q2C ? 4 : stage + 1;
	conf->on_error = tb[IOLAT_WATCH_A_ON_ERROR];
	return 0;
}

/* START's flags, of which at most one of the ways to keep no records. */
static int iolat_nl_parse_mode(struct genl_info *info, u32 *mode,
			       struct iolat_watch_conf *watch)
{
	struct nlattr **attrs = info->attrs;
	int err;

	*mode = (attrs[IOLAT_A_COUNTERS_ONLY] ? IOLAT_MODE_COUNTERS_ONLY : 0) |
		(attrs[IOLAT_A_NVME] ? IOLAT_MODE_NVME : 0) |
		(attrs[IOLAT_A_AGGREGATE] ? IOLAT_MODE_AGGREGATE : 0) |
		(attrs[IOLAT_A_CGROUPS] ? IOLAT_MODE_CGROUPS : 0);
	if (attrs[IOLAT_A_WATCH]) {
		err = iolat_nl_parse_watch(info, *mode, watch);
		if (err)
			return err;
		*mode |= IOLAT_MODE_WATCH;
	}
	if ((*mode & IOLAT_MODE_CGROUPS) && !IS_ENABLED(CONFIG_BLK_CGROUP)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[IOLAT_A_CGROUPS],
				    "this kernel has no block cgroups (CONFIG_BLK_CGROUP): its I/O has no cgroup to name");
		return -EOPNOTSUPP;
	}
	/* a flight recorder's records carry them */
	if ((*mode & IOLAT_MODE_CGROUPS) && !(*mode & IOLAT_MODE_WATCH) &&
	    (*mode & (IOLAT_MODE_COUNTERS_ONLY | IOLAT_MODE_AGGREGATE))) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[IOLAT_A_CGROUPS],
				    "cgroups are in records: a session that writes none has no place for them");
		return -EINVAL;
	}
	if (attrs[IOLAT_A_CGROUP_SLOTS]) {
		err = iolat_nl_check_cg_slots(attrs[IOLAT_A_CGROUP_SLOTS],
					      *mode, info->extack);
		if (err)
			return err;
		*mode |= IOLAT_MODE_CG_SLOTS(nla_get_u32(attrs[IOLAT_A_CGROUP_SLOTS]));
	}
	if (*mode & IOLAT_MODE_COUNTERS_ONLY) {
		static const int filters[] = {
			IOLAT_A_FILTER_OPS, IOLAT_A_FILTER_PID,
			IOLAT_A_FILTER_TGID, IOLAT_A_FILTER_COMM,
			IOLAT_A_FILTER_MIN_NS, IOLAT_A_FILTER_CGROUPS,
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
	/* a flight recorder's records carry theirs */
	if ((*mode & IOLAT_MODE_NVME) && !(*mode & IOLAT_MODE_WATCH)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[IOLAT_A_AGGREGATE],
				    "NVMe commands are traced as records, not aggregated");
		return -EINVAL;
	}
	return 0;
}

/*
 * START with room for its @nr devices: @parsed to parse them into,
 * @specs for them in the session's order.
 */
static int iolat_nl_start_devs(struct sk_buff *skb, struct genl_info *info,
			       struct iolat_dev_spec *specs,
			       struct iolat_dev_spec *parsed, unsigned int max)
{
	struct iolat_watch_conf watch = { 0 };
	struct iolat_filter filter;
	unsigned int nr = 0, i, slots = 0;	/* 0: the default (budget.c) */
	const struct nlattr *nla;
	int rem, err;
	u32 mode;

	err = iolat_nl_admit(skb, info);
	if (err)
		return err;
	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nla) != IOLAT_A_DEV)
			continue;
		if (WARN_ON_ONCE(nr == max))
			return -EINVAL;
		err = iolat_nl_parse_dev(nla, &parsed[nr], info->extack);
		if (err)
			return err;
		for (i = 0; i < nr; i++) {
			if (iolat_spec_overlap(&parsed[i], &parsed[nr])) {
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
	err = iolat_nl_check_cgroups(info->attrs[IOLAT_A_FILTER_CGROUPS],
				     info->extack);
	if (err)
		return err;
	iolat_nl_parse_filter(info->attrs, &filter);
	err = iolat_nl_parse_mode(info, &mode, &watch);
	if (err)
		return err;
	iolat_nl_order_devs(specs, parsed, nr);
	return iolat_session_start(info->snd_portid, specs, nr, slots, &filter,
				   mode, &watch, info->extack);
}

/*
 * How many IOLAT_A_DEV attributes the request has, up to @max + 1: the
 * first in @first, the one past @max (NULL: none) in @over.
 */
static unsigned int iolat_nl_count_devs(const struct genl_info *info,
					unsigned int max,
					const struct nlattr **first,
					const struct nlattr **over)
{
	const struct nlattr *nla;
	unsigned int nr = 0;
	int rem;

	*first = NULL;
	*over = NULL;
	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nla) != IOLAT_A_DEV)
			continue;
		if (!*first)
			*first = nla;
		if (++nr > max) {
			*over = nla;
			break;
		}
	}
	return nr;
}

/* The devices' specs, counted first: from one to IOLAT_MAX_DEVS. */
int iolat_nl_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *first, *over;
	struct iolat_dev_spec *specs;
	unsigned int nr;
	int err;

	nr = iolat_nl_count_devs(info, IOLAT_MAX_DEVS, &first, &over);
	if (over) {
		NL_SET_ERR_MSG_ATTR(info->extack, over,
				    "too many devices for one session: at most " __stringify(IOLAT_MAX_DEVS));
		return -E2BIG;
	}
	specs = kvcalloc(array_size(2, max(nr, 1U)), sizeof(*specs),
			 GFP_KERNEL);
	if (!specs)
		return -ENOMEM;
	err = iolat_nl_start_devs(skb, info, specs, specs + max(nr, 1U), nr);
	kvfree(specs);
	return err;
}

/*
 * DEV_ADD: one whole disk, IOLAT_A_DEV as START's, into this socket's
 * running session (iolat_session_join()).
 */
int iolat_nl_dev_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *dev, *over;
	struct iolat_dev_spec spec;
	int err;

	err = iolat_nl_admit(skb, info);
	if (err)
		return err;
	iolat_nl_count_devs(info, 1, &dev, &over);
	if (over) {
		NL_SET_ERR_MSG_ATTR(info->extack, over, "DEV_ADD takes one device");
		return -EINVAL;
	}
	if (!dev) {
		NL_SET_ERR_MSG(info->extack, "no device to add");
		return -EINVAL;
	}
	err = iolat_nl_parse_dev(dev, &spec, info->extack);
	if (err)
		return err;
	return iolat_session_add(info->snd_portid, &spec, info->extack);
}
