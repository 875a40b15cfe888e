/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The session counters, a line each: their one list.  The attribute enum
 * (linux/iolat.h), the module's per-CPU counters and their attribute
 * table, and the CLI's counters, record file and outputs all follow from
 * it.  Define IOLAT_STAT(field, ATTR, class, text) (and, for the
 * attribute enum, IOLAT_STAT_GAP(ATTR)), then include this file, which
 * undefines them.
 *   field  the counter's name in C and in JSON
 *   ATTR   its attribute, IOLAT_STAT_A_<ATTR>, numbered in this order:
 *          a new counter goes on a line at the end (ABI)
 *   class  how outputs group it: record (what became of a traced
 *          completion), drop (why one has no record), event, nvme, stack,
 *          watch (a flight recorder's records, IOLAT_A_WATCH)
 *   text   what text output calls it, after its count
 * What each counts: linux/iolat.h, above enum iolat_stat_attr.
 */
#ifndef IOLAT_STAT_GAP
#define IOLAT_STAT_GAP(ATTR)
#endif

IOLAT_STAT(written,		WRITTEN,		record,	"written")
IOLAT_STAT(drop_full,		DROP_FULL,		drop,	"buffer full")
IOLAT_STAT(drop_unmatched,	DROP_UNMATCHED,		drop,	"not seen whole")
IOLAT_STAT(drop_range,		DROP_RANGE,		drop,	"outside queue geometry")
IOLAT_STAT(partial,		PARTIAL,		event,	"partial completions")
IOLAT_STAT_GAP(PAD)	/* netlink's padding of the u64 attributes */
IOLAT_STAT(filtered,		FILTERED,		record,	"filtered")
IOLAT_STAT(errors,		ERRORS,			event,	"errors")
IOLAT_STAT(requeues,		REQUEUES,		event,	"requeues")
IOLAT_STAT(bio_merges,		BIO_MERGES,		event,	"bio merges")
IOLAT_STAT(rq_merges,		RQ_MERGES,		event,	"request merges")
IOLAT_STAT(splits,		SPLITS,			event,	"splits")
IOLAT_STAT(plugs,		PLUGS,			event,	"plugs")
IOLAT_STAT(unplugs,		UNPLUGS,		event,	"unplugs")
IOLAT_STAT(nvme_completed,	NVME_COMPLETED,		nvme,	"commands completed")
IOLAT_STAT(nvme_unmatched,	NVME_UNMATCHED,		nvme,	"not seen set up")
IOLAT_STAT(nvme_retried,	NVME_RETRIED,		nvme,	"retried")
IOLAT_STAT(nvme_other_ns,	NVME_OTHER_NS,		nvme,	"of namespaces not traced")
IOLAT_STAT(events_lost,		EVENTS_LOST,		event,	"session events lost")
IOLAT_STAT(stack_joined,	STACK_JOINED,		stack,	"lower requests joined to an I/O")
IOLAT_STAT(stack_unjoined,	STACK_UNJOINED,		stack,	"lower requests not joined")
IOLAT_STAT(remaps,		REMAPS,			stack,	"remaps tied to their I/O")
IOLAT_STAT(remaps_unmatched,	REMAPS_UNMATCHED,	stack,	"remaps not tied")
IOLAT_STAT(copied,		COPIED,			record,	"copied to user space")
IOLAT_STAT(watch_overwritten,	WATCH_OVERWRITTEN,	watch,	"overwritten in the recorder")
IOLAT_STAT(watch_window_full,	WATCH_WINDOW_FULL,	watch,	"not recorded: the window filled the buffer")
IOLAT_STAT(watch_frozen,	WATCH_FROZEN,		watch,	"not recorded: the recorder was being read")

#undef IOLAT_STAT
#undef IOLAT_STAT_GAP
