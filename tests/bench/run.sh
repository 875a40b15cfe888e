#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench` (not part of `make check`): iolat's overhead in one guest
# boot, against no tracing and blktrace (tests/bench/bench.py), and the
# CLI's ingest rate on this host (tests/bench/ingest.c), then the
# deterministic instructions per I/O of each mode (tests/bench/cost.sh)
# and where they go, by guest symbol (tests/bench/profile.sh), and the
# same with a fio job on each of two vCPUs (tests/bench/smp.sh).
# Writes docs/bench.md, docs/bench.json and docs/cost.json.
#
#   IOLAT_BENCH_ROUNDS=5 IOLAT_BENCH_RUNTIME=5   rounds, seconds per run
#
# The guest runs with a host thread per vCPU (-accel tcg,thread=multi),
# so that a tracer's consumer runs beside fio as on hardware rather than
# out of the same host thread.
#
# The guest boots with the TSC as its clock (clocksource=tsc
# tsc=reliable): under TCG its default, the HPET, is an emulated device
# whose every read costs microseconds, which would weigh every clock read
# far beyond what it costs on hardware.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
say() { echo "bench: $*" >&2; }
rounds=${IOLAT_BENCH_ROUNDS:-5}
runtime=${IOLAT_BENCH_RUNTIME:-5}
out=$ROOT/build/bench

say "installing packages (apt-get)"
tests/deps.sh --bench
make -s cli build/tests/bench/ingest
tests/guest/kernels.sh prepare 6.1 >/dev/null
tests/build-module.sh 6.1 >/dev/null
rm -rf "$out"
mkdir -p "$out"

# The one wall-clock floor: the CLI takes in 20 million records a second
# on one core of an idle host.  A slower rate fails the
# benchmark, after its guest half has run.
say "CLI ingest on this host (3 passes of 20 million records)"
ingest_st=0
build/tests/bench/ingest --records 20000000 --runs 3 --min 20000000 \
	2>"$out/ingest.json" || ingest_st=$?
cat "$out/ingest.json" >&2

say "$rounds rounds x 4 configurations x 5 modes x $runtime s in the guest"
IOLAT_CLI=$ROOT/build/iolat IOLAT_KO=$ROOT/build/kmod/6.1/iolat.ko \
IOLAT_APPEND="clocksource=tsc tsc=reliable" IOLAT_ACCEL=tcg,thread=multi \
IOLAT_RIG_APPEND= \
	tests/guest/run --kernel 6.1 --stall 7200 --share "$out" -- \
	python3 tests/bench/bench.py run --out "$out" --rounds "$rounds" \
	--runtime "$runtime"
python3 tests/bench/bench.py report "$out" --ingest "$out/ingest.json" \
	--md docs/bench.md --json docs/bench.json
say "wrote docs/bench.md and docs/bench.json"
# the deterministic measure: instructions per I/O, into
# docs/bench.md beside the wall-clock figures
say "instructions per I/O, one vCPU under -icount (tests/bench/cost.sh)"
tests/bench/cost.sh || exit 1
say "the instructions by guest symbol (tests/bench/profile.sh)"
tests/bench/profile.sh || exit 1
say "across CPUs: a fio job on each of two vCPUs (tests/bench/smp.sh)"
tests/bench/smp.sh || exit 1
if [ "$ingest_st" != 0 ]; then
	say "FAIL: the CLI took in fewer than 20 million records a second (above)"
	exit 1
fi
