// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe probes: nvme_setup_cmd, when the driver has built a command, and
 * nvme_complete_rq, when it completes it (on the batched completion path
 * too).  nvme-core is a module with private tracepoints: attach.c finds
 * them through the tracepoint module notifier.  A command's fields come
 * from the command itself (include/linux/nvme.h); a discard's ranges from
 * its request's special payload, which nvme_setup_discard() has filled
 * when the tracepoint fires; the completion's status, result and retries
 * from the head of nvme-core's request data (compat.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/nvme.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/kdev_t.h>
#include "probe_nvme.h"
#include "stash.h"
#include "cpus.h"
#include "../lib/nvme_names.h"
#include "alloc.h"

/*
 * The layout of the head of nvme-core's request data (compat.h): known
 * at build time where nvme-core's source is at hand, else learnt from
 * the commands themselves, once per nvme-core (it comes and goes).
 */
enum iolat_nvme_layout {
	IOLAT_NVME_LAYOUT_UNKNOWN,
	IOLAT_NVME_LAYOUT_GENCTR,	/* struct iolat_nvme_head_genctr */
	IOLAT_NVME_LAYOUT_PLAIN,	/* struct iolat_nvme_head_plain */
	IOLAT_NVME_LAYOUT_CONFLICT,	/* neither: statuses left unread */
};

#ifdef IOLAT_NVME_PRIVATE
/*
 * The source tree is there: nvme-core's own struct nvme_request must be
 * one of compat.h's copies, field by field, or the build fails.  File
 * scope, so that the check is compiled whatever calls it (a
 * BUILD_BUG_ON() in a function nothing calls never fires).
 */
#include "host/nvme.h"		/* drivers/nvme/host/nvme.h */

#define IOLAT_NVME_HEAD_IS(copy)					\
	(offsetof(struct nvme_request, cmd) == offsetof(copy, cmd) &&	\
	 offsetof(struct nvme_request, result) == offsetof(copy, result) && \
	 sizeof(((struct nvme_request *)0)->result) ==			\
	 sizeof(((copy *)0)->result) &&					\
	 offsetof(struct nvme_request, retries) == offsetof(copy, retries) && \
	 offsetof(struct nvme_request, flags) == offsetof(copy, flags) && \
	 offsetof(struct nvme_request, status) == offsetof(copy, status) && \
	 sizeof(((struct nvme_request *)0)->status) ==			\
	 sizeof(((copy *)0)->status))
#define IOLAT_NVME_REAL_GENCTR IOLAT_NVME_HEAD_IS(struct iolat_nvme_head_genctr)
#define IOLAT_NVME_REAL_PLAIN IOLAT_NVME_HEAD_IS(struct iolat_nvme_head_plain)
static_assert(IOLAT_NVME_REAL_GENCTR || IOLAT_NVME_REAL_PLAIN,
	      "nvme-core's struct nvme_request is not the head compat.h knows");
#define IOLAT_NVME_LAYOUT_BUILT (IOLAT_NVME_REAL_GENCTR ? \
				 IOLAT_NVME_LAYOUT_GENCTR : \
				 IOLAT_NVME_LAYOUT_PLAIN)
#else
#define IOLAT_NVME_LAYOUT_BUILT IOLAT_NVME_LAYOUT_UNKNOWN
#endif

static int iolat_nvme_layout = IOLAT_NVME_LAYOUT_BUILT;

/* nvme-core has come: its layout is to be learnt again. */
void iolat_nvme_layout_reset(void)
{
	WRITE_ONCE(iolat_nvme_layout, IOLAT_NVME_LAYOUT_BUILT);
}

