// SPDX-License-Identifier: GPL-2.0
/*
 * Submission stash: claiming and filling entries; see submit.h.
 */
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
	barrier();
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
	/* a nested probe on this CPU sees the key only after the fields */
	barrier();
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
