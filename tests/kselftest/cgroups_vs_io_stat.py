#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
#   cgroups_vs_io_stat.py IOLAT DEVICE OUTDIR v2 [WBDEVICE]
#   cgroups_vs_io_stat.py IOLAT DEVICE OUTDIR v1
#
# filter_test's cgroups_match_io_stat (v2) and cgroups_v1_match_blkio
# (v1): each request's cgroup, as `iolat trace --cgroups -o csv` gives
# it, against the kernel's own count per cgroup.  Two new cgroups of the
# io controller's hierarchy (v2's io, or v1's blkio mounted here); fio
# in each, 4 KiB direct random reads in one, writes in the other, on
# DEVICE with merges off (a bio a request: the kernel counts bios); iolat
# traces from before the first starts to after the last ends, and the
# kernel's counts are read before and after it (bracketing).  Checks:
# 1. each cgroup's reads, writes and bytes in iolat's lines equal the
#    growth of its io.stat (v1: blkio.throttle.io_serviced and
#    io_service_bytes) for DEVICE, and every line of the fio jobs names
#    one of them;
#    `top --cgroups` shows both cgroups, and no other, in its frames;
# 2. `record --cgroups -o json`'s table, again with both jobs: each
#    cgroup's requests and bytes against the kernel's, its Q2C p50 and
#    p99 against its fio job's clat: fio's clat is from io_submit() to
#    the reaping of the completion, and contains Q2C, so fio's
#    percentile bounds iolat's, within fio's bin width (its bins are 1/64
#    of a power of two; fio reports their middle).  What fio adds is
#    printed.  The cgroups' shares of the queue time sum to 1;
# 3. --cgroup A: every line kept is A's, as many as A's growth, and the
#    module counts B's requests as filtered; `record -A --cgroup B`, the
#    histograms kept in the module for B alone: B's writes, no read,
#    A's requests filtered;
# 4. v2 with WBDEVICE (a device made for it, so that its page cache's
#    inode is new): buffered writes by a process in A, flushed by a
#    `sync` run from the root, are A's, in iolat as in A's io.stat, and
#    submitted by the writeback (sync itself or a flusher), not by the
#    writer.  A kernel without the memory controller has no cgroup
#    writeback and charges the root: iolat must too (as v1, which has no
#    cgroup writeback);
#    `stat --cgroups` (the module's counts per cgroup, no records): each
#    cgroup's run row against the kernel's counts;
# 5. v2: `export --cgroups --cgroups-top 10` while 50 cgroups read: 10
#    named plus "other", whose requests and the named ones' sum to the
#    device's iolat_requests_total; with --records the 10 busiest, from
#    the module's cgroup slots the first 10 seen, with their histograms.
# With IOLAT_CGROUPS_CLI=0 (tests/kernels/paths.tests: the kernels that
# run each path of the module once) 1b, 2, 5 and 6 do not run: they
# check the CLI's tables and the module's cgroup slots, which do not
# change with the kernel (6.1 and the newest run them).
# 1, 1c, 3 and 4 run the module's paths that tell a bio's cgroup and its
# ancestors, which compat.h builds per kernel.
# A kernel without block cgroups (no io or blkio controller in
# /proc/cgroups: the debug kernel's config) cannot attribute: there,
# iolat must refuse --cgroups and --cgroup and say why.  Prints what it
# compared; exits 1 on a difference, 2 if it cannot set up the cgroups.
import csv
import json
import os
import subprocess
import sys
import time
import urllib.request

iolat, dev, out, mode = sys.argv[1:5]
wbdev = sys.argv[5] if len(sys.argv) > 5 else None
names = ("iolat_a", "iolat_b")
jobs = {"iolat_a": ("randread", 2000), "iolat_b": ("randwrite", 1000)}
root = "/sys/fs/cgroup" if mode == "v2" else "/tmp/iolat_blkio"
cli = os.environ.get("IOLAT_CGROUPS_CLI", "1") != "0"
bad = 0


def sh(cmd):
    return subprocess.run(cmd, shell=True).returncode


