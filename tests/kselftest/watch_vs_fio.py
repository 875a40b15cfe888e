#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
#   watch_vs_fio.py IOLAT LOWER OUTDIR QUIET_SECS [P99]
#
# upper_test's watch_dm_delay_dump: `iolat watch`, the flight recorder,
# against fio's own per-I/O latency log (--write_lat_log, with each
# I/O's offset) as the truth, on a dm-delay device over the null_blk
# disk LOWER.  fio reads 4 KiB at random, direct, one at a time, at a
# steady rate set from the service time it measured first (a third of
# what one I/O takes, at most 200 a second), for the whole test.
# 1. Quiet: `watch -d DM -d LOWER --slower-than 50ms -t QUIET` while
#    nothing is made slow: the module's counters (its --summary) show
#    every request kept in the histograms, and no dump, none copied to
#    user space; or, if the guest itself stalled an I/O past 50 ms (a
#    TCG vCPU on a busy host: 76 ms seen on 6.1 in make check), dumps
#    whose triggers are each at 50 ms or more, each of fio's found in
#    fio's own log, at its offset, that slow: no dump without a breach;
# 2. The delay: `watch -d DM -d LOWER --slower-than 50ms --before 5s
#    --after 1s --cgroups -w DIR` (issue 35's command); 6 s after it is
#    armed, dm-delay's delay goes to 150 ms (dmsetup reload + resume) for
#    a second, and back to 0.  Exactly one dump is written (the recorder
#    stays quiet for --min-gap after it); its report names the trigger
#    (slower, DM, a read, Q2C >= 50 ms, fio's process, its cgroup) and a
#    window whole from 5 s before it to 1 s after, nothing lost (none of
#    its records overwritten or not written); the I/Os fio saw take
#    >= 150 ms are in it at >= 150 ms; every I/O fio completed in the
#    window is in it: each I/O fio submitted and reaped in it, matched by
#    its offset and a completion between the two (fio's clock placed on
#    the module's by the matches); no record is outside its window.
# 3. (Unless P99 is 0.) The percentile: `watch -d DM --p99-over 50ms --window 4`; the delay
#    at 150 ms for three seconds (at most two windows hold it, one of them
#    half of it or more: 2% of its requests or more are slow, and 100 or
#    more in all): one dump, its trigger the p99 of DM over 50 ms, its
#    window whole.
# A kernel without dm-delay (the fixture kernels, the debug kernel) runs
# the same over dm-linear, the window asked for by `iolat watch --dump`
# instead of a slow I/O (its trigger "asked"), and no percentile phase:
# the recorder's paths and its window's completeness are checked there
# too, and it says so.
# Prints what it compared; exits 1 on a difference, 2 if it cannot set
# up.
import csv
import glob
import json
import os
import signal
import statistics
import subprocess
import sys
import time

iolat, lower, out, quiet = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
p99 = len(sys.argv) <= 5 or sys.argv[5] != "0"	# 0: no percentile phase
dm = "iolat_delay"
bad = 0


def say(ok, what):
    global bad
    print(("" if ok else "MISMATCH: ") + what, flush=True)
    bad += not ok


def sh(cmd):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True,
                          text=True).stdout


delay = subprocess.run("modprobe dm_delay", shell=True, capture_output=True).returncode == 0


def table(ms):
    size = sh(f"blockdev --getsz /dev/{lower}").strip()
    if not delay:
        return f"0 {size} linear /dev/{lower} 0"
    return f"0 {size} delay /dev/{lower} 0 {ms}"


def set_delay(ms):
    """dm-delay's delay, as an operator changes a table live"""
    if delay:
        sh(f"dmsetup suspend {dm} && dmsetup reload {dm} --table '{table(ms)}' "
           f"&& dmsetup resume {dm}")


def mono():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def watch(args, err):
    """`iolat watch -d DM ARGS...`, once armed"""
    p = subprocess.Popen([iolat, "watch", "-d", f"/dev/mapper/{dm}", *args],
                         stderr=open(err, "w"), stdout=subprocess.DEVNULL)
    # armed once it says so (a guard, not a measure: a hang fails)
    for _ in range(6000):
        if "watching" in open(err).read() or p.poll() is not None:
            break
        time.sleep(0.01)
    return p


