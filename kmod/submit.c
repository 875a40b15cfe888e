// SPDX-License-Identifier: GPL-2.0
/*
 * Submission stash: claiming and filling entries; see submit.h.
 */
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "submit.h"

/**
 * iolat_stash_claim() - take the next entry of this CPU's stash
 * @st: this CPU's stash (preemption disabled)
 *
 * The entry is cleared; fill it, then make it findable with
 * iolat_stash_publish().
 *
 * Return: the entry.
 */
struct iolat_stash_entry *iolat_stash_claim(struct iolat_stash *st)
{
	unsigned long n = local_inc_return(&st->head) - 1;
	struct iolat_stash_entry *e = &st->e[n & (IOLAT_STASH_ENTRIES - 1)];

	WRITE_ONCE(e->bio, NULL);
	/* a reader on another CPU sees the key gone before the fields change */
	smp_wmb();
	e->q_ns = 0;
	e->g_ns = 0;
	memset(&e->who, 0, sizeof(e->who));
	e->flags = 0;
	return e;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_stash_claim);

/* Make @e findable by @bio; its other fields are written. */
void iolat_stash_publish(struct iolat_stash_entry *e, const struct bio *bio)
{
	/*
	 * a nested probe on this CPU, or a reader on another, sees the key
	 * only after the fields
	 */
	smp_wmb();
	WRITE_ONCE(e->bio, bio);
}
EXPORT_SYMBOL_IF_KUNIT(iolat_stash_publish);

/**
 * iolat_submitter_set() - take @task as a request's submitter
 * @who: where to put its pid, tgid and comm
 * @task: the task
 *
 * Return: IOLAT_F_SUBMITTER, for the flags of whatever holds @who.
 */
u32 iolat_submitter_set(struct iolat_submitter *who,
			const struct task_struct *task)
{
	who->pid = task->pid;
	who->tgid = task->tgid;
	memcpy(who->comm, task->comm, IOLAT_COMM_LEN);
	/* comm may be renamed under us; keep it terminated */
	who->comm[IOLAT_COMM_LEN - 1] = '\0';
	return IOLAT_F_SUBMITTER;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_submitter_set);

/**
 * iolat_stash_release() - free an entry whose bio is done with
 * @st: this CPU's stash (preemption disabled)
 * @e: the entry
 *
 * If @e is the newest entry, as for a bio merged right after it was
 * queued, its position is given back too, so that a long run of merged
 * bios does not push older entries out of the stash.
 */
void iolat_stash_release(struct iolat_stash *st, struct iolat_stash_entry *e)
{
	long head = local_read(&st->head);

	WRITE_ONCE(e->bio, NULL);
	if (e == &st->e[(head - 1) & (IOLAT_STASH_ENTRIES - 1)])
		/* fails harmlessly if a nested probe claimed an entry since */
		local_cmpxchg(&st->head, head, head - 1);
}
EXPORT_SYMBOL_IF_KUNIT(iolat_stash_release);

/**
 * iolat_stash_take_remote() - take @bio's entry from another CPU's stash
 * @stash: the session's stashes; this CPU's has been searched already
 * @bio: the first bio of a request first seen on this CPU
 * @copy: where to put the entry's stages, submitter and flags
 *
 * Only for a request this CPU's stash has no entry for, which happens
 * when its submitter moved to another CPU between Q and the request's
 * first I or D: the cost, a compare per entry of every other CPU, is
 * paid only then.  The fields are copied after the key is found, and
 * kept only if a cmpxchg of the key then finds it unchanged and takes
 * the entry back; an entry its owner reused meanwhile is left alone.
 *
 * Return: whether @copy holds @bio's entry.
 */
bool iolat_stash_take_remote(struct iolat_stash __percpu *stash,
			     const struct bio *bio,
			     struct iolat_stash_entry *copy)
{
	int self = smp_processor_id(), cpu;
	unsigned int i;

	for_each_possible_cpu(cpu) {
		struct iolat_stash *st = per_cpu_ptr(stash, cpu);

		if (cpu == self)
			continue;
		for (i = 0; i < IOLAT_STASH_ENTRIES; i++) {
			struct iolat_stash_entry *e = &st->e[i];

			if (READ_ONCE(e->bio) != bio)
				continue;
			/* the fields as published with the key */
			smp_rmb();
			copy->q_ns = READ_ONCE(e->q_ns);
			copy->g_ns = READ_ONCE(e->g_ns);
			copy->who = e->who;
			copy->flags = READ_ONCE(e->flags);
			/* read before the key is found unchanged and taken */
			smp_rmb();
			if (cmpxchg(&e->bio, bio, NULL) == bio)
				return true;
		}
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_stash_take_remote);
