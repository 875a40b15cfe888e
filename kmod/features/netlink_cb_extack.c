// SPDX-License-Identifier: GPL-2.0
/*
 * netlink_callback->extack, error messages from a dump: v4.20, "netlink:
 * Pass extack to dump handlers".
 */
#include <linux/netlink.h>

struct netlink_ext_ack *iolat_feature(struct netlink_callback *cb);
struct netlink_ext_ack *iolat_feature(struct netlink_callback *cb)
{
	return cb->extack;
}
