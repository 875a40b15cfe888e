#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
#   json_vs_csv.py TRACE.jsonl TRACE.csv
#
# `iolat trace -o json` against `iolat trace -o csv` of the same requests
# (two sessions at once, output_test's trace_json_matches_csv; the CSV one
# started first).  Every JSON line parses as an object whose keys are CSV
# header names; the requests pair up one to one by device, op, sector,
# size, queue and tag (in completion order), and each pair agrees on
# every field but the times, which each session's probes take themselves.
#
# The times are checked without a tolerance, which no host's speed can
# exceed (a vCPU descheduled between the two sessions' probes of one
# event, under TCG on a busy host, once put them 3 ms apart, and another
# time more than 100 ms):
# - the CSV session's probe of a tracepoint was registered first and runs
#   first, and a request's next stage begins only after every probe of
#   its last has returned, so the pair's stamps interleave:
#   CSV Q <= JSON Q <= CSV G <= JSON G <= ... <= CSV C <= JSON C,
#   over the stages seen (seen by both, or by neither);
# - each row's stage durations (Q2G ... Q2C) are its own stamps' differences,
#   present exactly where lib/record.h's iolat_stage_ns() has them;
# - c_real_ns less c_ns is one offset for all rows of a session (each
#   session reads the two clocks once, at its start); the two sessions'
#   offsets differ only by how long each took between its two readings,
#   checked against a sanity bound only (a wrong clock or unit is off by
#   far more).
# The queue depths (qd_insert, qd_issue) are each session's count of its
# queue at its own probe: a completion on another CPU, or in a softirq,
# between the two sessions' probes of one event is counted by one and
# not the other (on 5.4, whose single-queue devices complete in a
# softirq, 24 of 500 requests once had qd 1 in JSON against 0 in CSV).
# So, as nvme_qd_vs_ftrace.py does for two observers of one depth: at
# least 90% of the pairs agree exactly, and none differs by more than
# fio's iodepth less one (QD_SPREAD).
# Prints what it found; exits 1 on any difference.
import csv
import json
import sys
from collections import defaultdict

STAMPS = ("q_ns", "g_ns", "i_ns", "d_ns", "c_ns")
STAGES = {"Q2G_ns": ("q_ns", "g_ns"), "G2I_ns": ("g_ns", "i_ns"),
          "I2D_ns": ("i_ns", "d_ns"), "D2C_ns": ("d_ns", "c_ns"),
          "Q2C_ns": ("q_ns", "c_ns")}
TIMES = set(STAMPS) | set(STAGES) | {"c_real_ns"}
DEPTHS = ("qd_insert", "qd_issue")
QD_AGREE = 0.90
QD_SPREAD = 3
OFFSET_SANITY_NS = 10 * 10**9


def key(r):
    return (r["device"], r["op"], r.get("sector", ""), r["bytes"],
            r.get("hwq", ""), r.get("tag", ""))


def stamp(r, k):
    return int(r.get(k) or 0)


def stage_errors(r):
    """Stage durations that are not the row's own stamps' differences."""
    out = []
    for name, (a, b) in STAGES.items():
        f, t = stamp(r, a), stamp(r, b)
        want = str(t - f) if f and t and t >= f else ""
        if r.get(name, "") != want:
            out.append("%s %r, stamps say %r" % (name, r.get(name, ""), want))
    return out


def offset(rows, what):
    """The one c_real_ns - c_ns of @rows, or None (printed) if not one."""
    seen = set(int(r["c_real_ns"]) - int(r["c_ns"]) for r in rows
               if r.get("c_real_ns"))
    if len(seen) != 1:
        print("%s: c_real_ns - c_ns takes %d values" % (what, len(seen)))
        return None
    return seen.pop()


def main():
    jrows, bad = [], 0
    with open(sys.argv[1]) as f:
        for n, line in enumerate(f, 1):
            try:
                o = json.loads(line)
            except ValueError as e:
                print("line %d is not JSON: %s" % (n, e))
                return 1
            if not isinstance(o, dict):
                print("line %d is not an object" % n)
                return 1
            jrows.append({k: str(v) for k, v in o.items()})
    with open(sys.argv[2]) as f:
        rd = csv.DictReader(f)
        names = set(rd.fieldnames)
        crows = list(rd)
    extra = set(k for r in jrows for k in r) - names
    if extra:
        print("JSON keys not in the CSV header: %s" % sorted(extra))
        return 1
    for what, rows in (("JSON", jrows), ("CSV", crows)):
        for r in rows:
            errs = stage_errors(r)
            if errs:
                print("%s %s: %s" % (what, key(r), "; ".join(errs)))
                bad += 1
    jo, co = offset(jrows, "JSON"), offset(crows, "CSV")
    if jo is None or co is None or abs(jo - co) > OFFSET_SANITY_NS:
        print("c_real_ns offsets: JSON %s, CSV %s" % (jo, co))
        bad += 1
    by = defaultdict(list)
    for r in sorted(crows, key=lambda r: int(r["c_ns"])):
        by[key(r)].append(r)
    fields, lag, qd_diff = 0, defaultdict(int), defaultdict(int)
    for j in sorted(jrows, key=lambda r: int(r["c_ns"])):
        lst = by.get(key(j))
        if not lst:
            print("no CSV row for %s" % (key(j),))
            bad += 1
            continue
        c = lst.pop(0)
        seq = []
        for k in STAMPS:
            cv, jv = stamp(c, k), stamp(j, k)
            if bool(cv) != bool(jv):
                print("%s: %s %s against %s" % (key(j), k, jv, cv))
                bad += 1
            elif cv:
                seq += [("CSV " + k, cv), ("JSON " + k, jv)]
                lag[k] = max(lag[k], jv - cv)
        for (a, x), (b, y) in zip(seq, seq[1:]):
            if y < x:
                print("%s: %s %d before %s %d" % (key(j), b, y, a, x))
                bad += 1
        for k in names:
            fields += 1
            if k in TIMES:
                continue  # the stamps above, and what follows of them
            if k in DEPTHS and j.get(k, "") != c[k]:
                qd_diff[k] += 1
                if abs(int(j.get(k) or 0) - int(c[k] or 0)) <= QD_SPREAD:
                    continue
            if j.get(k, "") != c[k]:
                print("%s: %s %r against %r" % (key(j), k, j.get(k, ""), c[k]))
                bad += 1
    for k in DEPTHS:
        if qd_diff[k] > (1 - QD_AGREE) * len(jrows):
            print("%s: %d of %d pairs differ, more than %d%%" %
                  (k, qd_diff[k], len(jrows), round(100 * (1 - QD_AGREE))))
            bad += 1
    left = sum(len(v) for v in by.values())
    print("json_vs_csv: %d JSON lines, %d CSV rows, %d fields compared, "
          "%d differences, %d CSV rows unpaired; JSON's stamps after CSV's "
          "by at most %s; depths differing (each session's own count) %s" %
          (len(jrows), len(crows), fields, bad, left,
           ", ".join("%s %d ns" % (k, lag[k]) for k in STAMPS if k in lag),
           ", ".join("%s %d" % (k, qd_diff[k]) for k in DEPTHS)))
    return 1 if bad or left or not jrows else 0


sys.exit(main())
