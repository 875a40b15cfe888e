#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/build-module.sh NAME [SRC DIR]
#
# Build iolat.ko (and iolat_kunit.ko on KUnit kernels, kmemleak_probe.ko
# on kmemleak kernels) for the cached
# guest kernel NAME (tests/guest/kernels.sh) with W=1, from the same
# source set DKMS gets, in build/kmod/NAME.  Fails on any compiler warning.
# With SRC and DIR: from the module source in SRC (a package's
# /usr/src/iolat-VERSION), in DIR.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=${1:?usage: $0 NAME [SRC DIR]}
kdir=$("$ROOT/tests/guest/kernels.sh" dir "$name")/build
dir=${3:-$ROOT/build/kmod/$name}

if [ -n "${2:-}" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$2"/. "$dir"/
else
	"$ROOT/tests/module-src.sh" "$dir"
fi
# The newest kernel's headers are installed in a sid chroot, whose
# toolchain it needs (kernels.sh): make runs there.
kroot=$(dirname "$kdir")
if [ -f "$kroot/chroot" ]; then
	echo "build-module: $name: building in the sid chroot $(cat "$kroot/chroot")"
	kmake() {
		"$ROOT/tests/guest/kernels.sh" sid make \
			-C "/usr/src/linux-headers-$(cat "$kroot/kver")" "$@"
	}
else
	kmake() { make -C "$kdir" "$@"; }
fi
# Debian's headers name the compiler the kernel was built with
# (.kernelvariables: gcc-10 for 5.10); if this machine lacks it, build
# with its own gcc and say so.
cc=()
want=$(sed -n 's/^CC *=.*\(gcc-[0-9][0-9]*\)$/\1/p' "$kdir/.kernelvariables" 2>/dev/null || true)
if [ ! -f "$kroot/chroot" ] && [ -n "$want" ] && ! command -v "$want" >/dev/null; then
	echo "build-module: $name: $want is not installed here; building with $(gcc -dumpversion | sed 's/^/gcc-/')"
	cc=(CC=gcc)
fi
# Any error or warning fails, but for a warning located in the kernel's
# own headers that tests/kernel-header-warnings lists (RHEL 8's under
# gcc 12); those are counted and shown.  A warning located in one of
# iolat's files always fails.
check_log() {
	local log=$1 known
	if grep -E 'error:|warning:' "$log" |
		grep -vE -f <(grep -v '^#' "$ROOT/tests/kernel-header-warnings"); then
		echo "build-module: $name: compiler errors or warnings (above)"
		return 1
	fi
	known=$(grep -cE -f <(grep -v '^#' "$ROOT/tests/kernel-header-warnings") "$log")
	[ "$known" = 0 ] ||
		echo "build-module: $name: $known warning(s) from the kernel's own headers, known (tests/kernel-header-warnings); none from iolat"
}

# make's jobs: the module's thirty objects build side by side (half the
# time on two CPUs; make check builds it for eight kernels)
kmake M="$dir" W=1 "${cc[@]}" -j"$(nproc)" modules 2>&1 | tee "$dir/build.log"
[ "${PIPESTATUS[0]}" = 0 ] || { echo "build-module: $name: make failed"; exit 1; }
check_log "$dir/build.log" || exit 1
# A kernel with kmemleak gets the life suite's control, a module that
# leaks on purpose (tests/kmemleak-probe).
if grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$kdir/.config" 2>/dev/null; then
	mkdir -p "$dir/kmemleak-probe"
	cp "$ROOT"/tests/kmemleak-probe/{Kbuild,kmemleak_probe.c} "$dir/kmemleak-probe/"
	kmake M="$dir/kmemleak-probe" W=1 "${cc[@]}" modules 2>&1 |
		tee "$dir/kmemleak-probe/build.log"
	check_log "$dir/kmemleak-probe/build.log" || exit 1
fi
# The per-request probes zero nothing (tests/hotpath-check.sh); a KASAN
# kernel's memset() calls are its own instrumentation, not checked.
if grep -q '^CONFIG_KASAN=y' "$kdir/.config" 2>/dev/null; then
	echo "build-module: $name: KASAN kernel, hot path not checked for memset()"
else
	"$ROOT/tests/hotpath-check.sh" "$dir/iolat.ko"
fi
