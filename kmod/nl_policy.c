// SPDX-License-Identifier: GPL-2.0
/*
 * The "iolat" family's policies: who may send a request (CAP_PERFMON),
 * every attribute it may carry, with its type and range, and its
 * validation against them as a v5.8 kernel does it (compat.h)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <net/genetlink.h>
#include "clocktest.h"
#include "netlink.h"
#include "../lib/record.h"

/*
 * Every range in a struct netlink_range_validation, validated by the
 * policy where the kernel can, by iolat_nl_validate() where it cannot.
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

const struct nla_policy iolat_nl_dev_policy[IOLAT_DEV_A_MAX + 1] = {
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

static struct netlink_range_validation iolat_cg_slots_range = {
	.min = 1,
	.max = IOLAT_CGROUP_SLOTS_MAX,
};

static struct netlink_range_validation iolat_clock_loops_range = {
	.min = IOLAT_CLOCK_LOOPS_MIN,
	.max = IOLAT_CLOCK_LOOPS_MAX,
};

static struct netlink_range_validation iolat_stage_range = {
	.min = 0,
	.max = IOLAT_STAGE_NR - 1,
};

static struct netlink_range_validation iolat_reason_range = {
	.min = IOLAT_WATCH_USER,
	.max = IOLAT_WATCH_REASON_MAX,
};

/* START's recorder; WATCH_TRIGGER's reason; WATCH_ARM's quiet time */
const struct nla_policy iolat_nl_watch_policy[IOLAT_WATCH_A_MAX + 1] = {
	[IOLAT_WATCH_A_SLOWER_NS] = { .type = NLA_U64 },
	[IOLAT_WATCH_A_STAGE] = IOLAT_NLA_U32_RANGE(&iolat_stage_range),
	[IOLAT_WATCH_A_ON_ERROR] = { .type = NLA_FLAG },
	[IOLAT_WATCH_A_BEFORE_NS] = { .type = NLA_U64 },
	[IOLAT_WATCH_A_REASON] = IOLAT_NLA_U32_RANGE(&iolat_reason_range),
	[IOLAT_WATCH_A_QUIET_NS] = { .type = NLA_U64 },
};

const struct nla_policy iolat_nl_cgroup_policy[IOLAT_CGROUP_A_MAX + 1] = {
	[IOLAT_CGROUP_A_MAJOR] = { .type = NLA_U32 },
	[IOLAT_CGROUP_A_MINOR] = { .type = NLA_U32 },
	[IOLAT_CGROUP_A_ID] = { .type = NLA_U64 },
};

/* Attributes absent here are replies only; strict validation rejects them. */
const struct nla_policy iolat_nl_policy[IOLAT_A_MAX + 1] = {
	[IOLAT_A_DEV] = IOLAT_NLA_NESTED(iolat_nl_dev_policy),
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
	[IOLAT_A_CGROUPS] = { .type = NLA_FLAG },
	[IOLAT_A_FILTER_CGROUPS] = { .type = NLA_BINARY,
				     .len = IOLAT_FILTER_CGROUPS * sizeof(u64) },
	[IOLAT_A_CLOCK_LOOPS] = IOLAT_NLA_U32_RANGE(&iolat_clock_loops_range),
	[IOLAT_A_CGROUP_SLOTS] = IOLAT_NLA_U32_RANGE(&iolat_cg_slots_range),
	[IOLAT_A_CGROUP] = IOLAT_NLA_NESTED(iolat_nl_cgroup_policy),
	[IOLAT_A_WATCH] = IOLAT_NLA_NESTED(iolat_nl_watch_policy),
};

/**
 * iolat_nl_validate() - what an older kernel's validation left out
 * @head: the attributes, after the kernel's own parse of them
 * @len: their length
 * @policy: their policy, [0..@maxtype]
 * @maxtype: the highest attribute type
 * @extack: for the reason
 * Return: 0, or -EINVAL / -ERANGE with a message.
 */
int iolat_nl_validate(const struct nlattr *head, int len,
		      const struct nla_policy *policy, int maxtype,
		      struct netlink_ext_ack *extack)
{
#if IOLAT_NL_VALIDATE_OWN
	const struct nlattr *nla;
	int rem;

	nla_for_each_attr(nla, head, len, rem) {
		int type = nla_type(nla);
		const struct nla_policy *pt;

		if (type <= 0 || type > maxtype ||
		    policy[type].type == NLA_UNSPEC) {
			NL_SET_ERR_MSG_ATTR(extack, nla, "Unknown attribute type");
			return -EINVAL;
		}
		pt = &policy[type];
		if (pt->type == NLA_U32 && pt->validation_data) {
			const struct netlink_range_validation *r =
				pt->validation_data;
			u32 v = nla_get_u32(nla);

			if (v < r->min || v > r->max) {
				NL_SET_ERR_MSG_ATTR(extack, nla,
						    "integer out of range");
				return -ERANGE;
			}
		}
	}
	if (rem) {
		NL_SET_ERR_MSG(extack, "bytes leftover after parsing attributes");
		return -EINVAL;
	}
#endif
	return 0;
}

/* A request's attributes, validated as a v5.8 kernel does (compat.h). */
int iolat_nl_validate_info(const struct genl_info *info)
{
	return iolat_nl_validate(nlmsg_attrdata(info->nlhdr, GENL_HDRLEN),
				 nlmsg_attrlen(info->nlhdr, GENL_HDRLEN),
				 iolat_nl_policy, IOLAT_A_MAX, info->extack);
}

/* Tracing is CAP_PERFMON's business; CAP_SYS_ADMIN implies it. */
bool iolat_nl_capable(const struct sk_buff *skb,
		      struct netlink_ext_ack *extack)
{
	if (iolat_capable_perfmon(skb))
		return true;
	NL_SET_ERR_MSG(extack, "iolat needs CAP_PERFMON or CAP_SYS_ADMIN");
	return false;
}

/* A privileged command's start: 0, -EPERM, or its attributes' error. */
int iolat_nl_admit(const struct sk_buff *skb, const struct genl_info *info)
{
	if (!iolat_nl_capable(skb, info->extack))
		return -EPERM;
	return iolat_nl_validate_info(info);
}
