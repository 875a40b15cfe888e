/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's per-CPU state, for the CPUs that are or were online while
 * it runs: each CPU's record ring, submission stash and counters, and
 * its part of every device's counters and histograms.  None of it is
 * per-CPU memory (alloc_percpu() takes room on every possible CPU, and
 * VMs declare many more than they run): a CPU's parts are allocated on
 * its node when the session starts if it is online, or when it comes
 * online (a CPU hotplug state's prepare step, before it runs anything),
 * and kept until the session ends, so that what it counted stays.
 * Only a table of pointers per session and per device is per possible
 * CPU.  The probes find this CPU's part by its number: a CPU running a
 * probe always has one (a CPU whose parts cannot be allocated does not
 * come online).
 */
#ifndef _IOLAT_CPUS_H
#define _IOLAT_CPUS_H

#include <linux/smp.h>
#include <asm/local64.h>
#include "iolat.h"
#include "ring.h"
#include "stash.h"

/* One CPU's part of a session. */
struct iolat_cpu {
	struct iolat_ring ring;
	/* what n[IOLAT_S_X] counts in lib/stats.h, written by this CPU */
	local64_t stats[IOLAT_STAT_NR];
	struct iolat_stash stash;
};

/* This CPU's part of @s (preemption disabled, as in every probe). */
static __always_inline struct iolat_cpu *iolat_cpu(struct iolat_session *s)
{
	return s->cpu[smp_processor_id()];
}

/* CPU @cpu's part of @s, or NULL if it has not been online (readers). */
static inline struct iolat_cpu *iolat_cpu_of(const struct iolat_session *s,
					     int cpu)
{
	/* pairs with iolat_cpus_prepare()'s release */
	return smp_load_acquire(&s->cpu[cpu]);
}

/* Count one @stat (enum iolat_stat) on this CPU: one add, irq-safe. */
static __always_inline void iolat_count(struct iolat_session *s,
					unsigned int stat)
{
	local64_inc(&iolat_cpu(s)->stats[stat]);
}

static __always_inline void iolat_count_add(struct iolat_session *s,
					    unsigned int stat, long n)
{
	local64_add(n, &iolat_cpu(s)->stats[stat]);
}

/* The same from a task, which may move between CPUs. */
static inline void iolat_count_task(struct iolat_session *s,
				    unsigned int stat, long n)
{
	preempt_disable();
	iolat_count_add(s, stat, n);
	preempt_enable();
}

int iolat_cpus_init(void);
void iolat_cpus_exit(void);
int iolat_cpus_start(struct iolat_session *s);
void iolat_cpus_free(struct iolat_session *s);
size_t iolat_cpu_bytes(unsigned int ring_slots, unsigned int stride);
u64 iolat_cpus_mem(const struct iolat_session *s);
bool iolat_cpus_take_remote(struct iolat_session *s, const struct bio *bio,
			    struct iolat_stash_entry *copy);

#endif /* _IOLAT_CPUS_H */