/* What a command showed of the layout; two answers make a conflict. */
static void iolat_nvme_layout_seen(int layout)
{
	int was = READ_ONCE(iolat_nvme_layout);

	if (was == layout || was == IOLAT_NVME_LAYOUT_CONFLICT)
		return;
	if (was == IOLAT_NVME_LAYOUT_UNKNOWN &&
	    cmpxchg(&iolat_nvme_layout, was, layout) == was)
		return;
	if (READ_ONCE(iolat_nvme_layout) == layout)
		return;
	WRITE_ONCE(iolat_nvme_layout, IOLAT_NVME_LAYOUT_CONFLICT);
	pr_warn_once("nvme-core's request data is not laid out as iolat knows: NVMe statuses are reported as unknown\n");
}

/*
 * At setup: with a genctr, the command id is the generation's low four
 * bits above the 12-bit tag (nvme_cid()), and the generation is the
 * head's byte after the result; without, the id is the tag and that byte
 * is the retry count, 0 on a first try and never 16 or more with the
 * default nvme_core.max_retries of 5.  So a nonzero generation in an id
 * says which once its byte agrees, and so does a byte of 16, 32, ...
 * where the id's generation bits are 0.  The byte is kept for the
 * completion: a tag's first command has generation 0, which says nothing.
 */
static void iolat_nvme_layout_setup(struct request *rq,
				    struct iolat_nvme_slot *slot)
{
	const struct iolat_nvme_head_genctr *g = blk_mq_rq_to_pdu(rq);
	u16 cid = slot->cid;

	slot->head_byte = g->genctr;
	if (READ_ONCE(iolat_nvme_layout) != IOLAT_NVME_LAYOUT_UNKNOWN)
		return;
	if (!(cid >> 12) && (g->genctr & 0xf || !g->genctr))
		return;
	iolat_nvme_layout_seen((cid >> 12) == (g->genctr & 0xf) &&
			       (cid & 0xfff) == rq->tag ?
			       IOLAT_NVME_LAYOUT_GENCTR :
			       IOLAT_NVME_LAYOUT_CONFLICT);
}

/*
 * At completion, the status and retries nvme-core left in the head.
 * nvme_try_complete_req() increments the generation before the
 * completion's event (v5.18, "nvme: increment request genctr on
 * completion"; v5.13 to it did so at setup), where the retry count of
 * the other layout changes only after it (nvme_retry_req()): the byte
 * after the result one more than at setup says genctr.  Else the two layouts'
 * statuses lie at different offsets, and each one's offset is, in the
 * other, padding (always 0) or the flags byte and padding (below 0x100):
 * a status read nonzero in the genctr copy, or of 0x100 and more in the
 * plain one, says which.  Where both read 0 the command succeeded in
 * either.  Retries before the layout is known: where the two copies
 * disagree, 0.
 * Return: false if the status cannot be known.
 */
static bool iolat_nvme_head_read(struct request *rq,
				 const struct iolat_nvme_slot *slot,
				 u16 *status, u8 *retries)
{
	const struct iolat_nvme_head_genctr *g = blk_mq_rq_to_pdu(rq);
	const struct iolat_nvme_head_plain *p = blk_mq_rq_to_pdu(rq);
	int layout = READ_ONCE(iolat_nvme_layout);

	if (layout == IOLAT_NVME_LAYOUT_UNKNOWN) {
		if (g->genctr == (u8)(slot->head_byte + 1) || g->status)
			iolat_nvme_layout_seen(IOLAT_NVME_LAYOUT_GENCTR);
		else if (p->status > 0xff)
			iolat_nvme_layout_seen(IOLAT_NVME_LAYOUT_PLAIN);
		layout = READ_ONCE(iolat_nvme_layout);
	}
	switch (layout) {
	case IOLAT_NVME_LAYOUT_GENCTR:
		*status = g->status;
		*retries = g->retries;
		return true;
	case IOLAT_NVME_LAYOUT_PLAIN:
		*status = p->status;
		*retries = p->retries;
		return true;
	case IOLAT_NVME_LAYOUT_UNKNOWN:
		if (g->status || p->status)
			return false;
		*status = 0;
		*retries = g->retries == p->retries ? g->retries : 0;
		return true;
	default:
		return false;
	}
}

