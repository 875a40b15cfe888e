#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make check` (run by tests/check.sh through
# tests/guest/run).  In $IOLAT_RESULTS it leaves:
#   dkms.log        modprobe of the DKMS-installed module (if IOLAT_DKMS=1)
#   kunit.dmesg     the kernel log of the KUnit suite's run (if
#                   IOLAT_KUNIT_KO is set; parsed on the host by kunit.py)
#   NAME.tap        the TAP of each kselftest program in $IOLAT_TESTS
#   kernel.log      the kernel log from boot to the end (scanned on the
#                   host for oops, KASAN, lockdep and other reports)
# and exits non-zero if any part failed.  With IOLAT_DKMS=1 the kselftests
# run on the DKMS-built module; otherwise on $IOLAT_KO.  IOLAT_ONLY, if
# set, names the tests to run as SUITE:FIXTURE.TEST words: each program
# gets its own as IOLAT_ONLY (FIXTURE.TEST, helpers.h); IOLAT_SKIP, the
# same words, names tests not to run.
# If the kernel already reported a problem while it booted, before any
# test (the debug kernel under TCG, once in a while, in an early
# interrupt), it runs nothing and exits 3: check.sh boots it again, once.

out=${IOLAT_RESULTS:?}
rc=0

# The whole kernel log, from boot to the end, whatever the tests clear.
cat /dev/kmsg >"$out/kernel.log" &
kmsg=$!

reports=$(cd "$(dirname "$0")/../.." && pwd)/tests/kernel-reports
if dmesg | grep -F -f "$reports" >"$out/boot-reports.log"; then
	echo "suite: the kernel reported a problem while booting, before any test:"
	cat "$out/boot-reports.log"
	sleep 1
	kill $kmsg
	exit 3
fi
rm -f "$out/boot-reports.log"

# A step of this script in the kernel log: the rig counts these lines,
# and the tests' own, as progress (tests/guest/run --stall).
step() {
	echo "iolat suite: $*" >/dev/kmsg
}

if [ "${IOLAT_DKMS:-0}" = 1 ]; then
	step "modprobe of the DKMS module"
	{
		depmod -a &&
		modprobe iolat &&
		modinfo -n iolat &&
		"$IOLAT_CLI" info &&
		modprobe -r iolat
	} >"$out/dkms.log" 2>&1
	st=$?
	cat "$out/dkms.log"
	[ $st = 0 ] || { echo "suite: modprobe of the DKMS module failed"; rc=1; }
	IOLAT_KO=$(modinfo -n iolat)
	export IOLAT_KO
fi

if [ -n "${IOLAT_KUNIT_KO:-}" ]; then
	# The kernel log from here on, without timestamps: the KTAP lines
	# keep their indentation for the host's kunit.py.  (Not debugfs:
	# 6.1 truncates each case's log there at KUNIT_LOG_SIZE, 512 bytes.)
	step "KUnit"
	seen=$(dmesg | wc -l)
	insmod "$IOLAT_KO" && insmod "$IOLAT_KUNIT_KO"
	st=$?
	dmesg -t | tail -n "+$((seen + 1))" >"$out/kunit.dmesg"
	rmmod iolat_kunit
	rmmod iolat
	[ $st = 0 ] || { echo "suite: cannot load the KUnit module"; rc=1; }
fi

# words SUITE W...: the words W of the form SUITE:FIXTURE.TEST, as
# FIXTURE.TEST
words() {
	suite=$1 ws=
	shift
	for w in "$@"; do
		case $w in "$suite:"*) ws="$ws ${w#"$suite:"}" ;; esac
	done
	echo "${ws# }"
}

for t in ${IOLAT_TESTS:?}; do
	name=$(basename "$t" _test)
	echo "suite: kselftests $name on $(uname -r) with $IOLAT_KO"
	# each test's start and result in the kernel log too, with its
	# time: the console's last lines then say where a guest that timed
	# out was, and the rig sees the suite's progress.  Through tee, not
	# by following the TAP file on the 9p share with `tail -f`: in the
	# newest kernel's guest that copy stopped partway through three
	# suites (why, not pinned down: tail's view of the file, or the
	# pipe behind it).  tee goes on writing the file if the lines'
	# reader dies.
	only=$(words "$name" ${IOLAT_ONLY:-})
	skip=$(words "$name" ${IOLAT_SKIP:-})
	rm -f /tmp/iolat_suite.status
	{
		IOLAT_ONLY=$only IOLAT_SKIP=$skip "$t" 2>&1
		echo $? >/tmp/iolat_suite.status
	} | tee --output-error=warn-nopipe "$out/$name.tap" |
		grep --line-buffered -E '^#  RUN|^(not )?ok ' |
		sed -u "s/^/iolat $name: /" >/dev/kmsg
	st=$(cat /tmp/iolat_suite.status 2>/dev/null || echo 1)
	cat "$out/$name.tap"
	[ $st = 0 ] || rc=1
done
sleep 1
kill $kmsg
exit $rc
