#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where the module's instructions per I/O go: variants of its
source with one part of the per-request work taken out, for
tests/bench/ablate.sh, which builds each and counts it like cost.sh.

  ablate.py edit NAME DIR   apply variant NAME's edits to the module
                            source in DIR (a copy made by make dkms-src);
                            exit 1 if an edit's text is not found
  ablate.py names           the variants, one per line

The variants are measuring instruments, never shipped: each removes work
the module needs (the counts they give are wrong), to show what that work
costs.  An edit whose text has gone from the source fails loudly rather
than measuring the unchanged module.
"""

import os
import sys

VARIANTS = {
    # the probes stay registered and run, but no device ever matches:
    # what remains is the tracepoints' dispatch, the compare and the CLI
    "probes-only": [
        ("kmod/dispatch.h",
         "for ((d) = iolat_devmap_find(&iolat_subs, (devt)); (d);",
         "for ((d) = iolat_devmap_find(&iolat_subs, (devt) ^ 0x40000000); (d);"),
        ("kmod/dispatch.h",
         "iolat_sub_using(iolat_devmap_find(&iolat_subs, (devt)),",
         "iolat_sub_using(iolat_devmap_find(&iolat_subs, (devt) ^ 0x40000000),"),
    ],
    # the busy-time spans (acct.h) do nothing: no count, no period
    "no-busy": [
        ("kmod/acct.h",
         "\tu64 new;\n\n\tif (d->nr_hwq == 1)",
         "\tu64 new;\n\n\treturn 0;\n\tif (d->nr_hwq == 1)"),
    ],
    # the per-CPU counters change without interrupts off
    "no-irqoff": [
        ("kmod/acct.h", "\tlocal_irq_save(*flags);", "\t*flags = 0;"),
        ("kmod/acct.h",
         "\tiolat_acct_put(c, step);\n\tlocal_irq_restore(flags);",
         "\tiolat_acct_put(c, step);"),
    ],
    # no bio stages: block_bio_queue's probe returns at once and a
    # request's slot takes no stash entry, remote entry or submitter
    "no-stash": [
        ("kmod/probe_bio.c",
         "\tif (!iolat_dev_at(first, bio->bi_iter.bi_sector) ||\n"
         "\t    !iolat_session_armed(s))\n\t\treturn;\n"
         "\te = iolat_stash_new(s);",
         "\tif (iolat_dev_at(first, bio->bi_iter.bi_sector))\n"
         "\t\treturn;\n\te = iolat_stash_new(s);"),
        ("kmod/probe_rq.c",
         "\tif (rq->bio)\n\t\te = iolat_stash_find(st, rq->bio);",
         ""),
        ("kmod/probe_rq.c",
         "\tif (rq->bio && !iolat_rq_passthrough(rq) &&\n"
         "\t    iolat_slot_take_remote(s, slot, x, rq->bio))\n"
         "\t\tgoto filter;",
         ""),
        ("kmod/probe_rq.c",
         "\tif (s->want_who && in_task() && !(current->flags & PF_KTHREAD))\n"
         "\t\tslot->flags = iolat_submitter_set(&x->who, current);",
         ""),
    ],
    # every optional feature's test on the request path taken out: the
    # filters, the flight recorder, the record's parts past the block
    # part (cgroup, NVMe, stack link), NVMe's completion and the cgroup
    # slots.  make check's cost stage runs the counters and the stream
    # with it: a session that uses none of them must cost what this does,
    # within the bench's resolution (issue 48: a feature costs nothing
    # when off)
    "no-features": [
        ("kmod/iolat.h", "\tif (!f->on)\n\t\treturn true;",
         "\treturn true;"),
        ("kmod/probe_rq.c", "\tslot->filtered = s->filter.on &&",
         "\tslot->filtered = 0 &&"),
        ("kmod/probe_rq.c", "\tif (lean || !s->filter.on)\n\t\treturn true;",
         "\treturn true;"),
        ("kmod/probe_rq.c", "\t\tif (!lean && s->watch)\n\t\t\tiolat_record_emit(",
         "\t\tif (0)\n\t\t\tiolat_record_emit("),
        ("kmod/probe_rq.c", "\tif (!lean && d->nvme)\n\t\tnow = iolat_rq_done_nvme(",
         "\tif (0)\n\t\tnow = iolat_rq_done_nvme("),
        ("kmod/probe_rq.c", "\t\tif (!lean && d->cg)\t/* its cgroup's slot",
         "\t\tif (0)\t/* its cgroup's slot"),
        ("kmod/emit.h",
         "\tif (!lean &&\n\t    unlikely(s->record_size > IOLAT_RECORD_BLOCK_SIZE || nvme))",
         "\tif (0)"),
        ("kmod/emit.h", "\tif (lean || !s->watch) {",
         "\tif (1) {"),
        ("kmod/emit.h", "\tif (!lean && s->watch)\n\t\tiolat_watch_check(",
         "\tif (0)\n\t\tiolat_watch_check("),
    ],
    # iolat_now() counts up instead of reading the clock
    "no-clock": [
        ("kmod/iolat.h", "\treturn ktime_get_ns();",
         "\treturn this_cpu_inc_return(iolat_ablate_clock);"),
        ("kmod/iolat.h", "static inline u64 iolat_now(void)",
         "DECLARE_PER_CPU(u64, iolat_ablate_clock);\n"
         "static inline u64 iolat_now(void)"),
        ("kmod/main.c", "MODULE_LICENSE(",
         "DEFINE_PER_CPU(u64, iolat_ablate_clock);\nMODULE_LICENSE("),
    ],
}


def edit(name, root):
    for path, old, new in VARIANTS[name]:
        p = os.path.join(root, path)
        text = open(p).read()
        if text.count(old) != 1:
            sys.exit("ablate: variant %s: %r is not once in %s" %
                     (name, old, path))
        open(p, "w").write(text.replace(old, new))


def main():
    if sys.argv[1:2] == ["names"]:
        print("\n".join(VARIANTS))
    elif sys.argv[1:2] == ["edit"] and len(sys.argv) == 4:
        edit(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
