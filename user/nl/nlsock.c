// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI's side of the "iolat" generic netlink family: resolve it by
 * name, send requests, and turn kernel errors (with their extended-ack
 * messages) into one clear line for the user.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include "nl/nl.h"
#include "nl/nlsock.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* The message among the extended-ack TLVs at @off of @nlh, into errmsg. */
static void nl_extack_tlvs(struct iolat_nl *nl, const struct nlmsghdr *nlh,
			   size_t off)
{
	const struct nlattr *attr;
	int rem;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off > nlh->nlmsg_len)
		return;
	rem = nlh->nlmsg_len - off;
	for (attr = (const struct nlattr *)((const char *)nlh + off);
	     nla_ok(attr, rem); attr = nla_next(attr, &rem)) {
		if (nla_type(attr) == NLMSGERR_ATTR_MSG) {
			snprintf(nl->errmsg, sizeof(nl->errmsg), "%.*s",
				 nla_len(attr), (const char *)nla_data(attr));
			nl->errmsg[strcspn(nl->errmsg, "\n")] = '\0';
		}
	}
}

/* An NLMSG_ERROR's TLVs follow the request it echoes, capped or not. */
static void nl_extack(struct iolat_nl *nl, const struct nlmsghdr *nlh,
		      const struct nlmsgerr *e)
{
	size_t off = NLMSG_HDRLEN + sizeof(*e);

	nl->errmsg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	nl_extack_tlvs(nl, nlh, off);
}

/*
 * An NLMSG_ERROR: the request's failure, or its ack (error 0), which
 * leaves a reply's own error (on_valid()) as it is.
 */
static void on_error(struct iolat_req *req, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e))) {
		req->err = -EPROTO;
	} else if (e->error) {
		req->err = e->error;
		nl_extack(req->nl, nlh, e);
	}
	req->done = true;
}

/* End of a dump; its payload is the dump's own error, if it failed. */
static void on_done(struct iolat_req *req, const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		int err;

		memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
		if (err < 0) {
			req->err = err;
			/* a dump's error: its message follows the errno */
			nl_extack_tlvs(req->nl, nlh, NLMSG_HDRLEN + sizeof(int));
		}
	}
	req->done = true;
}

static void on_valid(struct iolat_req *req, struct nlmsghdr *nlh)
{
	struct nlattr *tb[IOLAT_A_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, IOLAT_A_MAX, NULL) < 0)
		return;
	req->nlh = nlh;
	if (req->reply && req->reply(req, tb) < 0 && !req->err)
		req->err = -EPROTO;
}

/*
 * One read of the socket into the buffer it keeps, each message of this
 * request handed on in place: a READ's records are not copied or
 * allocated once more on their way to the decoder (libnl's receive
 * allocated a buffer, then a zeroed copy, per message).
 */
static int nl_recv_once(struct iolat_nl *nl, struct iolat_req *req,
			uint32_t seq)
{
	uint32_t port = nl_socket_get_local_port(nl->sk);
	struct iovec iov = { .iov_base = nl->rbuf, .iov_len = NL_RBUF_SIZE };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct nlmsghdr *nlh;
	ssize_t len;
	int rem;

	do
		len = recvmsg(nl_socket_get_fd(nl->sk), &mh, 0);
	while (len < 0 && errno == EINTR);
	if (len >= 0 && (mh.msg_flags & MSG_TRUNC)) {
		snprintf(nl->errmsg, sizeof(nl->errmsg),
			 "a reply of the module was larger than %u bytes",
			 NL_RBUF_SIZE);
		return -EIO;
	}
	if (len < 0) {
		snprintf(nl->errmsg, sizeof(nl->errmsg), "%s",
			 strerror(errno));
		return -EIO;
	}
	if (!len) {
		snprintf(nl->errmsg, sizeof(nl->errmsg),
			 "the netlink socket was closed");
		return -EIO;
	}
	rem = len;
	for (nlh = (struct nlmsghdr *)nl->rbuf; NLMSG_OK(nlh, rem);
	     nlh = NLMSG_NEXT(nlh, rem)) {
		/* another request's late reply, or not to this socket */
		if (nlh->nlmsg_seq != seq || nlh->nlmsg_pid != port)
			continue;
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
		case NLMSG_OVERRUN:
			break;
		case NLMSG_ERROR:
			on_error(req, nlh);
			break;
		case NLMSG_DONE:
			on_done(req, nlh);
			break;
		default:
			on_valid(req, nlh);
			break;
		}
	}
	return 0;
}