def say(ok, what):
    global bad
    bad += not ok
    print(what + ("" if ok else "  WRONG"))


def controllers():
    try:
        return [l.split()[0] for l in open("/proc/cgroups") if not l.startswith("#")]
    except OSError:
        return []


# cgroup writeback needs the memory controller (CONFIG_CGROUP_WRITEBACK
# follows CONFIG_MEMCG): the old kernels' fixture configs have none.  Its
# v2 root's cgroup.controllers says (setup()); /proc/cgroups does not:
# since 6.13 it lists only the controllers that v1 can have, and newer
# kernels build memory without v1 (CONFIG_MEMCG_V1)
cgwb = False
# each device's queue/nomerges before setup() set it to 2
nomerges = {}


def setup():
    global cgwb
    if mode == "v1":
        os.makedirs(root, exist_ok=True)
        if sh(f"mountpoint -q {root}") and \
           sh(f"mount -t cgroup -o blkio none {root}"):
            return "cannot mount v1's blkio (bound to cgroup v2?)"
    else:
        if sh(f"grep -q ' {root} cgroup2 ' /proc/mounts") and \
           sh(f"mount -t cgroup2 none {root}"):
            return "cannot mount cgroup v2"
        have = open(f"{root}/cgroup.controllers").read().split()
        if "io" not in have:
            return "no io controller in cgroup v2"
        cgwb = "memory" in have
        with open(f"{root}/cgroup.subtree_control", "w") as f:
            f.write("+io" + (" +memory" if cgwb else ""))
    majmin = open(f"/sys/block/{dev}/dev").read().strip()
    for n in names:
        if os.path.isdir(f"{root}/{n}"):
            os.rmdir(f"{root}/{n}")
        os.mkdir(f"{root}/{n}")
        # v1's throttle counts a cgroup's bios only where it has a rule
        # (6.1's blk_throtl_bio() behind blk_should_throtl(), since about
        # v5.19; 4.19 counts them all): one no I/O here reaches, a
        # thousand million a second
        for rw in ("read", "write") if mode == "v1" else ():
            with open(f"{root}/{n}/blkio.throttle.{rw}_iops_device", "w") as f:
                f.write(f"{majmin} 1000000000")
    for d in (dev, wbdev):
        if d:
            q = f"/sys/block/{d}/queue/nomerges"
            nomerges[d] = open(q).read().strip()
            with open(q, "w") as f:
                f.write("2")
    return None


def teardown():
    # the devices as they were: records.merges_match_blktrace, run after
    # this on the same null_blk, saw no merge
    for d, v in nomerges.items():
        with open(f"/sys/block/{d}/queue/nomerges", "w") as f:
            f.write(v)
    for n in names:
        if os.path.isdir(f"{root}/{n}"):
            os.rmdir(f"{root}/{n}")
    if mode == "v1":
        sh(f"umount {root}")
    else:
        # give the controllers back, for a v1 mount of blkio after this
        sh(f"echo '-io -memory' >{root}/cgroup.subtree_control 2>/dev/null")


def kernel_counts(n, d):
    """cgroup n's (reads, writes, read bytes, written bytes) on device d"""
    majmin = open(f"/sys/block/{d}/dev").read().strip()
    if mode == "v2":
        stat = {}
        for line in open(f"{root}/{n}/io.stat"):
            f = line.split()
            if f and f[0] == majmin:
                stat = dict(kv.split("=") for kv in f[1:])
        return tuple(int(stat.get(k, 0)) for k in ("rios", "wios", "rbytes", "wbytes"))
    got = {}
    for fn, k in (("io_serviced", "ios"), ("io_service_bytes", "bytes")):
        for line in open(f"{root}/{n}/blkio.throttle.{fn}"):
            f = line.split()
            if len(f) == 3 and f[0] == majmin:
                got[(f[1], k)] = int(f[2])
    return tuple(got.get(k, 0) for k in (("Read", "ios"), ("Write", "ios"),
                                         ("Read", "bytes"), ("Write", "bytes")))


