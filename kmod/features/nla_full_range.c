// SPDX-License-Identifier: GPL-2.0
/*
 * struct netlink_range_validation and NLA_POLICY_FULL_RANGE(), ranges
 * beyond the s16 of NLA_POLICY_RANGE(): v5.8, "netlink: extend policy
 * range validation".
 */
#include <net/netlink.h>

static struct netlink_range_validation iolat_range = { .min = 1, .max = 1 };
static const struct nla_policy iolat_policy[] = {
	[0] = NLA_POLICY_FULL_RANGE(NLA_U32, &iolat_range),
};

const struct nla_policy *iolat_feature(void);
const struct nla_policy *iolat_feature(void)
{
	return iolat_policy;
}