/* Send @msg (consumed) and process replies until the request ends. */
int nl_transact(struct iolat_nl *nl, struct nl_msg *msg,
		int (*reply)(struct iolat_req *, struct nlattr **), void *arg)
{
	struct iolat_req req = { .nl = nl, .reply = reply, .arg = arg };
	uint32_t seq;
	int ret;

	nl->errmsg[0] = '\0';
	/* a request ends in its ack, a dump in NLMSG_DONE */
	nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	nl_complete_msg(nl->sk, msg);
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	ret = nl_send(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return -EIO;
	while (!req.done) {
		ret = nl_recv_once(nl, &req, seq);
		if (ret < 0)
			return ret;
	}
	return req.err;
}

/* A request with room for @size bytes of attributes. */
struct nl_msg *nl_request_size(struct iolat_nl *nl, uint8_t cmd, int flags,
			       size_t size)
{
	struct nl_msg *msg = nlmsg_alloc_size(size + NLMSG_HDRLEN + GENL_HDRLEN);

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				flags, cmd, IOLAT_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

/*
 * A request of a few attributes (at most a nest and a u64 today), at its
 * size: not libnl's default page, which calloc zeroes, for the requests
 * sent every 10 ms (READ) or every second (COUNTERS, HIST)
 */
#define NL_REQUEST_ATTRS	64

struct nl_msg *nl_request(struct iolat_nl *nl, uint8_t cmd, int flags)
{
	return nl_request_size(nl, cmd, flags, NL_REQUEST_ATTRS);
}

const char *iolat_nl_errmsg(const struct iolat_nl *nl)
{
	return nl->errmsg;
}

/* Return: the socket; NULL with errno ENOENT if the family is absent. */
struct iolat_nl *iolat_nl_open(void)
{
	struct iolat_nl *nl = calloc(1, sizeof(*nl));
	int one = 1;

	if (!nl)
		return NULL;
	nl->sk = nl_socket_alloc();
	nl->rbuf = malloc(NL_RBUF_SIZE);
	if (!nl->sk || !nl->rbuf || genl_connect(nl->sk) < 0) {
		iolat_nl_close(nl);
		errno = EIO;
		return NULL;
	}
	/* extended acks without the echoed request */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, IOLAT_GENL_NAME);
	if (nl->family < 0) {
		iolat_nl_close(nl);
		errno = ENOENT;
		return NULL;
	}
	return nl;
}

/* Is the module's family there (loaded, not unloading)? */
bool iolat_nl_family_present(void)
{
	struct iolat_nl *nl = iolat_nl_open();
	bool there = nl;

	iolat_nl_close(nl);
	return there;
}

void iolat_nl_close(struct iolat_nl *nl)
{
	if (!nl)
		return;
	if (nl->sk)
		nl_socket_free(nl->sk);
	free(nl->rbuf);
	free(nl);
}

/* @dev as an IOLAT_A_DEV nest of @msg; its NVMe controller if @nvme. */
static int put_dev(struct nl_msg *msg, const struct iolat_dev_req *dev,
		   bool nvme)
{
	struct nlattr *nest = nla_nest_start(msg, IOLAT_A_DEV);

	if (!nest ||
	    nla_put_u32(msg, IOLAT_DEV_A_MAJOR, dev->major) ||
	    nla_put_u32(msg, IOLAT_DEV_A_MINOR, dev->minor) ||
	    nla_put_u32(msg, IOLAT_DEV_A_NR_HWQ, dev->nr_hwq) ||
	    nla_put_u32(msg, IOLAT_DEV_A_DEPTH, dev->depth) ||
	    (nvme && dev->nvme_ctrl >= 0 &&
	     nla_put_u32(msg, IOLAT_DEV_A_NVME_CTRL, dev->nvme_ctrl)) ||
	    (dev->part_sectors &&
	     (nla_put_u32(msg, IOLAT_DEV_A_DISK_MAJOR, dev->disk_major) ||
	      nla_put_u32(msg, IOLAT_DEV_A_DISK_MINOR, dev->disk_minor) ||
	      nla_put_u64(msg, IOLAT_DEV_A_START, dev->part_start) ||
	      nla_put_u64(msg, IOLAT_DEV_A_SECTORS, dev->part_sectors))) ||
	    (dev->bio_based && nla_put_flag(msg, IOLAT_DEV_A_BIO_BASED)) ||
	    (dev->stack_lower && nla_put_flag(msg, IOLAT_DEV_A_LOWER)))
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

/* GET_INFO's reply; IOLAT_A_MISSING_TP repeats, so walk them all. */
static int info_reply(struct iolat_req *req, struct nlattr **tb)
{
	struct iolat_info *info = req->arg;
	struct genlmsghdr *gnlh = nlmsg_data(req->nlh);
	struct nlattr *nla;
	int rem;

	if (tb[IOLAT_A_ABI_VERSION])
		info->abi_version = nla_get_u32(tb[IOLAT_A_ABI_VERSION]);
	if (tb[IOLAT_A_RECORD_SIZE])
		info->record_size = nla_get_u32(tb[IOLAT_A_RECORD_SIZE]);
	if (tb[IOLAT_A_NR_CPUS])
		info->nr_cpus = nla_get_u32(tb[IOLAT_A_NR_CPUS]);
	if (tb[IOLAT_A_NVME_AVAILABLE])
		info->nvme_available = nla_get_u32(tb[IOLAT_A_NVME_AVAILABLE]);
	if (tb[IOLAT_A_CLOCK_INVERSIONS])
		info->clock_inversions =
			nla_get_u64(tb[IOLAT_A_CLOCK_INVERSIONS]);
	if (tb[IOLAT_A_MEM_BYTES])
		info->mem_bytes = nla_get_u64(tb[IOLAT_A_MEM_BYTES]);
	if (tb[IOLAT_A_SESSION_MEM_BYTES])
		info->session_mem_bytes =
			nla_get_u64(tb[IOLAT_A_SESSION_MEM_BYTES]);
	if (tb[IOLAT_A_NR_SESSIONS])
		info->nr_sessions = nla_get_u32(tb[IOLAT_A_NR_SESSIONS]);
	if (tb[IOLAT_A_MODULE_VERSION])
		snprintf(info->module_version, sizeof(info->module_version),
			 "%s", nla_get_string(tb[IOLAT_A_MODULE_VERSION]));
	nla_for_each_attr(nla, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(nla) != IOLAT_A_MISSING_TP ||
		    info->nr_missing == IOLAT_MAX_MISSING)
			continue;
		snprintf(info->missing[info->nr_missing++],
			 sizeof(info->missing[0]), "%.*s", nla_len(nla),
			 (const char *)nla_data(nla));
	}
	return 0;
}

int iolat_nl_info(struct iolat_nl *nl, struct iolat_info *info)
{
	struct nl_msg *msg = nl_request(nl, IOLAT_CMD_GET_INFO, 0);

	memset(info, 0, sizeof(*info));
	if (!msg)
		return -ENOMEM;
	return nl_transact(nl, msg, info_reply, info);
}

/* START's IOLAT_A_WATCH, from iolat_nl_set_watch(). */
static int put_watch(struct nl_msg *msg, const struct iolat_watch_req *w)
{
	struct nlattr *nest = nla_nest_start(msg, IOLAT_A_WATCH);

	if (!nest || nla_put_u64(msg, IOLAT_WATCH_A_BEFORE_NS, w->before_ns) ||
	    (w->slower_ns &&
	     nla_put_u64(msg, IOLAT_WATCH_A_SLOWER_NS, w->slower_ns)) ||
	    nla_put_u32(msg, IOLAT_WATCH_A_STAGE, w->stage) ||
	    (w->on_error && nla_put_flag(msg, IOLAT_WATCH_A_ON_ERROR)))
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

int iolat_nl_start(struct iolat_nl *nl, const struct iolat_dev_req *devs,
		   unsigned int nr_devs, uint32_t ring_records,
		   const struct iolat_filter *f, uint32_t mode)
{
	bool nvme = mode & IOLAT_START_NVME;
	/* a device's attributes take at most 76 bytes; the rest, 80 */
	size_t size = 256 + (size_t)nr_devs * 96;
	struct nl_msg *msg = nl_request_size(nl, IOLAT_CMD_START, 0, size);
	unsigned int i;

	if (!msg)
		return -ENOMEM;
	/*
	 * libnl's send buffer is 32 KiB, a START of some 400 devices; the
	 * kernel takes up to net.core.wmem_max (212 992 by default, which
	 * it doubles): 4096 devices' 390 KiB
	 */
	if (size > 16384)
		nl_socket_set_buffer_size(nl->sk, 0, size + 4096);
	for (i = 0; i < nr_devs; i++)
		if (put_dev(msg, &devs[i], nvme))
			goto nomem;
	if ((ring_records &&
	     nla_put_u32(msg, IOLAT_A_RING_RECORDS, ring_records)) ||
	    (f->ops && nla_put_u32(msg, IOLAT_A_FILTER_OPS, f->ops)) ||
	    (f->pid && nla_put_u32(msg, IOLAT_A_FILTER_PID, f->pid)) ||
	    (f->tgid && nla_put_u32(msg, IOLAT_A_FILTER_TGID, f->tgid)) ||
	    (f->comm[0] && nla_put_string(msg, IOLAT_A_FILTER_COMM, f->comm)) ||
	    (f->min_ns && nla_put_u64(msg, IOLAT_A_FILTER_MIN_NS, f->min_ns)) ||
	    (f->nr_cgroups &&
	     nla_put(msg, IOLAT_A_FILTER_CGROUPS,
		     f->nr_cgroups * sizeof(*f->cgroups), f->cgroups)) ||
	    ((mode & IOLAT_START_COUNTERS_ONLY) &&
	     nla_put_flag(msg, IOLAT_A_COUNTERS_ONLY)) ||
	    ((mode & IOLAT_START_AGGREGATE) &&
	     nla_put_flag(msg, IOLAT_A_AGGREGATE)) ||
	    ((mode & IOLAT_START_CGROUPS) &&
	     nla_put_flag(msg, IOLAT_A_CGROUPS)) ||
	    ((mode >> 8) &&
	     nla_put_u32(msg, IOLAT_A_CGROUP_SLOTS, mode >> 8)) ||
	    (nvme && nla_put_flag(msg, IOLAT_A_NVME)) ||
	    (nl->watch && put_watch(msg, nl->watch)))
		goto nomem;
	return nl_transact(nl, msg, NULL, NULL);
nomem:
	nlmsg_free(msg);
	return -ENOMEM;
}

/**
 * iolat_nl_dev_add() - a whole disk joins this socket's running session
 * @nl: the socket
 * @dev: the disk
 *
 * Return: 0 or a negative errno, with the module's reason in
 * iolat_nl_errmsg(); -EOPNOTSUPP from a module without DEV_ADD.
 */
int iolat_nl_dev_add(struct iolat_nl *nl, const struct iolat_dev_req *dev)
{
	struct nl_msg *msg = nl_request_size(nl, IOLAT_CMD_DEV_ADD, 0, 256);

	if (!msg)
		return -ENOMEM;
	if (put_dev(msg, dev, false)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return nl_transact(nl, msg, NULL, NULL);
}

/* A reply's IOLAT_A_STATS into @st: the counters it has (STOP, WATCH). */
void nl_get_stats(struct nlattr **tb, struct iolat_stats *st)
{
	struct nlattr *s[IOLAT_STAT_A_MAX + 1];
	unsigned int i;

	if (!tb[IOLAT_A_STATS] ||
	    nla_parse_nested(s, IOLAT_STAT_A_MAX, tb[IOLAT_A_STATS], NULL) < 0)
		return;
	for (i = 0; i < IOLAT_STAT_NR; i++)
		if (s[iolat_stat_info[i].attr])
			st->n[i] = nla_get_u64(s[iolat_stat_info[i].attr]);
}

static int stop_reply(struct iolat_req *req, struct nlattr **tb)
{
	nl_get_stats(tb, req->arg);
	return 0;
}

int iolat_nl_stop(struct iolat_nl *nl, struct iolat_stats *stats)
{
	struct nl_msg *msg = nl_request(nl, IOLAT_CMD_STOP, 0);

	memset(stats, 0, sizeof(*stats));
	if (!msg)
		return -ENOMEM;
	return nl_transact(nl, msg, stop_reply, stats);
}

struct read_ctx {
	iolat_records_fn fn;
	iolat_event_fn event;
	void *arg;
};

static const struct nla_policy event_policy[IOLAT_EVENT_A_MAX + 1] = {
	[IOLAT_EVENT_A_TIME_NS] = { .type = NLA_U64 },
	[IOLAT_EVENT_A_KIND] = { .type = NLA_U32 },
	[IOLAT_EVENT_A_MODULE] = { .type = NLA_STRING },
};

static int read_reply(struct iolat_req *req, struct nlattr **tb)
{
	struct genlmsghdr *gnlh = nlmsg_data(req->nlh);
	struct read_ctx *ctx = req->arg;
	struct nlattr *ev[IOLAT_EVENT_A_MAX + 1], *nla;
	char module[64];
	int rem;

	if (tb[IOLAT_A_RECORDS])
		ctx->fn(ctx->arg, nla_data(tb[IOLAT_A_RECORDS]),
			nla_len(tb[IOLAT_A_RECORDS]),
			tb[IOLAT_A_RECORD_SIZE] ?
			nla_get_u32(tb[IOLAT_A_RECORD_SIZE]) : 0);
	if (!tb[IOLAT_A_EVENT] || !ctx->event)
		return 0;
	nla_for_each_attr(nla, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(nla) != IOLAT_A_EVENT ||
		    nla_parse_nested(ev, IOLAT_EVENT_A_MAX, nla,
				     (struct nla_policy *)event_policy) < 0 ||
		    !ev[IOLAT_EVENT_A_KIND])
			continue;
		snprintf(module, sizeof(module), "%s",
			 ev[IOLAT_EVENT_A_MODULE] ?
			 nla_get_string(ev[IOLAT_EVENT_A_MODULE]) : "?");
		ctx->event(ctx->arg,
			   ev[IOLAT_EVENT_A_TIME_NS] ?
			   nla_get_u64(ev[IOLAT_EVENT_A_TIME_NS]) : 0,
			   nla_get_u32(ev[IOLAT_EVENT_A_KIND]), module);
	}
	return 0;
}

/*
 * Drain every CPU's buffer once; @fn gets each IOLAT_A_RECORDS payload,
 * @event (if set) each session event, oldest first.
 */
int iolat_nl_read(struct iolat_nl *nl, iolat_records_fn fn,
		  iolat_event_fn event, void *arg)
{
	struct read_ctx ctx = { .fn = fn, .event = event, .arg = arg };
	struct nl_msg *msg = nl_request(nl, IOLAT_CMD_READ, NLM_F_DUMP);

	if (!msg)
		return -ENOMEM;
	return nl_transact(nl, msg, read_reply, &ctx);
}

/**
 * iolat_nl_connect() - open the family and check the module's ABI
 * @info: set to what the module reports
 *
 * Prints one clear line and returns NULL if the module is not loaded,
 * cannot be asked, or speaks another ABI.
 */
struct iolat_nl *iolat_nl_connect(struct iolat_info *info)
{
	struct iolat_nl *nl = iolat_nl_open();
	int err;

	if (!nl) {
		/* the family is not network-namespace aware (netnsok) */
		if (errno == ENOENT && !access("/sys/module/iolat", F_OK))
			iolat_err("the iolat module is loaded, but its netlink family is only in the initial network namespace: run iolat there");
		else if (errno == ENOENT)
			iolat_err("the iolat kernel module is not loaded (load it with: modprobe iolat)");
		else
			iolat_err("cannot open a generic netlink socket");
		return NULL;
	}
	err = iolat_nl_info(nl, info);
	if (err) {
		iolat_err("cannot query the iolat module: %s%s%s",
			  strerror(-err), nl->errmsg[0] ? ": " : "",
			  nl->errmsg);
		iolat_nl_close(nl);
		return NULL;
	}
	if (info->abi_version != IOLAT_CLI_ABI) {
		iolat_err("the loaded iolat module %s speaks ABI %u, this iolat %s speaks ABI %u: install matching versions",
			  info->module_version, info->abi_version,
			  IOLAT_VERSION, IOLAT_CLI_ABI);
		iolat_nl_close(nl);
		return NULL;
	}
	return nl;
}