def in_cgroup(n, cmd):
    return f"sh -c 'echo $$ > {root}/{n}/cgroup.procs && exec {cmd}'"


def traced(tag, d, cmd, extra=()):
    """iolat trace --cgroups over cmd on d: its rows, the kernel's growth
    per cgroup, and the session's summary"""
    before = {n: kernel_counts(n, d) for n in names}
    with open(f"{out}/{tag}.csv", "w") as o, open(f"{out}/{tag}.err", "w") as e:
        rc = subprocess.run([iolat, "trace", "--cgroups", "-o", "csv", "-d", d,
                             "--summary", f"{out}/{tag}.sum", *extra,
                             "--", "sh", "-c", cmd], stdout=o, stderr=e).returncode
    after = {n: kernel_counts(n, d) for n in names}
    if rc:
        print(f"iolat trace ({tag}): exits {rc}:", open(f"{out}/{tag}.err").read())
        sys.exit(1)
    grew = {n: tuple(a - b for a, b in zip(after[n], before[n])) for n in names}
    return list(csv.DictReader(open(f"{out}/{tag}.csv"))), grew, \
        json.load(open(f"{out}/{tag}.sum"))


def fio_jobs(tag):
    return " & ".join(in_cgroup(
        n, f"fio --name={n} --filename=/dev/{dev} --rw={rw} --bs=4k --direct=1 "
        f"--ioengine=libaio --iodepth=4 --number_ios={ios} --size=256M --eta=never "
        f"--output-format=json --output={out}/{tag}_{n}.json")
        for n, (rw, ios) in jobs.items()) + " & wait"


def per_cgroup(rows, comm=None):
    """(cgroup, op) -> [requests, bytes]"""
    seen = {}
    for r in rows:
        if comm and r["comm"] != comm:
            continue
        v = seen.setdefault((r["cgroup"], r["op"]), [0, 0])
        v[0] += 1
        v[1] += int(r["bytes"])
    return seen


def last_json(text):
    """the last of the JSON objects of text that has devices: the run's"""
    dec, i, last = json.JSONDecoder(), 0, {}
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return last
        o, i = dec.raw_decode(text, i)
        if "devices" in o:
            last = o


def sum_key(o, key):
    if isinstance(o, dict):
        return sum(v if k == key and isinstance(v, int) else sum_key(v, key)
                   for k, v in o.items())
    if isinstance(o, list):
        return sum(sum_key(v, key) for v in o)
    return 0


def compare_counts(seen, grew, only=names):
    for n in only:
        k = grew[n]
        for i, op in enumerate(("read", "write")):
            got = tuple(seen.pop(("/" + n, op), (0, 0))[:2])
            want = (k[i], k[i + 2])
            say(got == want, f"/{n} {op}: iolat {got[0]} requests, {got[1]} bytes; "
                f"kernel {want[0]}, {want[1]}")


# a kernel without block cgroups: refused, and said
if not {"io", "blkio"} & set(controllers()):
    for args in (["trace", "--cgroups"], ["trace", "--cgroup", "/"],
                 ["stat", "--cgroups"]):
        p = subprocess.run([iolat, *args, "-d", dev, "-t", "1"],
                           capture_output=True, text=True)
        said = "no block cgroups (CONFIG_BLK_CGROUP)" in p.stderr or \
               "no io controller's hierarchy is mounted" in p.stderr
        say(p.returncode and said, f"no io controller in this kernel: iolat "
            f"{' '.join(args)} exits {p.returncode}: {p.stderr.strip()}")
    sys.exit(1 if bad else 0)
why = setup()
if why:
    print("cgroups:", why)
    teardown()
    sys.exit(2)

# 1. the two jobs, every request's cgroup against the kernel's counts
rows, grew, _ = traced("both", dev, fio_jobs("both"))
seen = per_cgroup(rows, "fio")
compare_counts(seen, grew)
for n, (rw, _) in jobs.items():
    if not grew[n][0 if rw == "randread" else 1]:
        say(False, f"/{n}: the kernel counted none of its fio's I/O")
