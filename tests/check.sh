#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every test of iolat, in stages, each logged to
# build/check/STAGE.log.  Ends with a table and the line
# "N passed, N failed, N skipped"; exits non-zero if any stage failed, or,
# with CI=true, if any stage was skipped (a guest that could not run).
#
#   IOLAT_KERNELS="rhel8 4.19 5.4 5.10 6.1 6.12 newest debug"
#                                    the guest kernels (default: all of
#                                    tests/kernels/table, which holds
#                                    each one's settings)
#   IOLAT_BUILD_KERNELS=""           kernels the module is only built
#                                    (W=1) and DKMS-installed for
#   IOLAT_CACHE=/var/cache/iolat     where kernels are cached

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
OUT=$ROOT/build/check
# shellcheck source=tests/kernels/table.sh
. tests/kernels/table.sh
KERNELS=${IOLAT_KERNELS:-$(kernel_names | paste -sd' ')}
BUILD_KERNELS=${IOLAT_BUILD_KERNELS-}
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

# report NAME STATUS SECS: PASS on status 0, SKIP on 125 (a guest that
# could not run), FAIL otherwise, with the end of the log shown.  A
# stage may leave a one-line reason in $OUT/NAME.why (the tests that
# failed), which the table shows: CI keeps only the table.
report() {
	local name=$1 st=$2 secs=$3 why=

	[ -s "$OUT/$name.why" ] && why="$(head -c 300 "$OUT/$name.why"); "

	case $st in
	0) result "$name" PASS "${secs%%[!0-9]*}s${secs#"${secs%%[!0-9]*}"}" ;;
	125) result "$name" SKIP "(could not run; see $OUT/$name.log)"
		tail -n 20 "$OUT/$name.log" ;;
	*) result "$name" FAIL "(${why}status $st; see $OUT/$name.log)"
		tail -n 40 "$OUT/$name.log" ;;
	esac
	[ "$st" = 0 ] || digest "$name" "$st"
	return "$st"
}

# digest NAME STATUS: a few lines on a stage that did not pass, printed
# again after the counts, at the very end: CI keeps only the end of the
# output.  The stage's .detail if it left one (the failed assertions, a
# guest's last console lines), else the end of its log.
digest() {
	{
		echo "== $1 (status $2)"
		if [ -s "$OUT/$1.detail" ]; then
			head -n 7 "$OUT/$1.detail"
		else
			grep -v '^[[:space:]]*$' "$OUT/$1.log" | tail -n 3
		fi | cut -c1-300
	} >>"$OUT/digest"
}

# stage NAME CMD...: run CMD, logged to $OUT/NAME.log, and report it.
stage() {
	local name=$1 t0=$SECONDS st
	shift
	echo "check: >> $name"
	"$@" >"$OUT/$name.log" 2>&1
	st=$?
	report "$name" "$st" "$((SECONDS - t0))"
}

# The guest suites in the background, each leaving "STATUS SECS" in
# $OUT/guest-K.status (and its lane's CPU seconds in guest-K.cpu) for the
# report at the end.  A suite's guest runs on one host thread (TCG) and
# keeps it about 80% busy (5.10's alone: 82%; the rest is the guest
# waiting on its timers and fio's rates), so with two or more CPUs the
# guests run in three lanes, each in the lane tests/kernels/table gives
# it, and the host's two CPUs stay busy: in two lanes a whole run kept
# them about 65% busy.  Lane 1 starts with the installed packages (a
# DKMS build in the guest, on both vCPUs) and has the locks stage; lane
# 2 has 6.1 (every test: the longest suite, 3200 s of a run in three
# lanes), the demo, the cost stage and cpus8-6.1; lane 3 ends with the
# debug kernel, on a cold cache still building (debug_prep) while the
# others run.  With one CPU, one lane.
run_guests() {
	local k lane lanes=3 l1=() l2=() l3=()
	[ "$(nproc)" -lt 2 ] && lanes=1
	for k in "$@"; do
		case $k in
		installed-*|locks) lane=1 ;;
		demo|cost|cpus8-6.1) lane=2 ;;
		cpus8-*) lane=3 ;;
		*) lane=$(kernel_field "$k" lane) ;;
		esac
		[ "$lanes" = 1 ] && lane=1
		case $k,$lane in
		installed-*) l1=("$k" "${l1[@]}") ;;
		*,1) l1+=("$k") ;;
		*,2) l2+=("$k") ;;
		*) l3+=("$k") ;;
		esac
	done
	echo "check: >> guest suites: ${l1[*]}${l2:+ | ${l2[*]}}${l3:+ | ${l3[*]}}"
	guest_lane "${l1[@]}" &
	guest_lane "${l2[@]}" &
	guest_lane "${l3[@]}" &
	wait
}

