#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest instructions per I/O of each tracing mode (tests/bench/cost.py):
# Debian's 6.1 with one vCPU under -icount shift=0,sleep=off,
# where the guest's clock counts instructions, so the figures do not
# depend on how fast or how busy the host is.
#
#   tests/bench/cost.sh           make bench's: 100 000 I/Os, 3 repeats,
#                                 every mode and the peers (blktrace,
#                                 bcc's and bpftrace's biolatency: make
#                                 bench installs them); the table into
#                                 docs/bench.md
#                                 (between its cost markers) and
#                                 docs/cost.json
#   tests/bench/cost.sh --check   make check's: 100 000 I/Os once (fio's
#                                 millisecond is 10 instructions per I/O)
#                                 after 10 000 to warm up, the
#                                 modes with a budget (tests/bench/budgets),
#                                 and the negative control, a module built
#                                 with IOLAT_COST_CONTROL, which must go
#                                 over the counters budget, and blktrace,
#                                 which the stream is held against
#                                 (cost.py's PEER_RATIO), and the
#                                 counters and the stream with the
#                                 module without its optional features'
#                                 tests (ablate.py's no-features), which
#                                 each must cost as much, within the
#                                 resolution
#
# Expects build/iolat and build/kmod/6.1/iolat.ko (make check's stages,
# or make bench's run.sh, build them).

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
check=0
[ "${1:-}" = --check ] && check=1
out=$ROOT/build/cost
rm -rf "$out"
mkdir -p "$out"

for f in build/iolat build/kmod/6.1/iolat.ko; do
	[ -f "$f" ] || { echo "cost: no $f (make cli; tests/build-module.sh 6.1)"; exit 1; }
done
args=(--out "$out")
# the BPF peers compile with LLVM in the guest: more memory than the rig's
# default, which make check's modes keep
mem=3072
if [ $check = 1 ]; then
	mem=2048
	# the control: the same source, one define
	kdir=$(tests/guest/kernels.sh dir 6.1)/build || exit 1
	ctl=$ROOT/build/kmod/6.1-cost-control
	tests/module-src.sh "$ctl" || exit 1
	make -s -C "$kdir" M="$ctl" KCFLAGS=-DIOLAT_COST_CONTROL modules \
		>"$ctl/build.log" 2>&1 ||
		{ cat "$ctl/build.log"; echo "cost: the control module did not build"; exit 1; }
	# a feature costs nothing when off: the counters and the stream
	# again with the module whose optional features' tests are taken
	# out (ablate.py's no-features), within the resolution of theirs
	nf=$ROOT/build/kmod/6.1-cost-no-features
	tests/module-src.sh "$nf" &&
		python3 tests/bench/ablate.py edit no-features "$nf" || exit 1
	make -s -C "$kdir" M="$nf" modules >"$nf/build.log" 2>&1 ||
		{ cat "$nf/build.log"; echo "cost: the no-features module did not build"; exit 1; }
	args+=(--ios 100000 --warmup-ios 10000 --repeats 1 --modes none,counters,aggregate,counters-256,aggregate-256,aggregate-8s,export,stream,stream-cgroups,stream-cgfilter,file,file-cgroups,counters-cgroups,export-cgroups,watch,blktrace
	       --control-ko "$ctl/iolat.ko"
	       --variant "no-features=$nf/iolat.ko" --variant-modes counters,stream)
fi
# make bench's peers run from this machine's root in the guest: missing,
# they would fail there a guest boot later and less clearly
if [ $check = 0 ]; then
	for p in blktrace bpftrace /usr/sbin/biolatency-bpfcc; do
		command -v "$p" >/dev/null ||
			{ echo "cost: no $p: tests/deps.sh --bench installs the peers"; exit 1; }
	done
fi
# the BPF peers compile against the guest kernel's headers
IOLAT_KHEADERS=$(tests/guest/kernels.sh dir 6.1)/headers/usr/src || exit 1
export IOLAT_KHEADERS
IOLAT_CLI=$ROOT/build/iolat IOLAT_KO=$ROOT/build/kmod/6.1/iolat.ko \
IOLAT_QEMU_ARGS="-icount shift=0,sleep=off" \
IOLAT_RIG_APPEND= \
	tests/guest/run --kernel 6.1 --smp 1 --mem "$mem" --stall 3600 \
	--share "$out" -- \
	python3 tests/bench/cost.py run "${args[@]}"
st=$?
[ $st = 0 ] || { echo "cost: the guest ended with status $st"; exit $st; }
if [ $check = 1 ]; then
	python3 tests/bench/cost.py report "$out" --budgets tests/bench/budgets
	exit
fi
python3 tests/bench/cost.py report "$out" --md "$out/cost.md" \
	--json docs/cost.json || exit 1
# docs/bench.md: the table between its markers, or appended with them
python3 tests/bench/cost.py splice cost "$out/cost.md" docs/bench.md || exit 1
echo "cost: the table is in docs/bench.md, the figures in docs/cost.json"
