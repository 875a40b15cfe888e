// SPDX-License-Identifier: GPL-2.0
/*
 * The records of a bio-based device's I/O and of an NVMe admin command,
 * written into the current CPU's ring (emit.h has a request's).
 */
#include "emit.h"
#include "upper.h"

/**
 * iolat_record_flags() - the ABI's IOLAT_F_* flags of a request
 * @opf: rq->cmd_flags
 */
u32 iolat_record_flags(blk_opf_t opf)
{
	return __iolat_record_flags(opf);
}
EXPORT_SYMBOL_IF_KUNIT(iolat_record_flags);

const struct iolat_nvme_slot iolat_record_no_nvme;

/**
 * iolat_record_emit_upper() - write a bio-based device's completed I/O
 * @s: the session
 * @d: the device
 * @u: the bio's slot
 * @c_ns: when it completed
 * @error: 0 or a negative errno
 * @cgroup: the bio's cgroup (a session with cgroups), or 0
 *
 * A bio has no request stages: Q and C, with the device's bios in flight
 * before it as both its queue depths, and its slot as its tag.
 */
void iolat_record_emit_upper(struct iolat_session *s,
			     const struct iolat_dev *d,
			     const struct iolat_upper_slot *u, u64 c_ns,
			     int error, u64 cgroup)
{
	struct iolat_ring_slot *rs;
	struct iolat_record *rec;
	unsigned long pos;

	rs = iolat_record_reserve(s, &pos);
	if (!rs)
		return;
	rec = &rs->rec;
	rec->q_ns = u->q_ns;
	rec->g_ns = 0;
	rec->i_ns = 0;
	rec->d_ns = 0;
	rec->c_ns = c_ns;
	rec->sector = u->sector;
	rec->major = MAJOR(d->id);
	rec->minor = MINOR(d->id);
	rec->bytes = u->bytes;
	rec->flags = u->flags | IOLAT_F_BIO;
	rec->pid = u->who.pid;
	rec->tgid = u->who.tgid;
	memcpy(rec->comm, u->who.comm, IOLAT_COMM_LEN);
	rec->hwq = 0;
	rec->tag = u - d->upper;
	rec->nr_bios = 1;
	rec->requeues = 0;
	rec->qd_insert = u->qd;
	rec->qd_issue = u->qd;
	rec->op = u->op;
	rec->pad = 0;
	rec->error = error;
	/* the rest only as far as the session sends it: its slots end there */
	if (s->record_size > IOLAT_RECORD_BLOCK_SIZE)
		rec->cgroup = cgroup;
	if (s->record_size > IOLAT_RECORD_CGROUP_SIZE)
		iolat_record_nvme(rec, NULL, &iolat_record_no_nvme, 0);
	if (s->record_size > IOLAT_RECORD_NVME_SIZE)
		rec->link = u->link;
	iolat_record_publish(s, rs, pos, error);
}

/**
 * iolat_record_emit_admin() - write a completed admin command's record
 * @s: the session
 * @c: its controller
 * @rq: the command's request, on the admin queue
 * @slot: the command's fields, completed
 *
 * An admin command has no block stages: its issue and completion are the
 * command's setup and completion.
 */
void iolat_record_emit_admin(struct iolat_session *s,
			     const struct iolat_nvme_ctrl *c,
			     const struct request *rq,
			     const struct iolat_nvme_slot *slot)
{
	struct iolat_ring_slot *rs;
	struct iolat_record *rec;
	unsigned long pos;

	rs = iolat_record_reserve(s, &pos);
	if (!rs)
		return;
	rec = &rs->rec;
	/* as far as the session sends it: its slot ends there */
	memset(rec, 0, s->record_size);
	rec->d_ns = slot->setup_ns;
	rec->c_ns = slot->done_ns;
	rec->bytes = blk_rq_bytes(rq);
	rec->flags = IOLAT_F_NVME | IOLAT_F_NVME_ADMIN |
		     (slot->who.pid ? IOLAT_F_SUBMITTER : 0);
	rec->pid = slot->who.pid;
	rec->tgid = slot->who.tgid;
	memcpy(rec->comm, slot->who.comm, IOLAT_COMM_LEN);
	rec->tag = rq->tag;
	rec->nr_bios = iolat_record_bios(rq);
	rec->op = IOLAT_OP_OTHER;
	iolat_record_nvme(rec, c, slot, 0);
	iolat_record_publish(s, rs, pos, 0);
}