guest_lane() {
	local k t0 c0 st
	for k in "$@"; do
		if [ "$k" = debug ] && ! debug_wait; then
			echo "check: the debug kernel or its module did not build: see $OUT/kernel-debug.log and $OUT/module-debug.log" |
				tee "$OUT/guest-$k.log" >"$OUT/guest-$k.detail"
			echo "125 0" >"$OUT/guest-$k.status"
			continue
		fi
		t0=$SECONDS
		lane_cpu
		c0=$LANE_CPU
		case $k in
		demo) demo_check ;;
		cost) tests/bench/cost.sh --check ;;
		locks) tests/bench/profile.sh --check ;;
		cpus8-*) cpus8_check "${k#cpus8-}" ;;
		installed-*) tests/pkg/installed.sh "${k#installed-}" ;;
		*) guest_suite "$k" ;;
		esac >"$OUT/guest-$k.log" 2>&1
		st=$?
		if [ "$k" = demo ] && [ "$st" != 0 ]; then
			echo "failed: README's sample" >"$OUT/guest-$k.why"
			grep -E '^(samples|run): |^[-+][^-+]' "$OUT/guest-$k.log" |
				head -n 6 >"$OUT/guest-$k.detail"
		elif [ "$k" = cost ] && [ "$st" != 0 ]; then
			echo "failed: instruction budgets" >"$OUT/guest-$k.why"
			grep -E '^(cost|run): ' "$OUT/guest-$k.log" | grep -E 'FAIL|run:|status|no ' |
				head -n 6 >"$OUT/guest-$k.detail"
		elif [ "$k" = locks ] && [ "$st" != 0 ]; then
			echo "failed: locked instructions or clock reads per I/O" >"$OUT/guest-$k.why"
			grep -E '^profile: ' "$OUT/guest-$k.log" | grep -vE '^profile: ok ' |
				head -n 6 >"$OUT/guest-$k.detail"
		elif [[ $k == installed-* ]] && [ "$st" != 0 ]; then
			echo "failed: the packages as installed" >"$OUT/guest-$k.why"
			grep -E '^PKGTEST FAIL|^installed: ' "$OUT/guest-$k.log" |
				head -n 6 >"$OUT/guest-$k.detail"
		elif [[ $k == cpus8-* ]] && [ "$st" != 0 ]; then
			echo "failed: memory per online CPU" >"$OUT/guest-$k.why"
			grep -E '^# .*(Expected|FAIL|SKIP)|^run: ' "$OUT/guest-$k.log" |
				head -n 6 >"$OUT/guest-$k.detail"
		elif [ "$st" != 0 ]; then
			guest_why "$k" >"$OUT/guest-$k.why"
			guest_detail "$k" "$st" >"$OUT/guest-$k.detail"
		fi
		lane_cpu
		echo "$((LANE_CPU - c0))" >"$OUT/guest-$k.cpu"
		echo "$st $((SECONDS - t0))" >"$OUT/guest-$k.status"
	done
}

# lane_cpu: sets LANE_CPU to the CPU seconds (user and system) this
# lane's finished children have used: bash's `times`, its second line,
# run in the lane's own shell (in a pipeline or $(...) it would count a
# subshell's children)
lane_cpu() {
	local f=$OUT/lane.$BASHPID.times
	times >"$f"
	LANE_CPU=$(sed -n 2p "$f" | tr 'ms' '  ' |
		awk '{ printf "%d", $1 * 60 + $2 + $3 * 60 + $4 }')
}

# (The cost stage, tests/bench/cost.sh --check: the instructions each
# tracing mode adds per I/O, counted in a 6.1 guest under QEMU's icount,
# against tests/bench/budgets, and a module built to loop in its
# completion probe that must go over them.  About eight minutes, in lane 1.
# The locks stage, tests/bench/profile.sh --check: the same guest under
# its instruction-counting plugin, the locked instructions iolat's module
# executes per I/O and the clock reads it adds, counted in the blocks
# that ran.  About two minutes, in lane 1, with QEMU's source package
# fetched once for the plugin's header.)
#
# README's sample output against today's (tests/docs/samples.py): the
# guest half of `make demo` on 6.1, as `make demo` runs it, its output
# compared with README.  (About a minute: in lane 2 before the debug
# guest, which waits for its kernel to build anyway.)
demo_check() {
	local st
	tests/guest/run --kernel 6.1 -- tests/guest/demo.sh >"$OUT/demo.txt"
	st=$?
	[ $st = 0 ] || { echo "check: the demo ended with status $st"; return $st; }
	python3 tests/docs/samples.py check README.md "$OUT/demo.txt"
}

