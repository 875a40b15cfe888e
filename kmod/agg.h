/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel aggregation (IOLAT_A_AGGREGATE): instead of a record, a
 * completed request adds its latencies to histograms of the CPU it
 * completes on, per device, op and stage (Q2C, D2C), in lib/hist.h's
 * coarse bins (struct iolat_agg_hist).  The reader (IOLAT_CMD_HIST) sums
 * the CPUs' histograms into lib/hist.h's fine ones when asked.
 * Nothing is shared between CPUs and nothing can be lost: the cost per
 * request is two bin increments on this CPU's own memory.
 */
#ifndef _IOLAT_AGG_H
#define _IOLAT_AGG_H

#include "iolat.h"
#include "../lib/hist.h"

#define IOLAT_AGG_NR_STAGES	2	/* Q2C, D2C: index 0, 1 */

/* One CPU's histograms of one device: [op][stage], and what went in. */
struct iolat_agg_cpu {
	u64 ios[IOLAT_OP_NR];		/* requests added */
	u64 bytes[IOLAT_OP_NR];
	struct iolat_agg_hist h[IOLAT_OP_NR][IOLAT_AGG_NR_STAGES];
};

/*
 * A CPU's histograms of a device fit in five pages, so that with its
 * counters (acct.h, 2 KiB) they take less than 24 KiB: docs/design.md.
 */
#define IOLAT_AGG_CPU_MAX	(20 * 1024)

static inline unsigned int iolat_agg_stage(unsigned int i)
{
	return i ? IOLAT_AGG_STAGE_D2C : IOLAT_AGG_STAGE_Q2C;
}

/* The same for device @d: a bio-based device keeps ABOVE for D2C. */
static inline unsigned int iolat_agg_dev_stage(const struct iolat_dev *d,
					       unsigned int i)
{
	return i && d->upper ? IOLAT_AGG_STAGE_ABOVE : iolat_agg_stage(i);
}

int iolat_agg_init(struct iolat_dev *d);
size_t iolat_agg_bytes(void);
int iolat_agg_cpu_init(struct iolat_dev *d, int cpu);
size_t iolat_agg_cpu_bytes(void);
void iolat_agg_free(struct iolat_dev *d);
void __iolat_agg_add(struct iolat_dev *d, u8 op, u32 bytes,
		     const struct iolat_slot *slot, u64 c_ns);
void __iolat_agg_add_q2c(struct iolat_dev *d, u8 op, u32 bytes, u64 q2c);
void __iolat_agg_add_above(struct iolat_dev *d, u8 op, u64 above);
void iolat_agg_add(struct iolat_dev *d, u8 op, u32 bytes,
		   const struct iolat_slot *slot, u64 c_ns);
void iolat_agg_counts(const struct iolat_dev *d, u64 *ios, u64 *bytes);
void iolat_agg_sum(const struct iolat_dev *d, unsigned int op,
		   unsigned int stage, struct iolat_hist *sum);

#endif /* _IOLAT_AGG_H */