/* The command's slot and qid, or NULL outside the tables. */
static struct iolat_nvme_slot *iolat_nvme_slot(const struct iolat_nvme_ctrl *c,
					       const struct request *rq,
					       u16 *qid)
{
	struct iolat_nvme_slot *io;
	u32 hwq;

	if (rq->tag < 0)
		return NULL;
	if (!rq->q->queuedata) {	/* the admin queue (nvme_req_qid()) */
		*qid = 0;
		return rq->tag < IOLAT_NVME_ADMIN_TAGS ? &c->admin[rq->tag] : NULL;
	}
	hwq = iolat_rq_hwq(rq);
	if (hwq >= c->nr_hwq || rq->tag >= c->depth)
		return NULL;
	io = READ_ONCE(c->io[hwq]);	/* a queue no CPU present uses: none */
	if (!io)
		return NULL;
	*qid = hwq + 1;
	return &io[rq->tag];
}

/*
 * A traced namespace whose controller's key is not known (nvme-core came
 * back since): it is learnt from the namespace's first command.
 */
static struct iolat_nvme_ctrl *iolat_nvme_relearn(struct iolat_session *s,
						  const struct request *rq)
{
	const void *key = rq->q->tag_set ? rq->q->tag_set->driver_data : NULL;
	struct iolat_dev *d;

	if (!key || !rq->q->queuedata)
		return NULL;
	d = iolat_session_dev(s, iolat_rq_devt(rq), blk_rq_pos(rq));
	if (!d || !d->nvme)
		return NULL;
	if (cmpxchg((void **)&d->nvme->key, NULL, (void *)key) &&
	    READ_ONCE(d->nvme->key) != key)
		return NULL;
	return d->nvme;
}

/* A Dataset Management command's ranges, from its special payload. */
static void iolat_nvme_dsm(struct iolat_nvme_slot *slot,
			   const struct request *rq,
			   const struct nvme_command *cmd)
{
	const struct nvme_dsm_range *r;
	u32 nr = le32_to_cpu(cmd->dsm.nr) + 1, i;

	slot->dsm = true;
	slot->dsm_nr = min_t(u32, nr, U16_MAX);
	if (!(rq->rq_flags & RQF_SPECIAL_PAYLOAD) || !rq->special_vec.bv_page)
		return;
	r = page_address(rq->special_vec.bv_page) + rq->special_vec.bv_offset;
	nr = min_t(u32, nr, rq->special_vec.bv_len / sizeof(*r));
	for (i = 0; i < nr; i++)
		slot->dsm_lbas += le32_to_cpu(r[i].nlb);
	if (nr) {
		slot->dsm_slba = le64_to_cpu(r[0].slba);
		slot->dsm_nlb = le32_to_cpu(r[0].nlb);
	}
}

/*
 * The fields of @slot that the setup probe does not always set, to zero:
 * field by field, as iolat_slot_fill() does, for every I/O command; a
 * memset() of the slot is a `rep stos`.  The admin command's submitter
 * is cleared where it is taken.
 */
static void iolat_nvme_slot_clear(struct iolat_nvme_slot *slot)
{
	slot->done_ns = 0;
	slot->slba = 0;
	slot->dsm_slba = 0;
	slot->dsm_lbas = 0;
	slot->nlb = 0;
	slot->dsm_nlb = 0;
	slot->result = 0;
	slot->status = 0;
	slot->dsm_nr = 0;
	slot->lba_shift = 0;
	slot->retries = 0;
	slot->dsm = false;
	slot->filtered = false;
}

