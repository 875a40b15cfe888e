/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct iolat_record helpers shared by the module, the KUnit suite and
 * the CLI.
 */
#ifndef _IOLAT_LIB_RECORD_H
#define _IOLAT_LIB_RECORD_H

#include <linux/types.h>
#include <linux/iolat.h>

/* The stages of a request, between two of its timestamps (blktrace names). */
enum iolat_stage {
	IOLAT_STAGE_Q2G,	/* queued -> request allocated */
	IOLAT_STAGE_G2I,	/* allocated -> inserted */
	IOLAT_STAGE_I2D,	/* inserted -> issued to the driver */
	IOLAT_STAGE_D2C,	/* issued -> completed: driver and device */
	IOLAT_STAGE_Q2C,	/* queued -> completed: the whole request */

	IOLAT_STAGE_NR
};

/**
 * iolat_stage_ns() - how long a request spent in one stage
 * @q_ns: Q, or 0 if not seen; likewise @g_ns, @i_ns, @d_ns and @c_ns
 * @g_ns: G
 * @i_ns: I
 * @d_ns: D
 * @c_ns: C
 * @stage: enum iolat_stage
 * @ns: set to the duration, if it is known
 *
 * A stage is known when both of its timestamps were seen (a request
 * issued without being inserted has no G2I or I2D) and they are in order.
 * The one definition, for records and for the module's histograms;
 * inline, as the CLI computes it for every record it takes in.
 *
 * Return: 1 if known, else 0.
 */
static inline int iolat_stage_ns(__u64 q_ns, __u64 g_ns, __u64 i_ns,
				 __u64 d_ns, __u64 c_ns, unsigned int stage,
				 __u64 *ns)
{
	__u64 from, to;

	switch (stage) {
	case IOLAT_STAGE_Q2G:
		from = q_ns;
		to = g_ns;
		break;
	case IOLAT_STAGE_G2I:
		from = g_ns;
		to = i_ns;
		break;
	case IOLAT_STAGE_I2D:
		from = i_ns;
		to = d_ns;
		break;
	case IOLAT_STAGE_D2C:
		from = d_ns;
		to = c_ns;
		break;
	case IOLAT_STAGE_Q2C:
		from = q_ns;
		to = c_ns;
		break;
	default:
		return 0;
	}
	if (!from || !to || to < from)
		return 0;
	*ns = to - from;
	return 1;
}

/**
 * iolat_stages_ns() - every stage of a request at once
 * @q_ns: Q, or 0 if not seen; likewise @g_ns, @i_ns, @d_ns and @c_ns
 * @g_ns: G
 * @i_ns: I
 * @d_ns: D
 * @c_ns: C
 * @ns: [IOLAT_STAGE_NR], set for each stage known
 *
 * iolat_stage_ns() of each stage, each with its stage a constant, so
 * that the compiler keeps only the compares (the CLI takes every stage
 * of every record).
 *
 * Return: a bit (1 << stage) per stage known.
 */
static inline unsigned int iolat_stages_ns(__u64 q_ns, __u64 g_ns, __u64 i_ns,
					   __u64 d_ns, __u64 c_ns, __u64 *ns)
{
	unsigned int known;

	/*
	 * The usual request: Q, G, D and C seen, in order (so none is 0),
	 * with or without I (a queue without a scheduler issues without
	 * inserting).  The same as below, in fewer compares.
	 */
	if (q_ns && g_ns >= q_ns && d_ns >= g_ns && c_ns >= d_ns) {
		ns[IOLAT_STAGE_Q2G] = g_ns - q_ns;
		ns[IOLAT_STAGE_D2C] = c_ns - d_ns;
		ns[IOLAT_STAGE_Q2C] = c_ns - q_ns;
		known = 1U << IOLAT_STAGE_Q2G | 1U << IOLAT_STAGE_D2C |
			1U << IOLAT_STAGE_Q2C;
		/* g_ns is not 0: an I at or after it is not 0 either */
		if (i_ns >= g_ns) {
			ns[IOLAT_STAGE_G2I] = i_ns - g_ns;
			known |= 1U << IOLAT_STAGE_G2I;
		}
		if (i_ns && d_ns >= i_ns) {
			ns[IOLAT_STAGE_I2D] = d_ns - i_ns;
			known |= 1U << IOLAT_STAGE_I2D;
		}
		return known;
	}
#define IOLAT_STAGE_BIT(st)						\
	(iolat_stage_ns(q_ns, g_ns, i_ns, d_ns, c_ns, st, &ns[st]) << (st))
	return IOLAT_STAGE_BIT(IOLAT_STAGE_Q2G) |
	       IOLAT_STAGE_BIT(IOLAT_STAGE_G2I) |
	       IOLAT_STAGE_BIT(IOLAT_STAGE_I2D) |
	       IOLAT_STAGE_BIT(IOLAT_STAGE_D2C) |
	       IOLAT_STAGE_BIT(IOLAT_STAGE_Q2C);
#undef IOLAT_STAGE_BIT
}

