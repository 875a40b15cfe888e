#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
#   native_vs_prometheus.py wait PROMETHEUS_URL EXPORTER_URL DEVICE SCHEMA N TIMEFILE
#   native_vs_prometheus.py compare PROMETHEUS_URL EXPORTER.json DEVICE SCHEMA TIMEFILE
#
# analysis_test's export_native_histograms: `iolat export -o json`
# serves a Prometheus that ingests native histograms (--enable-feature=
# native-histograms) while N requests are made on DEVICE, then ends and
# prints the run it exposed (EXPORTER.json: its histograms' counts and
# percentiles, as record -A -o json prints them).
#
# wait: the exporter answers a scrape that asks for the protobuf
# exposition with it, and one that does not with the text; then wait
# until Prometheus holds all N requests (histogram_count() of the Q2C
# histograms), as long as its scrapes take (a ceiling of ten minutes,
# not a floor), and write that time in TIMEFILE: compare queries at it,
# before the exporter ended (after, Prometheus marks its series stale).
#
# compare, once the exporter has ended:
# - Prometheus stored each histogram (device, op, stage) as a native one
#   (a "histogram" sample, no _bucket series), of the schema that matches
#   the module's bins: each bucket's upper edge is 2^(1/2^SCHEMA) times
#   its lower one;
# - its counts are the exporter's, and iolat_requests_total too;
# - histogram_quantile() over each native histogram agrees with the
#   exporter's own percentile of the same histogram within the schema's
#   bucket width, at every percentile iolat printed.  Prometheus places a
#   quantile in the bucket of its rank, linearly; iolat gives the
#   midpoint of the module's bin of that rank, whose count the exporter
#   put whole in the bucket of that midpoint: both are in one bucket.
#   iolat keeps its percentiles within the observed min and max, which
#   may take one out of its bin's midpoint by half that bin (1/16).
#
# Prints what it compared; exits 1 on a mismatch.
import json
import sys
from decimal import Decimal
import time
import urllib.parse
import urllib.request

mode, prom, arg, dev, schema = sys.argv[1:6]
schema = int(schema)
growth = 2 ** (2 ** -schema)
bad = 0


def fail(msg):
    global bad
    bad += 1
    print("FAIL:", msg)


at = {}


def query(q):
    url = prom + "/api/v1/query?" + urllib.parse.urlencode(dict(query=q, **at))
    with urllib.request.urlopen(url, timeout=60) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError(f"{q}: {body}")
    return body["data"]["result"]


def scalar(q):
    res = query(q)
    return float(res[0]["value"][1]) if res else None


def sel(op, stage):
    return (f'iolat_request_duration_seconds{{device="{dev}",'
            f'op="{op}",stage="{stage}"}}')


if mode == "wait":
    exporter, n = arg, int(sys.argv[6])
    for accept, want in (
            ("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
             "encoding=delimited,text/plain;version=0.0.4;q=0.5",
             "application/vnd.google.protobuf"),
            (None, "text/plain")):
        req = urllib.request.Request(exporter + "/metrics")
        if accept:
            req.add_header("Accept", accept)
        with urllib.request.urlopen(req, timeout=60) as r:
            ctype = r.headers.get("Content-Type", "")
            body = r.read()
        print(f"scrape with Accept {accept and accept[:40]!r}: {ctype}, {len(body)} bytes")
        if not ctype.startswith(want):
            fail(f"Accept {accept!r}: Content-Type {ctype!r}, not {want}")
        if want == "text/plain" and b"\niolat_request_duration_seconds_bucket{" not in body:
            fail("the text exposition has no classic buckets")
    q = f'sum(histogram_count(iolat_request_duration_seconds{{device="{dev}",stage="Q2C"}}))'
    deadline = time.monotonic() + 600
    while (scalar(q) or 0) < n:
        if time.monotonic() > deadline:
            fail(f"Prometheus has {scalar(q)} requests, not {n}")
            break
        time.sleep(1)
    print(f"Prometheus holds {scalar(q):.0f} requests")
    with open(sys.argv[7], "w") as f:
        f.write(f"{time.time():.3f}\n")
    sys.exit(1 if bad else 0)

at["time"] = open(sys.argv[6]).read().strip()

j = json.load(open(arg))
d = [x for x in j["devices"] if x["name"] == dev][0]
want = {}
for o in d["ops"]:
    for stage in ("Q2C", "D2C"):
        st = o["stages"].get(stage)
        if st and st["count"]:
            want[(o["op"], stage)] = st
if not want:
    fail("the exporter's JSON has no requests")

# stored as native histograms, of the schema, with the exporter's counts
if query(f'count(iolat_request_duration_seconds_bucket{{device="{dev}"}})'):
    fail("Prometheus stored classic _bucket series")
for k, st in want.items():
    res = query(sel(*k))
    if len(res) != 1 or "histogram" not in res[0]:
        fail(f"{k}: not a native histogram: {res}")
        continue
    h = res[0]["histogram"][1]
    for rule, lo, hi, count in h["buckets"]:
        lo, hi = float(lo), float(hi)
        if lo > 0 and abs(hi / lo - growth) > 1e-9:
            fail(f"{k}: bucket ({lo}, {hi}] is not of schema {schema}")
    if float(h["count"]) != st["count"]:
        fail(f"{k}: Prometheus counted {h['count']}, the exporter {st['count']}")
    print(f"{k}: native, {len(h['buckets'])} buckets, count {h['count']} "
          f"(the exporter's {st['count']})")
for o in d["ops"]:
    n = scalar(f'iolat_requests_total{{device="{dev}",op="{o["op"]}"}}')
    if o["ios"] and n != o["ios"]:
        fail(f"iolat_requests_total of {o['op']}: {n}, the exporter {o['ios']}")

# the quantiles, of one histogram
for k, st in want.items():
    for name in j["iolat"]["percentiles"]:
        # "p99.9" -> 0.999 as written: 99.9 / 100 in binary is
        # 0.9990000000000001, whose rank of 1000 is past the 999th
        q = Decimal(name[1:]) / 100
        v = st[name + "_ns"] / 1e9
        p = scalar(f"histogram_quantile({q}, {sel(*k)})")
        tol = (growth - 1) * min(p, v)
        clamped = st[name + "_ns"] in (st["min_ns"], st["max_ns"])
        if clamped:
            tol += v / 16
        ok = abs(p - v) <= tol * (1 + 1e-9)
        print(f"{k} {name}: Prometheus {p * 1e6:.2f} us, iolat {v * 1e6:.2f} us, "
              f"{abs(p - v) / v * 100:.2f}% apart, allowed {tol / v * 100:.2f}%"
              f"{' (iolat at the observed min or max)' if clamped else ''}"
              f"{'' if ok else ' MISMATCH'}")
        if not ok:
            fail(f"{k} {name}")
sys.exit(1 if bad else 0)