for k, v in seen.items():
    say(False, f"fio's requests in another cgroup: {k} {v[:2]}")

# 1b. top --cgroups: both jobs' cgroups in its frames, no other; top is
# stopped two frames after the jobs end, when it has shown all of them
if cli:
    with open(f"{out}/top.txt", "w") as o:
        top = subprocess.Popen([iolat, "top", "--cgroups", "-d", dev, "-i", "0.5"],
                               stdout=o, stderr=subprocess.STDOUT)
        sh(fio_jobs("top"))
        mark = len(open(f"{out}/top.txt").read())
        for _ in range(1200):
            if open(f"{out}/top.txt").read()[mark:].count("\ncgroup ") >= 2:
                break
            time.sleep(0.1)
        top.send_signal(2)
        top.wait()
    rows = [l.split() for l in open(f"{out}/top.txt") if l.startswith("/")]
    shown = {r[0] for r in rows if r[1] == dev}
    say(shown == {"/" + n for n in names},
        f"top --cgroups: {len(rows)} rows, of {sorted(shown)}")

# 1c. stat --cgroups: the module's counts per cgroup (no records), each
# cgroup's run row against the kernel's counts; their shares of the
# device's queue time sum to 100%
before = {n: kernel_counts(n, dev) for n in names}
st = subprocess.run([iolat, "stat", "--cgroups", "-o", "json", "-d", dev, "1",
                     "--", "sh", "-c", fio_jobs("stat")], capture_output=True, text=True)
grew = {n: tuple(x - y for x, y in zip(kernel_counts(n, dev), before[n])) for n in names}
runrows = [json.loads(l) for l in st.stdout.splitlines() if l.startswith("{")]
runrows = [r for r in runrows if r.get("total") and r["device"] == dev]
say(not st.returncode and {r["cgroup"] for r in runrows} == {"/" + n for n in names},
    f"stat --cgroups: exits {st.returncode}, run rows of {sorted(r['cgroup'] for r in runrows)} "
    f"{st.stderr.strip()}")
for r in runrows:
    k = grew.get(r["cgroup"][1:], (0, 0, 0, 0))
    got = (r["r_ios"], r["w_ios"], r["r_bytes"], r["w_bytes"])
    say(got == k, f"stat --cgroups: {r['cgroup']}: reads, writes, their bytes {got}; "
        f"kernel {k}; r_await {r['r_await_ms']:.3f} ms, w_await {r['w_await_ms']:.3f} ms")
shares = sum(r["aqu_share"] for r in runrows)
say(abs(shares - 100) < 0.01, f"stat --cgroups: the shares of {dev}'s queue time sum to {shares:.4f}%")

