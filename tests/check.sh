#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every test of iolat, in stages, each logged to
# build/check/STAGE.log.  Ends with a table and the line
# "N passed, N failed, N skipped"; exits non-zero if any stage failed, or,
# with CI=true, if any stage was skipped (a guest that could not run).
#
#   IOLAT_KERNELS="6.1 6.12 debug"   the guest kernels (default: all three)
#   IOLAT_CACHE=/var/cache/iolat     where kernels are cached

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
OUT=$ROOT/build/check
KERNELS=${IOLAT_KERNELS:-6.1 6.12 debug}
export IOLAT_CACHE=${IOLAT_CACHE:-/var/cache/iolat}

rm -rf "$OUT"
mkdir -p "$OUT"
pass=0
fail=0
skip=0
started=$SECONDS

result() {
	local name=$1 status=$2 detail=${3:-}

	printf '%-26s %-5s %s\n' "$name" "$status" "$detail" >>"$OUT/summary"
	case $status in
	PASS) pass=$((pass + 1)) ;;
	FAIL) fail=$((fail + 1)) ;;
	SKIP) skip=$((skip + 1))
		echo "check: ******** SKIPPED: $name $detail ********" ;;
	esac
	echo "check: $status $name $detail"
}

# stage NAME CMD...: PASS on status 0, SKIP on 125 (a guest that could not
# run), FAIL otherwise, with the end of the log shown.
stage() {
	local name=$1 t0=$SECONDS st
	shift
	echo "check: >> $name"
	"$@" >"$OUT/$name.log" 2>&1
	st=$?
	case $st in
	0) result "$name" PASS "$((SECONDS - t0))s" ;;
	125) result "$name" SKIP "(the guest could not run; see $OUT/$name.log)"
		tail -n 20 "$OUT/$name.log" ;;
	*) result "$name" FAIL "(status $st; see $OUT/$name.log)"
		tail -n 40 "$OUT/$name.log" ;;
	esac
	return $st
}

check_versions() {
	local v d
	v=$(cat VERSION)
	d=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
	echo "VERSION $v, dkms.conf $d"
	[ "$v" = "$d" ]
}

