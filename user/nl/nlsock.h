/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netlink socket's insides, for nlsock.c (the socket, its requests
 * and errors), nl_readings.c (the module's readings) and nl_watch.c
 * (the flight recorder).
 */
#ifndef IOLAT_NLSOCK_H
#define IOLAT_NLSOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>

/*
 * The replies' buffer: a dump's message is at most 32 KiB (the kernel's
 * cap of a dump's skb, with a reader's buffer this large)
 */
#define NL_RBUF_SIZE	(64 * 1024)

struct iolat_nl {
	struct nl_sock *sk;
	void *rbuf;		/* NL_RBUF_SIZE bytes, for every reply */
	int family;
	char errmsg[256];	/* the kernel's extended-ack message, if any */
	/* START's flight recorder (IOLAT_A_WATCH), or NULL */
	const struct iolat_watch_req *watch;
};

/* One request in flight: what to do with its replies and how it ended. */
struct iolat_req {
	struct iolat_nl *nl;
	int (*reply)(struct iolat_req *req, struct nlattr **tb);
	const struct nlmsghdr *nlh;	/* the reply being handled */
	void *arg;
	bool done;
	int err;		/* negative errno from the kernel, or 0 */
};

/* Send @msg (consumed) and hand each reply to @reply until it ends. */
int nl_transact(struct iolat_nl *nl, struct nl_msg *msg,
		int (*reply)(struct iolat_req *, struct nlattr **), void *arg);
/* A request of the family: command @cmd, netlink @flags (NLM_F_DUMP). */
struct nl_msg *nl_request(struct iolat_nl *nl, uint8_t cmd, int flags);
/* ... with room for @size bytes of attributes */
struct nl_msg *nl_request_size(struct iolat_nl *nl, uint8_t cmd, int flags,
			       size_t size);

struct iolat_stats;
void nl_get_stats(struct nlattr **tb, struct iolat_stats *st);

/* An attribute of a reply's @tb, or 0 if absent. */
static inline uint64_t get_u64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : 0;
}

static inline uint32_t get_u32(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : 0;
}

#endif /* IOLAT_NLSOCK_H */
