// SPDX-License-Identifier: GPL-2.0
/*
 * One policy for a whole generic netlink family, with strict validation
 * of every request and dump: v5.2, "genetlink: make policy common to
 * family" and "netlink: make validation more configurable for future
 * strictness".  Before, each op had its own policy and attributes were
 * validated liberally (unknown ones ignored).
 */
#include <net/genetlink.h>

int iolat_feature(const struct genl_family *family);
int iolat_feature(const struct genl_family *family)
{
	return !!family->policy + GENL_DONT_VALIDATE_STRICT;
}
