# SPDX-License-Identifier: GPL-2.0
#
# The comparison that qd_vs_blktrace.py and nvme_qd_vs_ftrace.py share:
# iolat's queue depths of paired requests against a tracer's replay.
from collections import Counter


def differ(field, tracer, got, want):
    """Print how @got (iolat's) agrees with @want (@tracer's) for @field;
    True if fewer than 90% are equal or the means differ by more than
    0.1.  iolat's probes and the tracer's run on the same tracepoints,
    but two CPUs' events may reach the two in opposite orders."""
    same = sum(g == w for g, w in zip(got, want))
    mg, mw = sum(got) / len(got), sum(want) / len(want)
    print("%s: %d of %d equal (%.1f%%); mean %.3f, %s %.3f; %s's depths %s" %
          (field, same, len(got), 100.0 * same / len(got), mg, tracer, mw,
           tracer, sorted(Counter(want).items())))
    return same < 0.9 * len(got) or abs(mg - mw) > 0.1