def wait_dump(d):
    """until a dump is in @d (the same guard), and 2 s more"""
    for _ in range(6000):
        if glob.glob(f"{d}/*.rec"):
            break
        time.sleep(0.01)
    time.sleep(2)


if not delay:
    print("this kernel has no dm-delay: dm-linear, the window asked for by "
          "`iolat watch --dump`, no percentile phase")
    # the minute with nothing slow is the dm-delay kernels' (6.1 and the
    # newest run it whole); here 10 s show the recorder as quiet
    quiet = min(quiet, 10)
try:
    subprocess.run(f"dmsetup remove {dm}", shell=True, capture_output=True)
    sh(f"dmsetup create {dm} --table '{table(0)}' && dmsetup mknodes")
except subprocess.CalledProcessError as e:
    print(f"cannot set up dm-delay: {e.stderr.strip()}")
    sys.exit(2)
rdev = os.stat(f"/dev/mapper/{dm}").st_rdev
kname = os.path.basename(os.readlink(f"/sys/dev/block/{os.major(rdev)}:{os.minor(rdev)}"))

# the service time first: the rate is a third of what the device takes
fio = ["fio", "--name=w", f"--filename=/dev/mapper/{dm}", "--rw=randread",
       "--bs=4k", "--direct=1", "--ioengine=psync", "--randrepeat=0",
       "--norandommap", "--output-format=json",
       # the truth's clock is the kernel's CLOCK_MONOTONIC, as the
       # module's: not fio's own calibration of the TSC, which a vCPU's
       # unsynchronised TSC (rhel8's guest marks it unstable) would skew
       "--clocksource=clock_gettime"]
r = json.loads(sh(" ".join(fio + ["--number_ios=300", "--size=1G"])))
mean_ns = r["jobs"][0]["read"]["lat_ns"]["mean"]
rate = max(10, min(200, int(1e9 / mean_ns / 3)))
print(f"fio: {mean_ns / 1e3:.1f} us an I/O alone; {rate} I/Os a second")

