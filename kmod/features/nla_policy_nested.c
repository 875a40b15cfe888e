// SPDX-License-Identifier: GPL-2.0
/*
 * Policies that validate ranges and nested attributes:
 * NLA_POLICY_RANGE() and NLA_POLICY_NESTED(), v4.20, "netlink: add
 * attribute range validation to policy" and "netlink: add nested array
 * validation".
 */
#include <net/netlink.h>

static const struct nla_policy iolat_inner[] = {
	[0] = NLA_POLICY_RANGE(NLA_U32, 1, 2),
};
static const struct nla_policy iolat_policy[] = {
	[0] = NLA_POLICY_NESTED(iolat_inner),
};

const struct nla_policy *iolat_feature(void);
const struct nla_policy *iolat_feature(void)
{
	return iolat_policy;
}
