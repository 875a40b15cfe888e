#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
#   cgroups_vs_io_stat.py IOLAT DEVICE OUTDIR
#
# filter_test's cgroups_match_io_stat: each request's cgroup, as
# `iolat trace --cgroups -o csv` gives it, against the kernel's own
# count per cgroup (io.stat).  Two new cgroups of cgroup v2 with the io
# controller; fio in each, 4 KiB direct random reads in one, writes in
# the other, on DEVICE with merges off (a bio a request: io.stat counts
# bios); iolat traces from before the first starts to after the last
# ends.  Each cgroup's reads, writes and bytes in iolat's lines equal its
# io.stat for DEVICE (new cgroups: from zero), and every line of the
# two fio jobs names one of them.  A kernel without block cgroups (no io
# or blkio controller in /proc/cgroups: the debug kernel's config) cannot
# attribute: there, iolat must refuse --cgroups and say why.  Prints
# what it compared; exits 1 on a difference, 2 if it cannot set up the
# cgroups.
import csv
import os
import subprocess
import sys

iolat, dev, out = sys.argv[1:4]
root = "/sys/fs/cgroup"
names = ("iolat_a", "iolat_b")
jobs = {"iolat_a": ("randread", 2000), "iolat_b": ("randwrite", 1000)}


def sh(cmd):
    return subprocess.run(cmd, shell=True).returncode


def setup():
    if sh(f"grep -q ' {root} cgroup2 ' /proc/mounts") and \
       sh(f"mount -t cgroup2 none {root}"):
        return "cannot mount cgroup v2"
    if "io" not in open(f"{root}/cgroup.controllers").read().split():
        return "no io controller in cgroup v2"
    with open(f"{root}/cgroup.subtree_control", "w") as f:
        f.write("+io")
    for n in names:
        if os.path.isdir(f"{root}/{n}"):
            os.rmdir(f"{root}/{n}")
        os.mkdir(f"{root}/{n}")
    with open(f"/sys/block/{dev}/queue/nomerges", "w") as f:
        f.write("2")
    return None


def controllers():
    try:
        return [l.split()[0] for l in open("/proc/cgroups") if not l.startswith("#")]
    except OSError:
        return []


if not {"io", "blkio"} & set(controllers()):
    p = subprocess.run([iolat, "trace", "--cgroups", "-d", dev, "-t", "1"],
                       capture_output=True, text=True)
    said = "no block cgroups (CONFIG_BLK_CGROUP)" in p.stderr
    print(f"no io controller in this kernel: iolat trace --cgroups exits {p.returncode}: {p.stderr.strip()}")
    sys.exit(0 if p.returncode and said else 1)
why = setup()
if why:
    print("cgroups:", why)
    sys.exit(2)
majmin = open(f"/sys/block/{dev}/dev").read().strip()
fio = " & ".join(
    f"sh -c 'echo $$ > {root}/{n}/cgroup.procs && exec fio --name={n} "
    f"--filename=/dev/{dev} --rw={rw} --bs=4k --direct=1 --ioengine=libaio "
    f"--iodepth=4 --number_ios={ios} --size=256M --eta=never --output=/dev/null'"
    for n, (rw, ios) in jobs.items()) + " & wait"
with open(f"{out}/cg.csv", "w") as o, open(f"{out}/cg.err", "w") as e:
    rc = subprocess.run([iolat, "trace", "--cgroups", "-o", "csv", "-d", dev,
                         "--", "sh", "-c", fio], stdout=o, stderr=e).returncode
if rc:
    print("iolat trace:", rc, open(f"{out}/cg.err").read())
    sys.exit(1)

# iolat's lines per cgroup and op
seen = {}
for row in csv.DictReader(open(f"{out}/cg.csv")):
    if row["comm"] != "fio":
        continue
    k = (row["cgroup"], row["op"])
    n, b = seen.get(k, (0, 0))
    seen[k] = (n + 1, b + int(row["bytes"]))

bad = 0
for n in names:
    stat = {}
    for line in open(f"{root}/{n}/io.stat"):
        f = line.split()
        if f and f[0] == majmin:
            stat = dict(kv.split("=") for kv in f[1:])
    for op, ios, byts in (("read", "rios", "rbytes"), ("write", "wios", "wbytes")):
        want = (int(stat.get(ios, 0)), int(stat.get(byts, 0)))
        got = seen.pop(("/" + n, op), (0, 0))
        ok = got == want
        bad += not ok
        print(f"/{n} {op}: iolat {got[0]} requests, {got[1]} bytes; "
              f"io.stat {want[0]}, {want[1]}{'' if ok else '  DIFFERENT'}")
    if not int(stat.get(jobs[n][0] == "randread" and "rios" or "wios", 0)):
        print(f"/{n}: io.stat counted none of its fio's I/O")
        bad += 1
for k, v in seen.items():
    print(f"fio's requests in another cgroup: {k} {v}")
    bad += 1
for n in names:
    os.rmdir(f"{root}/{n}")
sys.exit(1 if bad else 0)