# The cpus8-KERNEL stages, on 6.1 and the newest: KERNEL with 8 CPUs
# online of 240 possible and a second NVMe drive (66 disks with the
# test's null_blk), and one test, what each online CPU adds to an export
# session over every disk, and every session's memory with two online
# (scale.cpus_online_growth, which the 2-CPU guests skip); on 6.1 a
# second, a vCPU hot-added during a session (scale.cpu_hot_add).  A skip
# fails it: it is there to run those tests.  (rhel8's kernel cannot take a CPU
# offline, which the test needs.  The newest lists only the 8 as
# possible: it does not count the CPUs QEMU declares for hot-add, as 6.1
# does.)
cpus8_check() {
	local k=$1 res=$OUT/cpus8-$1 only=scale:scale.cpus_online_growth
	# a vCPU hot-added during a session: 6.1 counts QEMU's hot-add slots
	# as possible CPUs, the newest does not (and rhel8 has no CPU hotplug)
	[ "$k" = 6.1 ] && only+=" scale:scale.cpu_hot_add"
	mkdir -p "$res"
	IOLAT_RESULTS="$res" IOLAT_CLI="$ROOT/build/iolat" \
	IOLAT_TESTS="$ROOT/build/tests/kselftest/scale_test" \
	IOLAT_ONLY="$only" \
	IOLAT_KO="$ROOT/build/kmod/$k/iolat.ko" \
		tests/guest/run --kernel "$k" --smp 8 --maxcpus 240 --nvme 2 \
		--mem "$(kernel_field "$k" mem)" --share "$res" -- tests/guest/suite.sh ||
		return
	! grep -q '^ok .*# SKIP' "$res/scale.tap" ||
		{ echo "check: cpus8-$k: a test was skipped: $(grep '^ok .*# SKIP' "$res/scale.tap")"; return 1; }
}

# guest_why KERNEL: one line saying what failed in a guest suite: the
# TAP tests that failed, a missing TAP file, a kernel report, KUnit.
guest_why() {
	local res=$OUT/$1 t why=()
	for t in $(guest_tests "$1"); do
		if [ -s "$res/$t.tap" ]; then
			mapfile -t -O ${#why[@]} why < <(grep -E '^not ok [0-9]+ ' \
				"$res/$t.tap" | grep -v '# SKIP' | cut -d' ' -f4)
		else
			why+=("no-$t.tap")
		fi
	done
	grep -qF -f tests/kernel-reports "$res/kernel.log" 2>/dev/null &&
		why+=("kernel-report:$(grep -m1 -oF -f tests/kernel-reports "$res/kernel.log")")
	[ "$(kernel_field "$1" kunit)" = yes ] &&
		! grep -q 'passed: [0-9]*$' "$OUT/guest-$1.log" &&
		why+=(kunit)
	echo "failed: ${why[*]:-see log}"
}

