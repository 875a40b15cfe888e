#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Across CPUs (issue 48): the instructions each tracing mode adds per I/O
# with a fio job on each of two vCPUs, against one job on one vCPU of the
# same guest, and iolat's locked instructions per I/O in both.  Debian's
# 6.1 with two vCPUs on one host thread (the rig's tcg,thread=single),
# without -icount, which hangs this guest's SMP bring-up: the counts come
# from tests/bench/tbprof.c (every block executed between two markers, on
# any vCPU), not from fio's time.  null_blk has a submission queue per
# vCPU.  Fails unless each mode's figure with two jobs is within
# cost.py's SMP_RATIO of its figure with one and its locked instructions
# per I/O do not grow (cost.py smp).  make bench runs it; the table goes
# into docs/bench.md between its smp markers.
#
#   tests/bench/smp.sh [MODES]   default: none,counters,aggregate,stream
#
# The figures are close, not exact: a block left by an interrupt counts
# whole, and the timer's ticks follow the host's speed (without -icount
# the guest's clock is the host's), so a busy host adds a few
# instructions per I/O to every mode alike, none included.  The guest's
# clock is the TSC (clocksource=tsc tsc=reliable, as make bench's
# wall-clock guest): without -icount the kernel's watchdog found it
# unstable against the emulated HPET and moved to that.

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
modes=${1:-none,counters,aggregate,stream}
cache=${IOLAT_CACHE:-/var/cache/iolat}/qemu-plugin
out=$ROOT/build/smp
rm -rf "$out"
mkdir -p "$out"
ko=$(realpath -m "${IOLAT_PROFILE_KO:-build/kmod/6.1/iolat.ko}")
for f in build/iolat "$ko"; do
	[ -f "$f" ] || { echo "smp: no $f (make cli; tests/build-module.sh 6.1)"; exit 1; }
done
# the plugin's header: profile.sh fetches it once into the cache
[ -s "$cache/qemu-plugin.h" ] ||
	{ echo "smp: no $cache/qemu-plugin.h: run tests/bench/profile.sh once"; exit 1; }
gcc -O2 -Wall -shared -fPIC -I"$cache" -o "$out/tbprof.so" tests/bench/tbprof.c &&
	gcc -O2 -Wall -static -o "$out/marker" tests/bench/marker.c || exit 1

IOLAT_CLI=$ROOT/build/iolat IOLAT_KO=$ko \
IOLAT_APPEND="clocksource=tsc tsc=reliable" \
IOLAT_MARKER=$out/marker \
IOLAT_QEMU_ARGS="-plugin $out/tbprof.so,out=$out/prof" \
IOLAT_RIG_APPEND= \
	tests/guest/run --kernel 6.1 --smp 2 --stall 3600 --share "$out" -- \
	python3 tests/bench/cost.py run --profile --vcpus 2 --out "$out" \
	--ios 50000 --modes "$modes"
st=$?
[ $st = 0 ] || { echo "smp: the guest ended with status $st"; exit $st; }
python3 tests/bench/cost.py smp "$out" --ko "$ko" --md "$out/smp.md"
st=$?
python3 tests/bench/cost.py splice smp "$out/smp.md" docs/bench.md || exit 1
exit $st