runtime = int(quiet + 45)
load = subprocess.Popen(fio + [f"--rate_iops={rate}", "--time_based",
                               f"--runtime={runtime}", "--size=1G",
                               f"--write_lat_log={out}/fio", "--log_offset=1"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1)

# 1. quiet: no dump, nothing copied
qdir = f"{out}/watch_quiet"
subprocess.run(f"rm -rf {qdir}", shell=True)
p = watch(["-d", lower, "--slower-than", "50ms", "-t", str(quiet), "-w", qdir,
           "--summary", f"{out}/quiet.json"],
          f"{out}/quiet.err")
p.wait()
summ = json.load(open(f"{out}/quiet.json"))
dumps = glob.glob(f"{qdir}/*.rec")
kept = summ.get("written", 0)
# a dump here must be a real breach: its trigger at 50 ms or more, and
# (checked against fio's log below) an I/O of fio's that slow
quiet_trig = [json.loads(subprocess.run([iolat, "report", "-o", "json", d],
                                        capture_output=True, text=True).stdout or "{}")
              .get("trigger", {}) for d in dumps]
quiet_lat = [t.get("latency_ns", 0) for t in quiet_trig]
say(p.returncode == 0 and kept > 0 and
    ((not dumps and summ.get("copied") == 0) or
     (dumps and min(quiet_lat) >= 50e6)),
    f"quiet, {quiet:g} s at {rate} I/Os a second: exit {p.returncode}, "
    f"{len(dumps)} dumps (triggers at {[round(x / 1e6, 3) for x in quiet_lat]} ms), "
    f"{kept} requests kept in the histograms, "
    f"{summ.get('copied')} records copied to user space, "
    f"{summ.get('watch', {}).get('watch_overwritten', 0)} overwritten "
    f"{open(f'{out}/quiet.err').read().strip()}")

# 2. the delay: one dump
wdir = f"{out}/watch"
subprocess.run(f"rm -rf {wdir}", shell=True)
p = watch(["-d", lower, "--slower-than", "50ms", "--before", "5s", "--after", "1s",
           *(["--cgroups"] if delay else []), "-w", wdir], f"{out}/watch.err")
time.sleep(6)
t_delay = mono()
set_delay(150)
if not delay:
    sh(f"{iolat} watch --dump")
time.sleep(1)
set_delay(0)
t_back = mono()
wait_dump(wdir)
p.send_signal(signal.SIGINT)
rc2 = p.wait()
err = open(f"{out}/watch.err").read().strip()

# 3. the percentile over a window, from the module's histograms
rc3 = None
if delay and p99:
    pdir = f"{out}/watch_p99"
    subprocess.run(f"rm -rf {pdir}", shell=True)
    p = watch(["--p99-over", "50ms", "--window", "4", "--before", "3", "--after", "1",
               "-w", pdir], f"{out}/p99.err")
    time.sleep(5)
    set_delay(150)
    time.sleep(3)
    set_delay(0)
    wait_dump(pdir)
    p.send_signal(signal.SIGINT)
    rc3 = p.wait()
# fio's job stops here: every window asked for has ended (SIGINT: fio
# ends its job and writes its latency log)
load.send_signal(signal.SIGINT)
load.wait()
subprocess.run(f"dmsetup remove {dm}", shell=True, capture_output=True)
dumps = sorted(glob.glob(f"{wdir}/*.rec"))
say(rc2 == 0 and len(dumps) == 1,
    f"the delay: exit {rc2}, {len(dumps)} dump(s): {dumps}\n{err}")
if len(dumps) != 1:
    sys.exit(1)
rep = subprocess.run([iolat, "report", "-o", "json", dumps[0]], capture_output=True,
                     text=True)
j = json.loads(rep.stdout)
trig, win = j.get("trigger", {}), j.get("window", {})
if delay:
    say(rep.returncode == 0 and trig.get("reason") == "slower" and
        trig.get("device") == kname and trig.get("op") == "read" and
        trig.get("latency_ns", 0) >= 50e6 and trig.get("comm") == "fio" and
        trig.get("cgroup") and t_delay <= trig.get("trigger_ns", 0) <= t_back + 200e6,
        f"the trigger: {trig}; the delay from {t_delay} to {t_back}")
else:
    say(rep.returncode == 0 and trig.get("reason") == "asked" and
        trig.get("detail") == "iolat watch --dump" and
        t_delay <= trig.get("trigger_ns", 0) <= t_back + 200e6,
        f"the trigger: {trig}; asked between {t_delay} and {t_back}")
say(win.get("whole_from_ns") == win.get("start_ns") and
    win.get("end_ns", 0) - win.get("start_ns", 0) == 6e9 and
    win.get("window_full") == 0,
    f"the window: {win}")
text = subprocess.run([iolat, "report", dumps[0]], capture_output=True, text=True).stdout
print("report's text, its end:\n" + "\n".join(text.splitlines()[-14:]))
say(("trigger: slower than 50.000 ms (Q2C)" if delay else "trigger: asked: iolat watch --dump")
    in text and "window: 5.000 s before" in text,
    "report's text names them: " +
    " | ".join(l for l in text.splitlines() if l.startswith(("trigger", "window"))))

# the dump's records, against fio's log
rows = list(csv.DictReader(subprocess.run([iolat, "report", "-o", "csv", dumps[0]],
                                          capture_output=True, text=True).stdout.splitlines()))
mine = [r for r in rows if r["device"] == kname]
outside = [r for r in rows if not win["whole_from_ns"] <= int(r["c_ns"]) <= win["end_ns"]]
say(not outside and mine, f"{len(rows)} records, {len(mine)} of {kname}; "
    f"{len(outside)} outside the window")
log = []
for line in open(f"{out}/fio_lat.1.log"):
    f = [x.strip() for x in line.split(",")]
    log.append((int(f[0]), int(f[1]), int(f[4])))	# time ms, lat ns, offset
# a dump in the quiet phase: its trigger, if fio's, is an I/O fio's own
# log holds at its offset at 50 ms or more (fio's latency holds the
# kernel's); by offset, not by time: fio's clock starts when its job
# does, which a busy host delays by seconds.  Another task's slow I/O
# (udev's) is iolat's word alone, named here.
for t in quiet_trig:
    if t.get("comm") != "fio":
        print(f"the quiet phase's dump of another task's I/O: {t}")
        continue
    seen = [(ms, lat) for ms, lat, off in log
            if off == t.get("sector", -1) * 512 and lat >= 50e6]
    say(seen, f"the quiet phase's dump, trigger {t}: fio's I/Os of 50 ms or "
        f"more at its offset {seen[:5]}")
by_off = {}
for t, lat, off in log:
    by_off.setdefault(off, []).append((t, lat))
# fio's clock on the module's: the median of the matches' differences.
# Each record of fio's (or of no known task) must match its log by
# offset; the device's other I/O (udev's blkid reading dm-0 after
# dm-delay's table is reloaded) is not fio's to log
fios = [r for r in mine if r.get("comm", "") in ("fio", "", "-")]
others = len(mine) - len(fios)
unmatched = [r for r in fios if int(r["sector"]) * 512 not in by_off]
deltas = []
for r in fios:
    for t, lat in by_off.get(int(r["sector"]) * 512, []):
        deltas.append(int(r["c_ns"]) / 1e6 - t)
delta = statistics.median(deltas) if deltas else 0
slack = 20	# ms: fio logs whole milliseconds, and the clocks' offset
got = {}
for r in mine:
    got.setdefault(int(r["sector"]) * 512, []).append(int(r["c_ns"]) / 1e6 - delta)
# An I/O fio logs at t with latency lat completed in the kernel between
# its submission, t - lat, and its reaping, t: those whose whole span is
# in the window completed in it, and must be in the dump.
lo, hi = win["whole_from_ns"] / 1e6 - delta + slack, win["end_ns"] / 1e6 - delta - slack
want = [(t, lat, off) for t, lat, off in log if lo <= t - lat / 1e6 and t <= hi]
missing = [(t, lat, off) for t, lat, off in want
           if not any(t - lat / 1e6 - slack <= c <= t + slack for c in got.get(off, []))]
say(fios and not unmatched and want and not missing,
    f"fio completed {len(want)} I/Os in the window (its clock {delta:.1f} ms off the "
    f"module's): {len(want) - len(missing)} in the dump, missing {missing[:5]}; "
    f"{len(fios)} records of fio's, {len(unmatched)} not in its log "
    f"{[(r['sector'], r['c_ns']) for r in unmatched[:3]]}, {others} of other tasks")
# what the dump holds near each I/O missing from it, on fio's clock: the
# records of its offset on any device (each device's sector of it), and
# the records that completed within 5 ms of fio's reaping
for t, lat, off in missing[:3]:
    same = [(r["device"], round(int(r["c_ns"]) / 1e6 - delta, 3), int(r["Q2C_ns"]))
            for r in rows if int(r["sector"]) * 512 == off]
    near = [(r["device"], int(r["sector"]) * 512, round(int(r["c_ns"]) / 1e6 - delta, 3))
            for r in rows if abs(int(r["c_ns"]) / 1e6 - delta - t) <= 5]
    print(f"missing I/O at {t} ms, {lat} ns, offset {off}: records of its offset "
          f"{same}; records completed within 5 ms {near}; fio's log around it "
          f"{[e for e in log if abs(e[0] - t) <= 10]}")
if not delay:
    sys.exit(1 if bad else 0)
slow_fio = [(t, lat, off) for t, lat, off in want if lat >= 150e6]
slow = [r for r in mine if int(r["Q2C_ns"]) >= 150e6]
slow_off = {int(r["sector"]) * 512 for r in slow}
say(slow_fio and all(off in slow_off for _, _, off in slow_fio),
    f"fio's I/Os at >= 150 ms in the window: {len(slow_fio)}; the dump's at >= 150 ms "
    f"(Q2C): {len(slow)}, every one of fio's among them")

if not p99:
    print("no --p99-over phase (P99 0)")
    sys.exit(1 if bad else 0)
pd = sorted(glob.glob(f"{pdir}/*.rec"))
pj = json.loads(subprocess.run([iolat, "report", "-o", "json", pd[0]], capture_output=True,
                               text=True).stdout) if len(pd) == 1 else {}
pt = pj.get("trigger", {})
say(rc3 == 0 and len(pd) == 1 and pt.get("reason") == "percentile" and
    f"{kname}: p99 " in pt.get("detail", "") and
    pj.get("window", {}).get("window_full") == 0,
    f"--p99-over 50ms --window 4: {len(pd)} dump(s), trigger {pt}; "
    f"{open(f'{out}/p99.err').read().strip()}")
sys.exit(1 if bad else 0)