# guest_detail KERNEL STATUS: what the digest shows of a guest suite
# that did not pass: the rig's own lines and the last console lines of a
# guest that could not run; else the first failed assertions of each
# failed test, each with the line its test logged after it (TH_LOG), a
# script's first MISMATCH line, the kernel reports and KUnit's failures.
guest_detail() {
	local log=$OUT/guest-$1.log res=$OUT/$1
	if [ "$2" = 125 ]; then
		grep -E '^run: |^check: ' "$log" | head -n 3
		grep -v '^[[:space:]]*$' "$log" | tail -n 3
		return
	fi
	cat "$res"/*.tap 2>/dev/null |
		grep -E -A1 '^# [a-z_/]+\.c:[0-9]+:[a-z_0-9]+:(Expected|.*[Ff]ail)' |
		grep -v '^--$' | head -n 4
	# a script's own verdicts (watch_vs_fio.py and the like): the first
	grep -h -m1 '^MISMATCH: ' "$res"/*.tap 2>/dev/null
	grep -h -m2 -F -f tests/kernel-reports "$res/kernel.log" 2>/dev/null
	grep -E '\[FAILED\]|# .*: (FAIL|ASSERTION)' "$log" | head -n 2
}

# The debug kernel takes about 18 minutes to build on a cold cache: it
# builds in the background from the start (debug_prep), beside the other
# stages and the first guests, and its stages are reported at the end.
# Each leaves "STATUS SECS" in $OUT/STAGE.status.
DEBUG_STAGES="kernel-debug module-debug layout-control"
debug_prep() {
	local t0 st name
	for name in $DEBUG_STAGES; do
		t0=$SECONDS
		case $name in
		kernel-debug) tests/guest/kernels.sh prepare debug ;;
		module-debug) tests/build-module.sh debug ;;
		layout-control) tests/layout-control.sh debug ;;
		esac >"$OUT/$name.log" 2>&1
		st=$?
		echo "$st $((SECONDS - t0))" >"$OUT/$name.status.tmp"
		mv "$OUT/$name.status.tmp" "$OUT/$name.status"
		# the layout control's failure does not keep the guest from running
		[ "$st" = 0 ] || [ "$name" = layout-control ] || break
	done
	: >"$OUT/debug-prep.done"
}

# debug_wait: wait for debug_prep; 0 if the kernel and module are ready.
debug_wait() {
	local st
	while [ ! -e "$OUT/debug-prep.done" ]; do
		sleep 5
	done
	read -r st _ <"$OUT/module-debug.status" 2>/dev/null && [ "$st" = 0 ]
}

# The debug stages' results, in the main shell, once debug_prep is done.
debug_report() {
	local name st secs
	for name in $DEBUG_STAGES; do
		if read -r st secs <"$OUT/$name.status" 2>/dev/null; then
			report "$name" "$st" "$secs"
		else
			result "$name" SKIP "(an earlier debug stage failed)"
		fi
	done
}

check_versions() {
	local v d
	v=$(cat VERSION)
	d=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
	echo "VERSION $v, dkms.conf $d"
	[ "$v" = "$d" ]
}

# Run each host unit test; they print TAP, checked as the guest's are.
unit_tests() {
	local t tap st=0
	make -s unit-tests KSFT_DIR="$KSFT" EXTRA_CFLAGS=-Werror || return 1
	for t in build/tests/unit/*_test; do
		tap=$OUT/unit-$(basename "$t").tap
		IOLAT_CLI=$ROOT/build/iolat "$t" >"$tap" 2>&1 || st=1
		cat "$tap"
		tap_ok "$tap" || st=1
	done
	return $st
}

# No errors and no warnings.  The one exception: kmod/compat.h exists to
# hold the kernel-version checks (and a pre-6.0 typedef) that checkpatch,
# written for in-tree code, warns about.
checkpatch() {
	local f st=0 ignore
	for f in kmod/*.[ch] kmod/tests/*.[ch] kmod/features/*.c lib/*.[ch] include/uapi/linux/iolat.h; do
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
# One `dkms add` and an install per kernel, since replacing the source
# removes it from every kernel.  The newest kernel's headers are
# installed in the sid chroot, whose dkms and toolchain install there.
dkms_install() {
	local name kdir kver kvers=() ko
	for name in "$@"; do
		kdir=$(tests/guest/kernels.sh dir "$name") || return 1
		kver=$(cat "$kdir/kver")
		if [ -f "$kdir/chroot" ]; then
			tests/guest/kernels.sh sid sh -c \
				'cd "$1" && make -s dkms-install KVER="$2" BUILD=build/sid' \
				sh "$ROOT" "$kver" || return 1
			for ko in "$(cat "$kdir/chroot")/lib/modules/$kver/updates/dkms/iolat.ko"*; do
				[ -f "$ko" ] || { echo "no DKMS module for $kver in the sid chroot"; return 1; }
				echo "DKMS (sid chroot): ${ko#"$(cat "$kdir/chroot")"}"
			done
			continue
		fi
		mkdir -p "/lib/modules/$kver"
		ln -sfn "$(readlink -f "$kdir/build")" "/lib/modules/$kver/build"
		kvers+=("$kver")
	done
	make -s dkms-install KVER="${kvers[*]}" || return 1
	for kver in "${kvers[@]}"; do
		test -f "/lib/modules/$kver/updates/dkms/iolat.ko" ||
			{ echo "no DKMS module for $kver"; return 1; }
		echo "DKMS: /lib/modules/$kver/updates/dkms/iolat.ko"
	done
}

# A TAP log passed only if it ran tests and none failed.  A skipped test
# (a tool or a device missing) is said loudly, with its reason, and
# fails the run with CI=true, as a guest that could not run does.
tap_ok() {
	local totals skipped
	totals=$(grep -E '^# Totals: pass:[0-9]+ fail:[0-9]+' "$1") || {
		echo "no TAP totals in $1"
		return 1
	}
	echo "$totals"
	[[ $totals =~ pass:([0-9]+)\ fail:0 ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] ||
		return 1
	[[ $totals =~ skip:([0-9]+) ]] && skipped=${BASH_REMATCH[1]} || skipped=0
	[ "$skipped" = 0 ] && return 0
	echo "check: ******** $skipped test(s) SKIPPED in $1: ********"
	grep -E '^ok [0-9]+ .*# SKIP' "$1"
	[ "${CI:-}" != true ]
}

# The kselftest programs a kernel's guest runs, as its "tests" column
# says: every suite (all: but the tests of tests/kernels/once.tests, of
# the CLI alone), every suite and test with the smoke version of `make
# bench` (all+bench), or those of the tests a file names (tests_only).
# life goes last: it removes the NVMe controller and rescans it.  (The stacks' suites ran after
# it once: on 5.4 the rescanned controller's legacy interrupt, shared
# with virtio, was disabled as unhandled, "irq 10: nobody cared", and
# every NVMe test after it timed out.)
ALL_SUITES="records filter output acct nvme analysis bench fuzz part upper scale life"
guest_tests() {
	local t tests only
	tests=$(kernel_field "$1" tests) || return 1
	[ "$tests" = all ] || [ "$tests" = all+bench ] ||
		only=" $(tests_only "$1") "
	for t in $ALL_SUITES; do
		case $tests in
		all) [ "$t" = bench ] && continue ;;
		all+bench) ;;
		*) [[ $only == *" $t:"* ]] || continue ;;
		esac
		echo "$t"
	done
}

# tests_only KERNEL: the tests of the file in KERNEL's "tests" column, as
# SUITE:FIXTURE.TEST words (suite.sh gives each program its own, as
# IOLAT_ONLY); the file has a line per test, "SUITE FIXTURE.TEST  # why".
tests_only() {
	tests_words "$(kernel_field "$1" tests)"
}

# list_lines FILE: the lines of tests/kernels/FILE without comments, a
# line "include OTHER" replaced by OTHER's.
list_lines() {
	local a b
	sed 's/#.*//' "tests/kernels/$1" | while read -r a b; do
		if [ "$a" = include ]; then
			list_lines "$b"
		elif [ -n "$a" ]; then
			echo "$a $b"
		fi
	done
}

