// SPDX-License-Identifier: GPL-2.0
/*
 * One policy for a whole generic netlink family, with strict validation
 * of every request and dump: v5.2, "genetlink: make policy common to
 * family" and "netlink: make validation more configurable for future
 * strictness".  Before, each op had its own policy and attributes were
 * validated liberally (unknown ones ignored).
 */
#include <net/genetlink.h>

static struct genl_family iolat_family = {
	.policy = NULL,
};

int iolat_feature(void);
int iolat_feature(void)
{
	return !!iolat_family.policy + GENL_DONT_VALIDATE_STRICT;
}