# 2. record --cgroups: each cgroup's table row against the kernel's
# counts, and its Q2C percentiles against its fio job's clat
if cli:
    before = {n: kernel_counts(n, dev) for n in names}
    with open(f"{out}/rec.json", "w") as o, open(f"{out}/rec.err", "w") as e:
        rc = subprocess.run([iolat, "record", "--cgroups", "-o", "json", "-P", "50,99",
                             "-w", f"{out}/cg.rec",
                             "-d", dev, "--", "sh", "-c", fio_jobs("rec")],
                            stdout=o, stderr=e).returncode
    grew = {n: tuple(a - b for a, b in zip(kernel_counts(n, dev), before[n]))
            for n in names}
    if rc:
        print("iolat record --cgroups: exits", rc, open(f"{out}/rec.err").read())
        sys.exit(1)
    rec = last_json(open(f"{out}/rec.json").read())
    table = {g["cgroup"]: g for g in rec.get("cgroups", []) if g["device"] == dev}
    for n, (rw, _) in jobs.items():
        op = "read" if rw == "randread" else "write"
        g = table.get("/" + n, {})
        got = (g.get("ios", 0), g.get("bytes", 0))
        want = (sum(grew[n][:2]), sum(grew[n][2:]))
        say(got == want, f"record --cgroups: /{n}: {got[0]} requests, {got[1]} bytes, "
            f"{100 * g.get('queue_share', 0):.1f}% of the queue time; kernel {want[0]}, {want[1]}")
        fio = json.load(open(f"{out}/rec_{n}.json"))["jobs"][0][op]["clat_ns"]["percentile"]
        for pct in (50, 99):
            f, q = fio[f"{pct}.000000"], g.get("Q2C", {}).get(f"p{pct}_ns", 0)
            say(0 < q <= f * (1 + 1 / 64),
                f"/{n} {op} p{pct}: iolat Q2C {q} ns, fio clat {f} ns "
                f"(fio adds {f - q} ns: the syscall and the reaping)")
    # the file keeps the cgroups' paths: report's table is record's
    rep = subprocess.run([iolat, "report", "-o", "json", "-P", "50,99", f"{out}/cg.rec"],
                         capture_output=True, text=True)
    saved = {g["cgroup"]: (g["ios"], g["bytes"]) for g in
             last_json(rep.stdout).get("cgroups", []) if g["device"] == dev}
    say(saved == {k: (g["ios"], g["bytes"]) for k, g in table.items()},
        f"report of record -w --cgroups's file: {saved}")
    shares = sum(g["queue_share"] for g in table.values())
    say(abs(shares - 1) < 0.001, f"record --cgroups: the shares of {dev}'s queue time sum to {shares:.4f}")

# 3. --cgroup A keeps A's, counts B's as filtered
a, b = names
rows, grew, summary = traced("filter", dev, fio_jobs("filter"),
                             ["--cgroup", a if mode == "v1" else f"{root}/{a}"])
others = [r for r in rows if r["cgroup"] != "/" + a]
say(not others, f"--cgroup {a}: {len(rows)} lines, {len(others)} of another cgroup")
compare_counts(per_cgroup(rows), grew, (a,))
filtered = sum_key(summary, "filtered")
say(filtered == grew[b][0] + grew[b][1],
    f"--cgroup {a}: {filtered} requests filtered; /{b}'s: {grew[b][0] + grew[b][1]}")

before = {n: kernel_counts(n, dev) for n in names}
agg = subprocess.run([iolat, "record", "-A", "-o", "json", "--summary", f"{out}/agg.sum",
                      "--cgroup", b if mode == "v1" else f"{root}/{b}", "-d", dev,
                      "--", "sh", "-c", fio_jobs("agg")], capture_output=True, text=True)
grew = {n: tuple(x - y for x, y in zip(kernel_counts(n, dev), before[n])) for n in names}
ops = {}
for d in last_json(agg.stdout).get("devices", []):
    if d["name"] == dev:
        ops = {o["op"]: o["ios"] for o in d["ops"]}
filtered = sum_key(json.load(open(f"{out}/agg.sum")), "filtered") if not agg.returncode else -1
say(not agg.returncode and ops.get("write", 0) == grew[b][1] > 0 and
    not ops.get("read", 0) and filtered == grew[a][0] + grew[a][1],
    f"record -A --cgroup {b}: the module's histograms {ops}, /{b}'s writes {grew[b][1]}; "
    f"{filtered} filtered, /{a}'s requests {grew[a][0] + grew[a][1]} {agg.stderr.strip()}")

