#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
#   qd_vs_blktrace.py BT.txt TRACE.csv
#
# The queue depths of iolat's records (qd_insert, qd_issue) against the
# ones blktrace's events of the same run say, on a device of one hardware
# queue (records_test's queue_depths_against_blktrace).  blkparse's text,
# in time order, is replayed: a request is queued from its insert (I), or
# its issue (D) if it had none, to its completion (C), and at the driver
# from D to C, or to a requeue (R).  At a request's first sight the truth
# of qd_insert is the number queued before it, at its D that of qd_issue
# the number at the driver before it.  Requests pair by sector; a sector
# read twice, by blktrace or by iolat, is left out.  A merge (F, M)
# would break that pairing (a front merge moves the request's sector)
# and the test turns merges off: one seen, or a request the replay left
# unfinished, fails the run by name.  At least 90% of the pairs must
# agree exactly, and the two means within 0.1 (depths.py).  Prints what
# it found; exits 1 on a difference.
import csv
import sys
from collections import Counter

from depths import differ


def replay(path):
    queued = issued = 0
    state, ins, iss, seen, merges = {}, {}, {}, Counter(), 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and w[5] in ("F", "M"):
                merges += 1
            if len(w) < 8 or w[5] not in ("I", "D", "C", "R"):
                continue
            try:
                sector = int(w[7])
            except ValueError:
                continue
            a, st = w[5], state.get(sector)
            if a == "I" and st is None:
                seen[sector] += 1
                ins[sector] = queued
                queued += 1
                state[sector] = "I"
            elif a == "D" and st != "D":
                if st is None:
                    seen[sector] += 1
                    ins[sector] = queued
                    queued += 1
                iss[sector] = issued
                issued += 1
                state[sector] = "D"
            elif a == "R" and st == "D":
                issued -= 1
                state[sector] = "I"
            elif a == "C" and st is not None:
                issued -= st == "D"
                queued -= 1
                del state[sector]
    return ins, iss, seen, merges, len(state)


def main():
    ins, iss, seen, merges, left = replay(sys.argv[1])
    with open(sys.argv[2]) as f:
        rows = list(csv.DictReader(f))
    mine = Counter(int(r["sector"]) for r in rows)
    pairs = [(r, int(r["sector"])) for r in rows
             if mine[int(r["sector"])] == 1 and seen[int(r["sector"])] == 1
             and int(r["sector"]) in iss]
    bad = 0
    print("%d records, %d paired with blktrace's requests" %
          (len(rows), len(pairs)))
    if merges or left:
        print("blktrace saw %d merges; %d requests never completed in the "
              "replay: its depths are not the truth" % (merges, left))
        bad += 1
    if len(pairs) < 0.9 * len(rows) or not pairs:
        print("too few pairs")
        return 1
    for field, truth in (("qd_insert", ins), ("qd_issue", iss)):
        bad += differ(field, "blktrace", [int(r[field]) for r, _ in pairs],
                      [truth[s] for _, s in pairs])
    # the scenario: requests waited in the scheduler and at the driver
    if max(iss.values()) < 2 or max(ins.values()) < 5:
        print("blktrace saw no depth: the scenario did not hold")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
