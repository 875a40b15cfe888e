#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
#   native_vs_prometheus.py IOLAT.json PROMETHEUS_URL EXPORTER_URL DEVICE SCHEMA
#
# analysis_test's export_native_histograms: `iolat export` serves a
# Prometheus that ingests native histograms (--enable-feature=
# native-histograms), and `iolat record -A -o json` (IOLAT.json) traced
# the same requests, the only ones on DEVICE while the exporter ran.
#
# - The exporter answers a scrape that asks for the protobuf exposition
#   with it, and one that does not with the text.
# - Prometheus stored each histogram (device, op, stage) as a native one
#   (a "histogram" sample, no _bucket series), of the schema that matches
#   the module's bins: each bucket's upper edge is 2^(1/2^SCHEMA) times
#   its lower one.
# - Once it has scraped every request (histogram_count() and
#   iolat_requests_total are IOLAT.json's counts), histogram_quantile()
#   over the native histogram agrees with iolat's own percentile of the
#   same requests within the schema's bucket width (two sessions: see
#   below).  Prometheus places a
#   quantile in the bucket of its rank, linearly; iolat gives the
#   midpoint of the module's bin of that rank, whose count the exporter
#   put whole in the bucket of that midpoint: both are in one bucket.
#   iolat keeps its percentiles within the observed min and max, which
#   may take one out of its bin's midpoint by half that bin (1/16).
#   The two sessions stamp each request with their own probes, which a
#   vCPU descheduled between them can put apart: a quantile is compared
#   where at least 10 requests lie above it (not the tail's last few,
#   which are such requests), p50, p90 and p99 of IOLAT.json here; and a
#   rank that falls at an edge of the module's bins can be on either
#   side of it in the two sessions (make check saw p90 of 3000 reads at
#   315.7 us in Prometheus, 345.1 us in record -A: adjacent buckets), so
#   the two may be one bucket further apart.  That a bin's count is in
#   its midpoint's bucket, which makes one histogram's quantiles agree
#   within one bucket, tests/unit/expo_test.c shows exactly.
#
# Waits for Prometheus's scrapes as long as they take (a ceiling of ten
# minutes, not a floor).  Prints what it compared; exits 1 on a mismatch.
import json
import math
import sys
import time
import urllib.parse
import urllib.request

iolat_json, prom, exporter, dev, schema = sys.argv[1:6]
schema = int(schema)
growth = 2 ** (2 ** -schema)
bad = 0


def fail(msg):
    global bad
    bad += 1
    print("FAIL:", msg)


def query(q):
    url = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=60) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError(f"{q}: {body}")
    return body["data"]["result"]


def scalar(q):
    res = query(q)
    return float(res[0]["value"][1]) if res else None


# the exporter's two formats
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

j = json.load(open(iolat_json))
d = [x for x in j["devices"] if x["name"] == dev][0]
want = {}
for o in d["ops"]:
    for stage in ("Q2C", "D2C"):
        st = o["stages"].get(stage)
        if st and st["count"]:
            want[(o["op"], stage)] = st
if not want:
    fail("iolat.json has no requests")

sel = lambda op, stage: (f'iolat_request_duration_seconds{{device="{dev}",'
                         f'op="{op}",stage="{stage}"}}')

# every request scraped
deadline = time.monotonic() + 600
while True:
    seen = {k: scalar(f"histogram_count({sel(*k)})") for k in want}
    if all(seen[k] == want[k]["count"] for k in want):
        break
    if time.monotonic() > deadline:
        fail(f"Prometheus has {seen}, iolat counted "
             f"{ {k: v['count'] for k, v in want.items()} }")
        sys.exit(1)
    time.sleep(1)
for o in d["ops"]:
    n = scalar(f'iolat_requests_total{{device="{dev}",op="{o["op"]}"}}')
    if o["ios"] and n != o["ios"]:
        fail(f"iolat_requests_total of {o['op']}: {n}, iolat counted {o['ios']}")

# stored as native histograms, of the schema
if query(f'count(iolat_request_duration_seconds_bucket{{device="{dev}"}})'):
    fail("Prometheus stored classic _bucket series")
for k in want:
    res = query(sel(*k))
    if len(res) != 1 or "histogram" not in res[0]:
        fail(f"{k}: not a native histogram: {res}")
        continue
    buckets = res[0]["histogram"][1]["buckets"]
    for rule, lo, hi, count in buckets:
        lo, hi = float(lo), float(hi)
        if lo > 0 and abs(hi / lo - growth) > 1e-9:
            fail(f"{k}: bucket ({lo}, {hi}] is not of schema {schema}")
    print(f"{k}: native, {len(buckets)} buckets, "
          f"count {res[0]['histogram'][1]['count']}")

# the quantiles
for k, st in want.items():
    for name in j["iolat"]["percentiles"]:
        q = float(name[1:]) / 100
        if st["count"] * (1 - q) < 10:
            fail(f"{k} {name}: fewer than 10 requests above it")
            continue
        v = st[name + "_ns"] / 1e9
        p = scalar(f"histogram_quantile({q}, {sel(*k)})")
        tol = (growth * growth - 1) * min(p, v)
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