/* nvme_setup_cmd: the command is built, about to go to the controller. */
static void iolat_probe_nvme_setup(IOLAT_TP_NVME_SETUP_PROTO(data, rq, cmd))
{
	struct iolat_session *s = data;
	struct iolat_nvme_slot *slot;
	struct iolat_nvme_ctrl *c;
	u16 qid;
	int qd;

	iolat_probe_pin_cpu();
	c = iolat_nvme_ctrl_of(s, rq) ?: iolat_nvme_relearn(s, rq);
	if (!c)
		return;
	slot = iolat_nvme_slot(c, rq, &qid);
	if (!slot) {
		iolat_count(s, IOLAT_S_DROP_RANGE);
		return;
	}
	if (!iolat_session_armed(s))
		return;
	if (slot->state == IOLAT_NVME_DONE && slot->rq == rq)
		iolat_count(s, IOLAT_S_NVME_RETRIED);
	else if (slot->state == IOLAT_NVME_SETUP)
		/* its completion went unseen: it no longer counts */
		atomic_dec(&c->qids[qid].n);
	iolat_nvme_slot_clear(slot);
	slot->cmd = cmd;
	slot->cid = le16_to_cpu(cmd->common.command_id);
	iolat_nvme_layout_setup(rq, slot);
	slot->opcode = cmd->common.opcode;
	slot->nsid = le32_to_cpu(cmd->common.nsid);
	if (qid) {
		slot->lba_shift = ilog2(queue_logical_block_size(rq->q));
		if (iolat_nvme_io_has_lba(slot->opcode)) {
			slot->slba = le64_to_cpu(cmd->rw.slba);
			slot->nlb = le16_to_cpu(cmd->rw.length) + 1;
		} else if (slot->opcode == nvme_cmd_dsm) {
			iolat_nvme_dsm(slot, rq, cmd);
		}
	} else {
		bool known = false;

		memset(&slot->who, 0, sizeof(slot->who));
		if (in_task() && !(current->flags & PF_KTHREAD))
			known = iolat_submitter_set(&slot->who, current);
		/* an admin command: no bio, so no cgroup to keep */
		slot->filtered = !iolat_filter_wanted(&s->filter,
						      IOLAT_OP_OTHER,
						      &slot->who, known) ||
				 s->filter.nr_cgroups;
	}
	qd = atomic_inc_return(&c->qids[qid].n) - 1;
	slot->qd = min_t(int, max(qd, 0), U16_MAX);
	slot->setup_ns = iolat_now();
	slot->state = IOLAT_NVME_SETUP;
	slot->rq = rq;
}

/*
 * nvme_complete_rq: the controller completed the command; nvme-core
 * decides next whether it ends the request or retries it.  An I/O
 * command's fields wait in its slot for the request's completion
 * (block_rq_complete follows on the same CPU, or, batched, after the
 * batch's commands); an admin command's record is written here.
 */
static void iolat_probe_nvme_complete(IOLAT_TP_NVME_COMPLETE_PROTO(data, rq))
{
	/* the result lies at the same offset in either layout */
	const struct iolat_nvme_head_plain *head = blk_mq_rq_to_pdu(rq);
	struct iolat_session *s = data;
	struct iolat_nvme_slot *slot;
	struct iolat_nvme_ctrl *c;
	u16 qid;

	iolat_probe_pin_cpu();
	c = iolat_nvme_ctrl_of(s, rq);
	if (!c)
		return;
	slot = iolat_nvme_slot(c, rq, &qid);
	if (!slot)
		return;		/* counted at its setup */
	iolat_count(s, IOLAT_S_NVME_COMPLETED);
	if (slot->rq != rq || slot->state != IOLAT_NVME_SETUP) {
		iolat_count(s, IOLAT_S_NVME_UNMATCHED);
		return;
	}
	slot->done_ns = iolat_now();
	atomic_dec(&c->qids[qid].n);
	if (iolat_nvme_head_read(rq, slot, &slot->status,
				 &slot->retries))
		slot->result = le32_to_cpu(head->result.u32);
	else
		slot->status = IOLAT_NVME_STATUS_UNKNOWN;
	slot->state = IOLAT_NVME_DONE;
	if (!qid) {
		if (slot->filtered ||
		    (s->filter.min_ns &&
		     slot->done_ns - slot->setup_ns < s->filter.min_ns))
			iolat_count(s, IOLAT_S_FILTERED);
		else if (!s->counters_only)
			iolat_record_emit_admin(s, c, rq, slot);
	} else if (iolat_session_dev(s, iolat_rq_devt(rq),
				     blk_rq_pos(rq))) {
		return;
	}
	if (qid)
		iolat_count(s, IOLAT_S_NVME_OTHER_NS);
	slot->state = IOLAT_NVME_FREE;
	slot->rq = NULL;
}

