#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
#   nvme_qd_vs_ftrace.py TRACE TRACE.csv
#
# The queue depth at setup of each NVMe command iolat recorded (`trace
# --nvme -o csv`, its qd column) against the one nvme-core's own events of
# the same run say (ftrace's text, nvme_test's qd_against_ftrace): the
# events are replayed in the order of the trace (ftrace's counter clock:
# one count for all CPUs), a command outstanding on its qid
# from its nvme_setup_cmd to its nvme_complete_rq; at a setup the truth
# is the number outstanding on that qid before it.  Commands pair by qid
# and command id, in setup order.  A completion is matched to its setup by
# the command id's low 12 bits, the request's tag: since v5.14 ("nvme:
# code command_id with a genctr for use-after-free validation") the top
# 4 bits count the tag's reuses, and on kernels that took it as a
# backport (RHEL 8's 4.18.0-394, Debian's 5.10) the two events' ids
# differ there: matched whole, nearly every command stayed outstanding.
# At least 90% of the pairs must agree exactly, and the two means within
# 0.1 (depths.py).  Prints what it found; exits 1 on a difference.
import csv
import re
import sys
from collections import defaultdict

from depths import differ

EV = re.compile(r"\s(\d+(?:\.\d+)?): nvme_(setup_cmd|complete_rq): .*?"
                r"qid=(\d+), cmdid=(\d+)")


def main():
    out, truth = defaultdict(set), defaultdict(list)
    events = 0
    with open(sys.argv[1], errors="replace") as f:
        for line in f:
            m = EV.search(line)
            if not m or m.group(3) == "0":
                continue
            events += 1
            qid, cid = int(m.group(3)), int(m.group(4))
            if m.group(2) == "setup_cmd":
                truth[(qid, cid)].append(len(out[qid]))
                out[qid].add(cid & 0xfff)
            else:
                out[qid].discard(cid & 0xfff)
    with open(sys.argv[2]) as f:
        rows = [r for r in csv.DictReader(f)
                if r["admin"] == "0" and r["qid"] != "0"]
    mine = defaultdict(list)
    for r in sorted(rows, key=lambda r: int(r["start_ns"])):
        mine[(int(r["qid"]), int(r["cid"]))].append(int(r["qd"]))
    got, want = [], []
    for k, lst in mine.items():
        t = truth.get(k, [])
        # a command id reused: the last setups are the session's
        t = t[len(t) - len(lst):] if len(t) >= len(lst) else []
        got += lst[:len(t)]
        want += t
    print("%d ftrace events, %d records, %d paired" %
          (events, len(rows), len(got)))
    if not got or len(got) < 0.9 * len(rows):
        print("too few pairs")
        return 1
    bad = differ("qd", "ftrace", got, want)
    if max(want) < 3:
        print("ftrace saw no depth: the scenario did not hold")
        bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
