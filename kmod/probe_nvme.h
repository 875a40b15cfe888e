/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVMe commands: the state a session keeps per traced controller between
 * a command's setup (nvme_setup_cmd) and its completion (nvme_complete_rq),
 * and until the block layer completes the request that carried it.
 *
 * A controller's namespaces share its I/O tag set, so a command is found
 * by (hardware queue, driver tag) in the controller's table, whatever the
 * namespace; admin commands have a table of their own.  A controller is
 * known by its tag sets' driver data (compat.h), compared against the
 * session's few controllers: no lock, hash or allocation.  The commands
 * of each qid set up and not completed are counted in the qid's own
 * cache line, written by the CPUs submitting to it and completing it.
 */
#ifndef _IOLAT_PROBE_NVME_H
#define _IOLAT_PROBE_NVME_H

#include <linux/blk-mq.h>
#include "iolat.h"

enum iolat_nvme_state {
	IOLAT_NVME_FREE,
	IOLAT_NVME_SETUP,	/* at the controller */
	IOLAT_NVME_DONE,	/* completed; waits for the block completion */
};

/* Every field is set, or cleared by iolat_nvme_slot_clear(), at setup. */
struct iolat_nvme_slot {
	const struct request *rq;	/* owner; NULL when free */
	const struct nvme_command *cmd;	/* as set up: nvme_req(rq)->cmd */
	u64 setup_ns;
	u64 done_ns;
	u64 slba;
	u64 dsm_slba;
	u64 dsm_lbas;
	u32 nsid;
	u32 nlb;
	u32 dsm_nlb;
	u32 result;
	u16 cid;
	u16 status;
	u16 qd;
	u16 dsm_nr;
	u8 opcode;
	u8 lba_shift;
	u8 retries;
	u8 state;			/* enum iolat_nvme_state */
	bool dsm;
	bool filtered;
	u8 head_byte;			/* nvme_req()'s genctr or retries at setup */
	struct iolat_submitter who;	/* admin commands */
};

struct iolat_nvme_qid {
	atomic_t n;
} ____cacheline_aligned_in_smp;

/*
 * A traced controller: nvme<instance>, its key (NULL until known again
 * after nvme-core came back) and the geometry of its I/O tag set.  A
 * queue's commands have a table of their own, made for the queues of the
 * CPUs present and of a CPU made present later when it comes online, as
 * the namespaces' in-flight tables (inflight.c).
 */
struct iolat_nvme_ctrl {
	const void *key;
	u32 instance;
	u32 nr_hwq;
	u32 depth;
	struct iolat_nvme_slot **io;	/* [nr_hwq][depth]; a queue's NULL until made */
	u16 *cpu_hwqs;			/* its namespace's map, or NULL: every queue's */
	struct iolat_nvme_slot *admin;	/* [IOLAT_NVME_ADMIN_TAGS] */
	struct iolat_nvme_qid *qids;	/* [nr_hwq + 1]; 0 is the admin queue */
};

/* The controller of a request, by its tag set: a few compares. */
static inline struct iolat_nvme_ctrl *
iolat_nvme_ctrl_of(struct iolat_session *s, const struct request *rq)
{
	const void *key = rq->q->tag_set ? rq->q->tag_set->driver_data : NULL;
	unsigned int i;

	if (!key)
		return NULL;
	for (i = 0; i < s->nr_ctrls; i++)
		if (READ_ONCE(s->ctrls[i].key) == key)
			return &s->ctrls[i];
	return NULL;
}

size_t iolat_nvme_ctrl_bytes(const struct iolat_dev_spec *spec,
			      size_t *tables);
int iolat_nvme_ctrl_init(struct iolat_nvme_ctrl *c, u32 instance,
			 const struct iolat_dev *d, atomic64_t *bytes);
int iolat_nvme_ctrl_cpu(struct iolat_nvme_ctrl *c, unsigned int cpu,
			atomic64_t *bytes);
void iolat_nvme_ctrl_free(struct iolat_nvme_ctrl *c);
void iolat_nvme_ctrl_reset(struct iolat_nvme_ctrl *c);
int iolat_nvme_ctrl_key(struct iolat_nvme_ctrl *c, dev_t devt,
			struct netlink_ext_ack *extack);
struct iolat_nvme_slot *iolat_nvme_done(const struct iolat_dev *d,
					const struct request *rq);

/* The slot iolat_nvme_done() gave, free for the tag's next command. */
static inline void iolat_nvme_release(struct iolat_nvme_slot *slot)
{
	slot->state = IOLAT_NVME_FREE;
	slot->rq = NULL;
}

void iolat_nvme_layout_reset(void);

#endif /* _IOLAT_PROBE_NVME_H */