/**
 * iolat_nvme_done() - the NVMe command of a completing request
 * @d: the request's device, a namespace of a traced controller
 * @rq: the request
 *
 * The slot is read in place, not copied, and freed with
 * iolat_nvme_release() once the request's record is written: it is
 * indexed by the request's tag, which no other request gets before this
 * one is freed, after its completion.
 *
 * Return: the command's slot, or NULL if it was not seen set up and
 * completed.
 */
struct iolat_nvme_slot *iolat_nvme_done(const struct iolat_dev *d,
					const struct request *rq)
{
	struct iolat_nvme_slot *slot;
	u16 qid;

	slot = iolat_nvme_slot(d->nvme, rq, &qid);
	if (!slot || slot->rq != rq || slot->state != IOLAT_NVME_DONE)
		return NULL;
	return slot;
}

/**
 * iolat_nvme_ctrl_key() - learn a controller's key from a namespace: the
 *	driver data of its tag set, which the admin queue's shares
 * @c: the controller
 * @devt: one of its namespaces
 * @extack: for the reason of a failure, or NULL
 *
 * Return: 0, or a negative errno.
 */
int iolat_nvme_ctrl_key(struct iolat_nvme_ctrl *c, dev_t devt,
			struct netlink_ext_ack *extack)
{
	struct block_device *bdev;
	const void *key;
	void *h;

	bdev = iolat_bdev_open(devt, &h);
	if (IS_ERR(bdev)) {
		NL_SET_ERR_MSG(extack, "cannot open an NVMe namespace to find its controller");
		return PTR_ERR(bdev);
	}
	/* a multipath head has no tag set */
	key = bdev_get_queue(bdev)->tag_set ?
	      bdev_get_queue(bdev)->tag_set->driver_data : NULL;
	iolat_bdev_close(bdev, h);
	if (!key) {
		NL_SET_ERR_MSG(extack, "an NVMe device without a tag set (a multipath head): trace its paths");
		return -EOPNOTSUPP;
	}
	if (c->key && c->key != key) {
		NL_SET_ERR_MSG(extack, "NVMe namespaces of one controller number on different controllers");
		return -EINVAL;
	}
	WRITE_ONCE(c->key, key);
	return 0;
}

/* Each probe against nvme-core's declarations, where they are at hand. */
#ifdef IOLAT_NVME_PRIVATE
#include "host/trace.h"		/* drivers/nvme/host/trace.h */
static void __maybe_unused iolat_probe_nvme_types(void)
{
	check_trace_callback_type_nvme_setup_cmd(iolat_probe_nvme_setup);
	check_trace_callback_type_nvme_complete_rq(iolat_probe_nvme_complete);
}
#endif

/*
 * Registration order: completion first, so that no command is seen set
 * up without its completion being watched; unregistration is the reverse.
 */
struct iolat_probe iolat_nvme_probes[] = {
	{ .tp_name = "nvme_complete_rq", .func = iolat_probe_nvme_complete,
	  .required = true, .per_session = true },
	{ .tp_name = "nvme_setup_cmd", .func = iolat_probe_nvme_setup,
	  .required = true, .per_session = true },
};

const unsigned int iolat_nr_nvme_probes = ARRAY_SIZE(iolat_nvme_probes);