# Run each host unit test; they print TAP.
unit_tests() {
	local t st=0
	make -s unit-tests KSFT_DIR="$KSFT" EXTRA_CFLAGS=-Werror || return 1
	for t in build/tests/unit/*_test; do
		IOLAT_CLI=$ROOT/build/iolat "$t" || st=1
	done
	return $st
}

# No errors and no warnings.  The one exception: kmod/compat.h exists to
# hold the kernel-version checks (and a pre-6.0 typedef) that checkpatch,
# written for in-tree code, warns about.
checkpatch() {
	local f st=0 ignore
	for f in kmod/*.[ch] lib/*.[ch] include/uapi/linux/iolat.h; do
		ignore=
		[ "$f" = kmod/compat.h ] &&
			ignore=--ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON,NEW_TYPEDEFS
		"$KSRC/scripts/checkpatch.pl" --no-tree --show-types -q $ignore \
			-f "$f" || st=1
	done
	[ $st = 0 ] && echo "checkpatch: no errors or warnings"
	return $st
}

# `make` without kernel headers says what to install, and fails.
no_kdir_message() {
	local out
	out=$(make -s module KVER=0.0-none 2>&1) && return 1
	echo "$out"
	[[ $out == *"no kernel build directory"*"install linux-headers-0.0-none"* ]]
}

# DKMS for real: the Debian headers are unpacked in the cache, and
# /lib/modules/KVER/build points at them, as the headers package would.
dkms_install() {
	local name=$1 kdir kver
	kdir=$(tests/guest/kernels.sh dir "$name") || return 1
	kver=$(cat "$kdir/kver")
	mkdir -p "/lib/modules/$kver"
	ln -sfn "$(readlink -f "$kdir/build")" "/lib/modules/$kver/build"
	make -s dkms-install KVER="$kver" &&
		test -f "/lib/modules/$kver/updates/dkms/iolat.ko"
}

# A TAP log passed only if it ran tests and none failed.
tap_ok() {
	local totals
	totals=$(grep -E '^# Totals: pass:[0-9]+ fail:[0-9]+' "$1") || {
		echo "no TAP totals in $1"
		return 1
	}
	echo "$totals"
	[[ $totals =~ pass:([0-9]+)\ fail:0 ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]
}

guest_suite() {
	local name=$1 res=$OUT/guest-$name mem=2048 st
	mkdir -p "$res"
	local -a env=(IOLAT_RESULTS="$res" IOLAT_CLI="$ROOT/build/iolat"
		      IOLAT_TEST="$ROOT/build/tests/kselftest/iolat_test"
		      IOLAT_KO="$ROOT/build/kmod/$name/iolat.ko")
	if [ "$name" = debug ]; then
		mem=3072
		env+=(IOLAT_KUNIT_KO="$ROOT/build/kmod/$name/iolat_kunit.ko")
	else
		env+=(IOLAT_DKMS=1)
	fi
	env "${env[@]}" tests/guest/run --kernel "$name" --mem "$mem" \
		--share "$res" -- tests/guest/suite.sh
	st=$?
	[ $st = 125 ] && return 125
	tap_ok "$res/kselftest.tap" || st=1
	if [ "$name" = debug ]; then
		kunit_parse "$res/kunit.ktap" || st=1
	fi
	kernel_clean "$res/dmesg.log" || st=1
	return $st
}

# The guest's kernel log has no oops, warning, KASAN or lockdep report.
kernel_clean() {
	local bad
	[ -s "$1" ] || { echo "no kernel log in $1"; return 1; }
	bad=$(grep -E 'BUG:|WARNING:|KASAN|Oops|Call Trace|sleeping function called|circular locking|inconsistent lock state|lock held when returning' "$1")
	[ -z "$bad" ] && return 0
	echo "kernel reports in $1:"
	echo "$bad"
	return 1
}

# kunit.py parses the suite's KTAP.
kunit_parse() {
	local log=$1 out
	[ -s "$log" ] || { echo "no KUnit KTAP in $log"; return 1; }
	out=$(python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$log" 2>&1)
	local st=$?
	echo "$out"
	[ $st = 0 ] && [[ $out =~ Ran\ ([0-9]+)\ tests ]] &&
		[ "${BASH_REMATCH[1]}" -gt 0 ] &&
		[[ $out == *"failed: 0"* ]] && [[ $out == *"crashed: 0"* ]]
}

stage deps tests/deps.sh || true
stage versions check_versions
stage cli make -s cli EXTRA_CFLAGS=-Werror
KSRC=$(tests/guest/kernels.sh source 2>"$OUT/source.log") ||
	{ cat "$OUT/source.log"; KSRC=/nonexistent; }
KSFT=$KSRC/tools/testing/selftests
stage unit-tests unit_tests
stage checkpatch checkpatch
stage no-kdir no_kdir_message
stage guest-tests make -s guest-tests KSFT_DIR="$KSFT" EXTRA_CFLAGS=-Werror

for k in $KERNELS; do
	if ! stage "kernel-$k" tests/guest/kernels.sh prepare "$k"; then
		result "module-$k" SKIP "(kernel-$k failed)"
		result "guest-$k" SKIP "(kernel-$k failed)"
		continue
	fi
	if ! stage "module-$k" tests/build-module.sh "$k"; then
		result "guest-$k" SKIP "(module-$k failed)"
		continue
	fi
	if [ "$k" != debug ] && ! stage "dkms-$k" dkms_install "$k"; then
		result "guest-$k" SKIP "(dkms-$k failed)"
		continue
	fi
	stage "guest-$k" guest_suite "$k"
done

echo
echo "check: results ($((SECONDS - started))s; logs in $OUT)"
cat "$OUT/summary"
echo "$pass passed, $fail failed, $skip skipped"
if [ "${CI:-}" = true ] && [ $skip -gt 0 ]; then
	echo "check: CI=true and $skip stage(s) did not run: failing"
	exit 1
fi
[ $fail = 0 ]