# 4. writeback: A's dirty pages, flushed by sync from the root, are A's
# (the device held open meanwhile: its last close would flush them, in
# dd's own context)
if mode == "v2" and wbdev:
    cmd = (f"exec 3</dev/{wbdev} && " +
           in_cgroup(a, f"dd if=/dev/zero of=/dev/{wbdev} bs=64k count=64 "
                        "status=none") + " && sync")
    rows, grew, _ = traced("wb", wbdev, cmd)
    writes = [r for r in rows if r["op"] == "write"]
    seen = per_cgroup(writes)
    compare_counts(seen, grew, (a,))
    if cgwb:
        say(grew[a][3] >= 64 * 65536,
            f"writeback: /{a}'s io.stat grew by {grew[a][3]} bytes written, "
            f"dd wrote {64 * 65536}")
        for k, v in seen.items():
            say(False, f"writeback: {v[0]} writes, {v[1]} bytes, charged to {k[0]}, not /{a}")
    else:
        # the kernel charges the flusher's cgroup, the root: so must iolat
        root_w = seen.get(("/", "write"), [0, 0])[1]
        say(not grew[a][3] and root_w >= 64 * 65536,
            f"writeback: no memory controller, so no cgroup writeback in this "
            f"kernel: /{a}'s io.stat grew by {grew[a][3]} bytes written, iolat "
            f"charged {root_w} bytes to the root, dd wrote {64 * 65536}")
    by = {}
    for r in writes:
        by[r["comm"] or "(a kernel thread)"] = by.get(r["comm"] or "(a kernel thread)", 0) + 1
    say(sum(v for c, v in by.items() if c != "dd") > 0,
        f"writeback: the writes submitted by {by}")
elif mode == "v2":
    say(False, "writeback: no device given for it")

def scrape_cgroups(port, want):
    """the exporter's iolat_cgroup_requests_total and _request_duration
    _seconds_count series of dev, and its iolat_requests_total, once they
    add up to want's"""
    series, counts, total = {}, {}, None
    for _ in range(600):
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                      timeout=60).read().decode()
        series, counts, total = {}, {}, 0
        for line in text.splitlines():
            if f'device="{dev}"' not in line:
                continue
            v = int(float(line.split()[-1]))
            if line.startswith("iolat_cgroup_requests_total{"):
                series[line.split('cgroup="')[1].split('"')[0]] = v
            elif line.startswith("iolat_cgroup_request_duration_seconds_count{"):
                counts[line.split('cgroup="')[1].split('"')[0]] = v
            elif line.startswith("iolat_requests_total{"):
                total += v
        if sum(series.values()) >= sum(want.values()):
            break
        time.sleep(0.1)
    return series, counts, total


def export_many(records, port, many):
    """`export --cgroups --cgroups-top 10` (with --records, or with the
    module's slots) while cgroup i of many reads 5 + i blocks; scraped
    once after the last dd"""
    want = {"/" + n: 5 + i for i, n in enumerate(many)}
    ex = subprocess.Popen([iolat, "export", *(["--records"] if records else []),
                           "--cgroups", "--cgroups-top", "10",
                           "--listen", f"127.0.0.1:{port}", "-d", dev],
                          stderr=open(f"{out}/ex{port}.err", "w"))
    # the exporter's first answer: it traces
    for _ in range(600):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60).read()
            break
        except OSError:
            time.sleep(0.1)
    for i, n in enumerate(many):
        sh(in_cgroup(n, f"dd if=/dev/{dev} of=/dev/null bs=4k count={5 + i} "
                        "iflag=direct status=none"))
    series, counts, total = scrape_cgroups(port, want)
    ex.terminate()
    ex.wait()
    return want, series, counts, total


# 5. export --cgroups --cgroups-top 10 over 50 cgroups, cgroup i reading
# 5 + i blocks, one after the other: 10 named by path, the rest as
# "other", the totals the device's.  With --records the 10 named are the
# busiest of the run (40 to 49); from the module's slots (no records),
# the first 10 seen (0 to 9), with their Q2C histograms.
if mode == "v2" and cli:
    many = [f"iolat_c{i:02d}" for i in range(50)]
    for n in many:
        os.makedirs(f"{root}/{n}", exist_ok=True)
    sh("ip link set lo up")
    for records, port, first in ((True, 19317, 40), (False, 19318, 0)):
        how = "--records" if records else "the module's slots"
        want, series, counts, total = export_many(records, port, many)
        named = sorted(k for k in series if k != "other")
        expect = sorted("/" + n for n in many[first:first + 10])
        say(named == expect and "other" in series,
            f"export --cgroups-top 10 ({how}): {len(named)} named ({', '.join(named)}), "
            f"other: {series.get('other')}; expected {expect[0]} to {expect[-1]}")
        mine = sum(want.values())
        say(sum(series.values()) == total and
            all(series[k] == want[k] for k in named) and
            series.get("other", 0) == mine - sum(want[k] for k in expect),
            f"export --cgroups ({how}): the cgroups' requests sum to "
            f"{sum(series.values())}, the device's to {total}; the dd's {mine}")
        say(all(counts.get(k) == series[k] for k in series),
            f"export --cgroups ({how}): each cgroup's Q2C histogram counts its "
            f"requests: {counts == series}")
    for n in many:
        os.rmdir(f"{root}/{n}")