/**
 * iolat_latency_ns() - a request's latency from its stage times
 * @q_ns: Q, or 0 if not seen; likewise @g_ns, @i_ns and @d_ns
 * @g_ns: G
 * @i_ns: I
 * @d_ns: D
 * @c_ns: C
 *
 * The one definition of latency, for records and for the module's
 * minimum latency filter.
 *
 * Return: @c_ns minus the first stage seen (Q, else G, I, D), or 0 if none
 * was seen or the clock went backwards.
 */
static inline __u64 iolat_latency_ns(__u64 q_ns, __u64 g_ns, __u64 i_ns,
				     __u64 d_ns, __u64 c_ns)
{
	__u64 first = q_ns ? q_ns : g_ns ? g_ns : i_ns ? i_ns : d_ns;

	return first && c_ns > first ? c_ns - first : 0;
}

const char *iolat_op_name(unsigned int op);
const char *iolat_stage_name(unsigned int stage);
int iolat_record_stage(const struct iolat_record *r, unsigned int stage,
		       __u64 *ns);
__u64 iolat_record_latency(const struct iolat_record *r);
int iolat_record_monotonic(const struct iolat_record *r);
int iolat_record_decode(const void *buf, __u32 len, __u32 rec_size,
			__u32 index, struct iolat_record *out);

/**
 * iolat_record_empty_write() - is this a write without data?
 * @r: the record
 *
 * A write of no bytes is a preflush: the empty write fsync() issues to a
 * disk with a volatile write cache, completed when the cache flush it
 * waits for is.  blk-mq clears REQ_PREFLUSH from it on the way
 * (blk_insert_flush()), so the record's flags do not say; its time is
 * the flush's, and its sector means nothing.
 *
 * Return: 1 if so, else 0.
 */
static inline int iolat_record_empty_write(const struct iolat_record *r)
{
	return r->op == IOLAT_OP_WRITE && !r->bytes;
}

/* struct iolat_record's sector of a request with none (a flush) */
#define IOLAT_NO_SECTOR		(~(__u64)0)

/* Does the request's sector mean anything?  Not a flush's, nor a preflush's. */
static inline int iolat_record_has_sector(const struct iolat_record *r)
{
	return r->sector != IOLAT_NO_SECTOR && !iolat_record_empty_write(r);
}

/*
 * Blocks an NVMe command covers: its own count for the commands that
 * address LBAs, all its ranges for a Dataset Management command, else 0.
 */
static inline __u64 iolat_nvme_lbas(const struct iolat_record *r)
{
	if (r->flags & IOLAT_F_NVME_DSM)
		return r->dsm_lbas;
	return r->qid ? r->nlb : 0;
}

/* Its bytes: its blocks in bytes, or an admin command's data transfer. */
static inline __u64 iolat_nvme_bytes(const struct iolat_record *r)
{
	if (!r->qid)
		return r->bytes;
	return iolat_nvme_lbas(r) << r->lba_shift;
}

#endif /* _IOLAT_LIB_RECORD_H */
