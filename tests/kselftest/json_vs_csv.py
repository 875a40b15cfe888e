#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
#   json_vs_csv.py TRACE.jsonl TRACE.csv
#
# `iolat trace -o json` against `iolat trace -o csv` of the same requests
# (two sessions at once, iolat_test's trace_json_matches_csv): every JSON
# line parses as an object whose keys are CSV header names; the requests
# pair up one to one by device, op, sector, size, queue and tag (in
# completion order), and each pair agrees on every field but the timestamps and the
# stages between them, which each session's probes take themselves
# (within 1 ms).  Prints what it
# found; exits 1 on any difference.
import csv
import json
import sys
from collections import defaultdict

TIMES = ("q_ns", "g_ns", "i_ns", "d_ns", "c_ns", "c_real_ns")


def key(r):
    return (r["device"], r["op"], r.get("sector", ""), r["bytes"],
            r.get("hwq", ""), r.get("tag", ""))


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
    by = defaultdict(list)
    for r in sorted(crows, key=lambda r: int(r["c_ns"])):
        by[key(r)].append(r)
    fields = 0
    for j in jrows:
        t = [int(j[k]) for k in ("q_ns", "g_ns", "i_ns", "d_ns", "c_ns")
             if j.get(k, "0") != "0"]
        if t != sorted(t):
            print("%s: stages out of order: %s" % (key(j), t))
            bad += 1
    for j in sorted(jrows, key=lambda r: int(r["c_ns"])):
        lst = by.get(key(j))
        if not lst:
            print("no CSV row for %s" % (key(j),))
            bad += 1
            continue
        c = lst.pop(0)
        for k in names:
            jv, cv = j.get(k, ""), c[k]
            if k in TIMES or k.endswith("_ns"):
                if (jv == "") != (cv == "") or \
                   (jv and abs(int(jv) - int(cv)) > 100000000):
                    print("%s: %s %s against %s" % (key(j), k, jv, cv))
                    bad += 1
            elif jv != cv:
                print("%s: %s %r against %r" % (key(j), k, jv, cv))
                bad += 1
            fields += 1
    left = sum(len(v) for v in by.values())
    print("json_vs_csv: %d JSON lines, %d CSV rows, %d fields compared, "
          "%d differences, %d CSV rows unpaired" %
          (len(jrows), len(crows), fields, bad, left))
    return 1 if bad or left or not jrows else 0


sys.exit(main())
