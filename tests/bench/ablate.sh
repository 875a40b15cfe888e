#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/bench/ablate.sh
#   tests/bench/ablate.sh --apply   make check's: only apply each variant's
#                                   edits to a copy of the source, so that
#                                   a change to the probes that leaves a
#                                   variant stale fails at once
#
# Where iolat's instructions per I/O go: the counters and
# aggregate modes of cost.sh's measure (Debian's 6.1, one vCPU under
# -icount shift=0,sleep=off, null_blk irqmode=0, fio 4k random reads at
# QD 1 and QD 32), with the module as it is and with each variant of
# tests/bench/ablate.py, which takes one part of the per-request work out.
# The difference from the module as it is, is what that part costs.  The
# table goes into docs/bench.md between its ablate markers.  Not part of
# make check or make bench (it builds a module per variant); run it after
# a change to the probes.  Expects build/iolat.

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
apply=0
[ "${1:-}" = --apply ] && apply=1
out=$ROOT/build/ablate
if [ $apply = 0 ]; then
	rm -rf "$out"
	mkdir -p "$out"
	[ -f build/iolat ] || { echo "ablate: no build/iolat (make cli)"; exit 1; }
	kdir=$(tests/guest/kernels.sh dir 6.1)/build || exit 1
fi
args=(--out "$out" --ios 30000 --repeats 1 --modes none,counters,aggregate)
for v in as-is $(python3 tests/bench/ablate.py names); do
	dir=$ROOT/build/kmod/6.1-ablate-$v
	tests/module-src.sh "$dir" || exit 1
	if [ "$v" != as-is ]; then
		python3 tests/bench/ablate.py edit "$v" "$dir" || exit 1
		args+=(--variant "$v=$dir/iolat.ko")
	fi
	if [ $apply = 1 ]; then
		echo "ablate: variant $v applies"
		continue
	fi
	make -s -C "$kdir" M="$dir" modules >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log"; echo "ablate: variant $v did not build"; exit 1; }
done
[ $apply = 1 ] && exit 0
IOLAT_CLI=$ROOT/build/iolat IOLAT_KO=$ROOT/build/kmod/6.1-ablate-as-is/iolat.ko \
IOLAT_QEMU_ARGS="-icount shift=0,sleep=off" \
IOLAT_RIG_APPEND= \
	tests/guest/run --kernel 6.1 --smp 1 --stall 3600 --share "$out" -- \
	python3 tests/bench/cost.py run "${args[@]}"
st=$?
[ $st = 0 ] || { echo "ablate: the guest ended with status $st"; exit $st; }
python3 tests/bench/cost.py report "$out" >"$out/ablate.md" || exit 1
cat "$out/ablate.md"
python3 tests/bench/cost.py splice --require ablate "$out/ablate.md" docs/bench.md || exit 1