# tests_words FILE: the tests tests/kernels/FILE names, as tests_only,
# but those a line "except FIXTURE.TEST" takes out (of a file included).
tests_words() {
	list_lines "$1" | awk '
		NF == 2 && $1 == "except" { out[$2] = 1; next }
		NF == 2 && $1 != "env" { n++; suite[n] = $1; test[n] = $2 }
		END {
			for (i = 1; i <= n; i++)
				if (!(test[i] in out)) {
					printf "%s%s:%s", sep, suite[i], test[i]
					sep = " "
				}
		}'
}

# tests_env KERNEL: the file's "env NAME=VALUE" lines, NAME=VALUE each;
# of a NAME set twice (in a file and one it includes), the later value.
tests_env() {
	list_lines "$(kernel_field "$1" tests)" |
		awk '$1 == "env" && $2 ~ /^IOLAT_[A-Z0-9_]+=[0-9]+$/ {
			name = substr($2, 1, index($2, "=") - 1)
			if (!(name in val)) order[++n] = name
			val[name] = $2
		} END { for (i = 1; i <= n; i++) print val[order[i]] }'
}

# Every test a kernel's list names (its "tests" column a file) is a test
# of that suite's source: a stale list fails here, at once, and not in
# the guest at the end of the run.
guest_lists() {
	local f w suite test bad st=0
	for f in once.tests $(for k in $(kernel_names); do
		kernel_field "$k" tests; done | grep -vx 'all\|all+bench' | sort -u); do
		bad=0
		for w in $(tests_words "$f"); do
			suite=${w%%:*} test=${w#*:}
			grep -qE "^TEST_F(_TIMEOUT)?\(${test%%.*}, ${test#*.}[,)]" \
				"tests/kselftest/${suite}_test.c" ||
				{ echo "$f: $w is no test of tests/kselftest/${suite}_test.c"; bad=1; }
		done
		# an "except" names a test the file would run otherwise
		for test in $(list_lines "$f" | awk '$1 == "except" { print $2 }'); do
			list_lines "$f" | awk -v t="$test" '$1 != "except" && $2 == t { f = 1 } END { exit !f }' ||
				{ echo "$f: except $test: no such test in the file or those it includes"; bad=1; }
		done
		[ $bad = 0 ] && echo "$f: $(tests_words "$f" | wc -w) tests listed, all found"
		[ $bad = 0 ] || st=1
	done
	return $st
}

# guest_suite KERNEL: the guest half in the guest; its files in
# $OUT/KERNEL (TAP, KTAP, kernel log).  Debian's 6.1 and 6.12 and the
# old-kernel fixtures load the DKMS-built module; 5.10 (whose gcc-10
# DKMS would want), the newest (whose DKMS module is in the sid chroot)
# and the debug kernel load the one built by module-KERNEL.
guest_suite() {
	local name=$1 res mem st t tests=() append maxcpus
	res=$OUT/$name
	mkdir -p "$res"
	rm -f "$res/kernel.boot1.log" "$res/kernel.irq1.log"
	for t in $(guest_tests "$name"); do
		tests+=("$ROOT/build/tests/kselftest/${t}_test")
	done
	local -a env=(IOLAT_RESULTS="$res" IOLAT_CLI="$ROOT/build/iolat"
		      IOLAT_TESTS="${tests[*]}"
		      IOLAT_KO="$ROOT/build/kmod/$name/iolat.ko")
	# its settings: tests/kernels/table
	mem=$(kernel_field "$name" mem) || return 1
	append=$(kernel_field "$name" append)
	[ "$append" = - ] || env+=(IOLAT_APPEND="$append")
	[ "$(kernel_field "$name" module)" = dkms ] && env+=(IOLAT_DKMS=1)
	[ "$(kernel_field "$name" kunit)" = yes ] &&
		env+=(IOLAT_KUNIT_KO="$ROOT/build/kmod/$name/iolat_kunit.ko")
	case $(kernel_field "$name" tests) in
	all) env+=(IOLAT_SKIP="$(tests_words once.tests)") ;;
	all+bench) ;;
	*) env+=(IOLAT_ONLY="$(tests_only "$name")")
	   mapfile -t -O "${#env[@]}" env < <(tests_env "$name") ;;
	esac
	local -a run=(env "${env[@]}" tests/guest/run --kernel "$name"
		      --mem "$mem" --share "$res")
	maxcpus=$(kernel_field "$name" maxcpus) || return 1
	[ "$maxcpus" = - ] || run+=(--maxcpus "$maxcpus")
	run+=(-- tests/guest/suite.sh)
	"${run[@]}"
	st=$?
	if [ $st = 3 ]; then
		# a report while the kernel booted, before the suite ran
		# anything: not iolat's (the module was not loaded); boot once
		# more, keeping that boot's log
		mv "$res/kernel.log" "$res/kernel.boot1.log"
		echo "check: $name: the kernel reported a problem while booting (kept in $res/kernel.boot1.log); booting it again, once"
		"${run[@]}"
		st=$?
		[ $st = 3 ] && echo "check: $name: the kernel reported a problem while booting, twice"
	fi
	if [ $st = 4 ]; then
		# a shared legacy interrupt line disabled as unhandled: the
		# emulated platform of a kernel without PCI MSI (tests/guest/run,
		# irq_dead), not iolat's; once more, the first try's log kept,
		# for the programs that did not finish (their TAP has no totals)
		mv "$res/kernel.log" "$res/kernel.irq1.log" 2>/dev/null ||
			echo "(the first try left no kernel log)" >"$res/kernel.irq1.log"
		local all=("${tests[@]}") p
		tests=()
		for p in "${all[@]}"; do
			t=${p##*/}
			grep -q '^# Totals: ' "$res/${t%_test}.tap" 2>/dev/null ||
				tests+=("$p")
		done
		# (all finished, the line disabled after: all again)
		[ ${#tests[@]} -gt 0 ] || tests=("${all[@]}")
		echo "check: ******** $name: the guest's kernel disabled an interrupt line as unhandled (kept in $res/kernel.irq1.log); running again, once, the programs that did not finish: ${tests[*]##*/} ********"
		run=("${run[@]/#IOLAT_TESTS=*/IOLAT_TESTS=${tests[*]}}")
		"${run[@]}"
		st=$?
	fi
	case $st in 4|125) return 125 ;; esac
	for t in $(guest_tests "$name"); do
		tap_ok "$res/$t.tap" || st=1
	done
	if [ "$(kernel_field "$name" kunit)" = yes ]; then
		kunit_parse "$res/kunit.dmesg" "$res/kunit.ktap" || st=1
	fi
	kernel_clean "$res/kernel.log" || st=1
	# each test's duration, for the results (tests/guest/durations.py)
	python3 tests/guest/durations.py "$res/kernel.log" >"$res/durations" ||
		st=1
	return $st
}

# The guest's kernel log has no oops, warning, KASAN or lockdep report:
# none of the fixed strings in tests/kernel-reports (the kselftests
# check each test's dmesg against the same list).
kernel_clean() {
	local bad
	[ -s "$1" ] || { echo "no kernel log in $1"; return 1; }
	[ -s tests/kernel-reports ] || { echo "no tests/kernel-reports"; return 1; }
	bad=$(grep -F -f tests/kernel-reports "$1")
	[ -z "$bad" ] && return 0
	echo "kernel reports in $1:"
	echo "$bad"
	return 1
}

# kunit.py parses the suite's KTAP out of the kernel log.  6.1 prints a
# module's suites one level indented, without the top-level "KTAP
# version 1" and "1..N" (N suites) that a built-in run prints; kunit.py
# takes the first version line's indentation as a prefix to cut from
# every line.  So add that header where it is missing, before the first
# version line, N counted from the suites' "# Subtest:" lines one level
# in.
kunit_parse() {
	local log=$1 ktap=$2 out
	[ -s "$log" ] || { echo "no kernel log in $log"; return 1; }
	awk 'NR == FNR { if (/^    # Subtest: /) n++; next }
	!seen && /^ *KTAP version/ {
		if (/^ /) print "KTAP version 1\n1.." n
		seen = 1
	} { print }' "$log" "$log" >"$ktap"
	out=$(python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$ktap" 2>&1)
	local st=$?
	echo "$out"
	# All ran and passed: "Ran N tests: passed: N" and nothing after.
	[ $st = 0 ] &&
		[[ $out =~ Ran\ ([0-9]+)\ tests:\ passed:\ ([0-9]+)$ ]] &&
		[ "${BASH_REMATCH[1]}" -gt 0 ] &&
		[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
}

stage deps tests/deps.sh || true
# (linux-source is extracted once, here, before debug_prep uses it too)
KSRC=$(tests/guest/kernels.sh source 2>"$OUT/source.log") ||
	{ cat "$OUT/source.log"; KSRC=/nonexistent; }
KSFT=$KSRC/tools/testing/selftests
debug_pid=
if [[ " $KERNELS " == *" debug "* ]]; then
	echo "check: >> kernel-debug, module-debug, layout-control (in the background)"
	debug_prep &
	debug_pid=$!
fi
stage versions check_versions
stage cli make -s cli EXTRA_CFLAGS=-Werror
stage docs tests/docs/examples.sh build/iolat
stage unit-tests unit_tests
# The CLI's ingest path end to end: every record in is decoded and
# analysed (ingest exits 2 otherwise).  Its rate, 20 million records a
# second on one core, is a wall-clock floor that a busy host
# fails with correct code: `make bench` asserts it, not make check.
stage ingest sh -c 'make -s build/tests/bench/ingest EXTRA_CFLAGS=-Werror &&
	build/tests/bench/ingest --records 2000000 --runs 1'
stage checkpatch checkpatch
# tests/bench/ablate.sh's variants still apply to the source (measuring
# them is make bench's, by hand)
stage ablate-variants tests/bench/ablate.sh --apply
stage no-kdir no_kdir_message
stage guest-lists guest_lists
stage guest-tests make -s guest-tests KSFT_DIR="$KSFT" EXTRA_CFLAGS=-Werror

# Kernels the module is built for (W=1, warning-free) and installed
# with DKMS for, without a guest.
built=()
for k in $BUILD_KERNELS; do
	if stage "kernel-$k" tests/guest/kernels.sh prepare "$k"; then
		stage "module-$k" tests/build-module.sh "$k" && built+=("$k")
	else
		result "module-$k" SKIP "(kernel-$k failed)"
	fi
done

ready=()
for k in $KERNELS; do
	# (the debug kernel is debug_prep's, and its guest waits for it)
	if [ "$k" = debug ]; then
		ready+=("$k")
		continue
	fi
	if ! stage "kernel-$k" tests/guest/kernels.sh prepare "$k"; then
		result "module-$k" SKIP "(kernel-$k failed)"
		result "guest-$k" SKIP "(kernel-$k failed)"
		continue
	fi
	if ! stage "module-$k" tests/build-module.sh "$k"; then
		result "guest-$k" SKIP "(module-$k failed)"
		continue
	fi
	ready+=("$k")
	# README's sample, from 6.1's guest (demo_check), and the
	# instruction budgets (tests/bench/cost.sh --check), and the locked
	# instructions and clock reads per I/O (tests/bench/profile.sh --check)
	# and the packages installed on a systemd system (tests/pkg/installed.sh),
	# on Debian 12's kernel: DKMS in the guest, under TCG, builds the
	# module for the running kernel and any newer one installed, each
	# build about 1500 s of the host's CPU (on 6.1 and 6.12 the stage
	# took 2734 s of a run, 2211 s of it the two builds), a third of
	# every guest's CPU together; 6.12's DKMS build is the dkms stage's,
	# and its guest suite loads the module DKMS built
	[ "$k" = 6.1 ] && ready+=(demo cost locks cpus8-6.1 installed-6.1)
	[ "$k" = newest ] && ready+=(cpus8-newest)
done
# The packages (tests/pkg): the Debian ones, whose module source is built
# for 6.1, and the RPMs.
if [ -f build/kmod/6.1/iolat.ko ]; then
	stage packages-deb tests/pkg/deb.sh 6.1
else
	result packages-deb SKIP "(module-6.1 failed)"
fi
stage packages-rpm tests/pkg/rpm.sh
# The Prometheus rules' unit tests and the dashboard's queries
stage prom-rules tests/pkg/prom.sh
# The struct sizes and record offsets the docs give, against the 6.1
# module's debug information (tests/docs/sizes.py).
if [ -f build/kmod/6.1/iolat.ko ]; then
	stage docs-sizes python3 tests/docs/sizes.py build/kmod/6.1/iolat.ko \
		README.md docs/*.md man/iolat.8
fi
# No call cycle between source files (tests/cycles.py): the CLI's objects,
# each layer of user/ using only those below it (docs/design.md), and the
# 6.1 module's.
CLI_LAYERS=cmd,out,analysis,file,session,nl,dev,util,lib
cycles() {
	local o kobjs=()
	python3 tests/cycles.py --layers "$CLI_LAYERS" build/user/*.o \
		build/user/*/*.o build/lib/*.o || return 1
	for o in build/kmod/6.1/kmod/*.o build/kmod/6.1/lib/*.o; do
		[[ $o == *.mod.o || $o == *kunit* ]] || kobjs+=("$o")
	done
	python3 tests/cycles.py "${kobjs[@]}"
}
if [ -f build/kmod/6.1/iolat.ko ]; then
	stage cycles cycles
fi
# DKMS installs for every kernel but the debug one (whose tree is a
# kernel build, not headers) and 5.10 (gcc-10); the guests of the Debian
# 6.x kernels and the fixtures then load the DKMS-built module, the
# others the module built in module-KERNEL (guest_suite; the demo insmods
# build/kmod/6.1).
distro=()
debug=()
for k in "${ready[@]}"; do
	case $k in
	demo|cost|locks|cpus8-*|installed-*) debug+=("$k") ;;
	*) if [ "$(kernel_field "$k" module)" = build ]; then
		debug+=("$k")
	else
		distro+=("$k")
	fi ;;
	esac
done
if [ $((${#distro[@]} + ${#built[@]})) -gt 0 ] &&
	! stage dkms dkms_install "${distro[@]}" "${built[@]}"; then
	for k in "${distro[@]}"; do
		result "guest-$k" SKIP "(dkms failed)"
	done
	ready=("${debug[@]}")
fi
run_guests "${ready[@]}"
if [ -n "$debug_pid" ]; then
	wait "$debug_pid"
	debug_report
fi
for k in "${ready[@]}"; do
	read -r st secs <"$OUT/guest-$k.status" || { st=1; secs=0; }
	[ -s "$OUT/guest-$k.cpu" ] && secs="$secs ($(cat "$OUT/guest-$k.cpu") s of CPU)"
	# said in the results: a guest that needed a second boot or run
	[ -e "$OUT/$k/kernel.boot1.log" ] &&
		secs="$secs, booted twice: a boot-time kernel report, see $OUT/$k/kernel.boot1.log"
	[ -e "$OUT/$k/kernel.irq1.log" ] &&
		secs="$secs, run twice: an interrupt line disabled, see $OUT/$k/kernel.irq1.log"
	# the slowest tests: every test's time is in $OUT/K/durations
	[ -s "$OUT/$k/durations" ] &&
		secs="$secs; slowest $(python3 tests/guest/durations.py \
			"$OUT/$k/kernel.log" --slowest 3)"
	report "guest-$k" "$st" "$secs"
done

# Every test that skipped, wherever it ran (tap_ok failed its stage if
# CI=true), where nobody reading the results can miss it.
if grep -rsE --include='*.tap' '^ok [0-9]+ .*# SKIP' "$OUT" >"$OUT/skipped"; then
	echo "check: ******** tests SKIPPED: ********"
	cat "$OUT/skipped"
fi

# The kernel x suite table: per suite its TAP totals ("16/16" passed of
# those run, "FAIL 1/16", "SKIP 2/16"), "-" where the suite is not the
# kernel's, "none" where it did not run; KUnit on the debug kernel;
# "log" the guest's kernel log (no report).
matrix() {
	local k t suites=() cell line tap totals p f sk
	for t in $ALL_SUITES; do
		for k in $KERNELS; do
			[[ " $(guest_tests "$k" | paste -sd" ") " == *" $t "* ]] && suites+=("$t") && break
		done
	done
	printf '%-8s' "kernel"
	printf ' %-10s' "${suites[@]}" kunit log
	echo
	for k in $KERNELS; do
		line=$(printf '%-8s' "$k")
		for t in "${suites[@]}"; do
			tap=$OUT/$k/$t.tap
			if [[ " $(guest_tests "$k" | paste -sd" ") " != *" $t "* ]]; then
				cell=-
			elif totals=$(grep -E '^# Totals: ' "$tap" 2>/dev/null); then
				[[ $totals =~ pass:([0-9]+)\ fail:([0-9]+).*skip:([0-9]+) ]]
				p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} sk=${BASH_REMATCH[3]}
				if [ "$f" != 0 ]; then cell="FAIL $f/$((p + f + sk))"
				elif [ "$sk" != 0 ]; then cell="SKIP $sk/$((p + sk))"
				else cell="$p/$p"; fi
			else
				cell=none
			fi
			line+=$(printf ' %-10s' "$cell")
		done
		if [ "$(kernel_field "$k" kunit)" != yes ]; then cell=-
		elif grep -qE 'Ran [0-9]+ tests: passed: [0-9]+$' "$OUT/guest-$k.log" 2>/dev/null
		then cell=$(grep -oE 'passed: [0-9]+$' "$OUT/guest-$k.log" | tail -n1 | cut -d' ' -f2)
			cell="$cell/$cell"
		else cell=FAIL; fi
		line+=$(printf ' %-10s' "$cell")
		if [ ! -s "$OUT/$k/kernel.log" ]; then cell=none
		elif grep -qF -f tests/kernel-reports "$OUT/$k/kernel.log"; then cell=REPORT
		else cell=clean; fi
		line+=$(printf ' %-10s' "$cell")
		echo "$line"
	done
}

if [ ${#ready[@]} -gt 0 ]; then
	echo
	echo "check: kernel x suite (tests passed/run)"
	matrix | tee "$OUT/matrix"
fi

echo
echo "check: results ($((SECONDS - started))s; logs in $OUT)"
cat "$OUT/summary"
if [ -s "$OUT/digest" ]; then
	echo
	echo "check: what did not pass"
	cat "$OUT/digest"
fi
echo "$pass passed, $fail failed, $skip skipped"
if [ "${CI:-}" = true ] && [ $skip -gt 0 ]; then
	echo "check: CI=true and $skip stage(s) did not run: failing"
	exit 1
fi
[ $fail = 0 ]
