/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A span's busy periods (a hardware queue's, or a device's): opened by
 * the request that takes its count from 0, moved back for a request that
 * was queued before the period began, closed by the one that takes it
 * back to 0, each change one add to this CPU's part of the span's busy
 * word (lib/busy.h).  acct.h keeps the counts that decide them.
 */
#ifndef _IOLAT_SPAN_H
#define _IOLAT_SPAN_H

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <asm/local64.h>
#include "iolat.h"
#include "../lib/busy.h"

/*
 * Add @v to this CPU's part @w of a busy word: one add instruction, which
 * an interrupt cannot split.  @v is kept in a register: x86's local_add()
 * would otherwise take a constant that does not fit in 32 bits as an
 * immediate, which the add instruction cannot hold.
 */
static __always_inline void iolat_word_add(local64_t *w, s64 v)
{
	OPTIMIZER_HIDE_VAR(v);
	local64_add(v, w);
}

/*
 * Move the open period of @b back to @from, if the request just counted
 * was in the queue before the period began; not past the end of the
 * previous period, which the union already covers.  @word: this CPU's
 * part of the span's busy word.
 * Return: the period's new start, or S64_MAX if it did not move.
 */
static inline s64 iolat_busy_extend(struct iolat_busy *b, local64_t *word,
				     s64 from)
{
	s64 start, to;

	for (;;) {
		start = atomic64_read(&b->start);
		to = max_t(s64, from, atomic64_read(&b->last));
		if (to >= start)
			return S64_MAX;
		if (atomic64_cmpxchg(&b->start, start, to) == start) {
			iolat_word_add(word, start - to);
			return to;
		}
	}
}

/*
 * A period of @b opens at @from, or at the end of the previous period if
 * that is later.  Only the request that took the span's count from 0 opens
 * it, and none can close it before that request's probe has returned
 * (the driver has not seen the request yet), so @b's ends need no lock;
 * the busy word is a sum, each CPU adding to its own part (u64: the parts
 * wrap, their sum does not).
 * Return: the period's start.
 */
static __always_inline s64 iolat_busy_open(struct iolat_busy *b,
					   local64_t *word,
					   s64 from)
{
	s64 start = max_t(s64, from, atomic64_read(&b->last));

	atomic64_set(&b->start, start);
	iolat_word_add(word, iolat_busy_open_delta(start));
	return start;
}

static __always_inline void iolat_busy_close(struct iolat_busy *b,
					     local64_t *word,
					     s64 t)
{
	atomic64_set(&b->last, t);
	iolat_word_add(word, iolat_busy_close_delta(t));
}

/*
 * Change the count of a span by @dn (-1, 0 or 1) at @t, given the counts
 * before (@old) and after (@new).
 * Return: the change of the span between busy and idle (1 opened, -1
 * closed, 0 neither), with @t set to where the device's span above must
 * open or move back to (S64_MAX: nowhere).
 */
static __always_inline int iolat_span_step(struct iolat_busy *b,
					   local64_t *word,
					   int dn, u32 old, u32 new, s64 *t)
{
	if (dn > 0 && !old) {
		*t = iolat_busy_open(b, word, *t);
		return 1;
	}
	if (dn > 0) {
		*t = iolat_busy_extend(b, word, *t);
		return 0;
	}
	if (dn < 0 && !new) {
		iolat_busy_close(b, word, *t);
		return -1;
	}
	*t = S64_MAX;
	return 0;
}

#endif /* _IOLAT_SPAN_H */