# 6. v2: the module's slots change hands.  stat --cgroups --cgroups-top 2
# while 6 cgroups read one after the other, an interval or more apart:
# each idle cgroup gives its slot up, so each has its own row, exactly
# its reads, and none is "other".  export --cgroups --cgroups-top 2: a
# named cgroup removed, idle since the last exposition, is named no more
# (its requests go to "other"), and the cgroup that reads next takes its
# place.
if mode == "v2" and cli:
    six = [f"iolat_s{i}" for i in range(6)]
    for n in six:
        os.makedirs(f"{root}/{n}", exist_ok=True)
    # six intervals between two cgroups' reads: a slot is freed at the
    # first interval's end in which its cgroup was idle
    cmd = "; sleep 1.2; ".join(in_cgroup(n, f"dd if=/dev/{dev} of=/dev/null bs=4k "
                                             f"count={20 + i} iflag=direct status=none")
                              for i, n in enumerate(six))
    st = subprocess.run([iolat, "stat", "--cgroups", "--cgroups-top", "2", "-o", "json",
                         "-d", dev, "0.2", "--", "sh", "-c", cmd],
                        capture_output=True, text=True)
    runrows = [json.loads(l) for l in st.stdout.splitlines() if l.startswith("{")]
    got = {r["cgroup"]: r["r_ios"] for r in runrows if r.get("total") and r["device"] == dev}
    want = {"/" + n: 20 + i for i, n in enumerate(six)}
    say(not st.returncode and got == want,
        f"stat --cgroups --cgroups-top 2, 6 cgroups one after the other: {got}; "
        f"expected {want} {st.stderr.strip()}")
    for n in six:
        os.rmdir(f"{root}/{n}")

    x, y, z = "iolat_x", "iolat_y", "iolat_z"
    for n in (x, y, z):
        os.makedirs(f"{root}/{n}", exist_ok=True)
    port = 19319
    ex = subprocess.Popen([iolat, "export", "--cgroups", "--cgroups-top", "2",
                           "--listen", f"127.0.0.1:{port}", "-d", dev],
                          stderr=open(f"{out}/ex{port}.err", "w"))
    for _ in range(600):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60).read()
            break
        except OSError:
            time.sleep(0.1)
    steps = []
    for n, count in ((x, 30), (y, 40)):
        sh(in_cgroup(n, f"dd if=/dev/{dev} of=/dev/null bs=4k count={count} "
                        "iflag=direct status=none"))
    steps.append(scrape_cgroups(port, {"a": 70})[0])
    os.rmdir(f"{root}/{x}")
    steps.append(scrape_cgroups(port, {"a": 70})[0])
    sh(in_cgroup(z, f"dd if=/dev/{dev} of=/dev/null bs=4k count=50 iflag=direct status=none"))
    steps.append(scrape_cgroups(port, {"a": 120})[0])
    ex.terminate()
    ex.wait()
    say(steps[0] == {"/" + x: 30, "/" + y: 40} and
        steps[1] == {"/" + y: 40, "other": 30} and
        steps[2] == {"/" + y: 40, "/" + z: 50, "other": 30},
        f"export --cgroups --cgroups-top 2: {steps[0]}; /{x} removed: {steps[1]}; "
        f"/{z} reads: {steps[2]}")
    for n in (y, z):
        os.rmdir(f"{root}/{n}")
teardown()
sys.exit(1 if bad else 0)
