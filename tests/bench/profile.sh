#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a tracing mode's instructions per I/O go, by guest symbol:
# the guest of tests/bench/cost.sh (Debian's 6.1, one vCPU,
# -icount shift=0,sleep=off) under tests/bench/tbprof.c, a QEMU plugin
# that counts the instructions of each translation block executed between
# two markers; fio's I/Os of each mode are counted between them, and
# tests/bench/cost.py profile subtracts none's from each mode's, symbol
# by symbol.  make bench runs it; the tables go into docs/bench.md
# between its profile markers.
#
#   tests/bench/profile.sh [MODES]   default: none,counters,aggregate,stream,file,blktrace
#   tests/bench/profile.sh --check   make check's: none, counters, aggregate
#                                    and stream, nothing spliced; fails
#                                    unless each of iolat's modes executed
#                                    2 locked instructions per I/O and the
#                                    counters and aggregate modes added at
#                                    most 2 clock reads, at every
#                                    configuration (cost.py profile --check)
#
# The plugin needs QEMU's qemu-plugin.h, which no Debian binary package
# ships: it is taken from the source package of the installed QEMU
# (apt-get source, with deb-src entries made from the machine's own apt
# sources), once, into the cache directory.

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
check=0
if [ "${1:-}" = --check ]; then
	check=1
	set -- none,counters,aggregate,stream
fi
modes=${1:-none,counters,aggregate,stream,file,blktrace}
cache=${IOLAT_CACHE:-/var/cache/iolat}/qemu-plugin
out=$ROOT/build/profile
rm -rf "$out"
mkdir -p "$out" "$cache"

# the module profiled: IOLAT_PROFILE_KO, to try a variant by hand
ko=$(realpath -m "${IOLAT_PROFILE_KO:-build/kmod/6.1/iolat.ko}")
for f in build/iolat "$ko"; do
	[ -f "$f" ] || { echo "profile: no $f (make cli; tests/build-module.sh 6.1)"; exit 1; }
done

if [ ! -s "$cache/qemu-plugin.h" ]; then
	ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86) ||
		{ echo "profile: qemu-system-x86 is not installed"; exit 1; }
	tmp=$(mktemp -d)
	mkdir -p "$tmp/lists/partial"
	# deb-src beside every deb entry the machine has
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed 's/^Types: deb$/Types: deb-src/' >"$tmp/src.sources"
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -n 's/^deb /deb-src /p' >"$tmp/src.list"
	apt=(apt-get -q -o Dir::Etc::SourceList="$tmp/src.list"
	     -o Dir::Etc::SourceParts="$tmp/parts" -o Dir::State::Lists="$tmp/lists")
	mkdir -p "$tmp/parts" && mv "$tmp/src.sources" "$tmp/parts/"
	if ! { "${apt[@]}" update >"$tmp/log" 2>&1 &&
	       (cd "$tmp" && "${apt[@]}" source --download-only "qemu=$ver" >>"$tmp/log" 2>&1) &&
	       tar -xOf "$tmp"/qemu_*.orig.tar.* --wildcards '*/include/qemu/qemu-plugin.h' \
		>"$cache/qemu-plugin.h"; }; then
		tail -5 "$tmp/log"
		rm -rf "$tmp" "$cache/qemu-plugin.h"
		echo "profile: could not get qemu-plugin.h from QEMU's source package"
		exit 1
	fi
	rm -rf "$tmp"
fi
gcc -O2 -Wall -shared -fPIC -I"$cache" -o "$out/tbprof.so" tests/bench/tbprof.c &&
	gcc -O2 -Wall -static -o "$out/marker" tests/bench/marker.c || exit 1

IOLAT_CLI=$ROOT/build/iolat IOLAT_KO=$ko \
IOLAT_MARKER=$out/marker \
IOLAT_QEMU_ARGS="-icount shift=0,sleep=off -plugin $out/tbprof.so,out=$out/prof" \
IOLAT_RIG_APPEND= \
	tests/guest/run --kernel 6.1 --smp 1 --stall 3600 --share "$out" -- \
	python3 tests/bench/cost.py run --profile --out "$out" --ios 30000 --modes "$modes"
st=$?
[ $st = 0 ] || { echo "profile: the guest ended with status $st"; exit $st; }
if [ $check = 1 ]; then
	python3 tests/bench/cost.py profile "$out" --ko "$ko" --md "$out/profile.md" --check |
		grep '^profile: '
	exit "${PIPESTATUS[0]}"
fi
python3 tests/bench/cost.py profile "$out" --ko "$ko" --md "$out/profile.md" || exit 1
python3 tests/bench/cost.py splice profile "$out/profile.md" docs/bench.md || exit 1
echo "profile: the tables are in docs/bench.md"
