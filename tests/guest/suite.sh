#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make check` (run by tests/check.sh through
# tests/guest/run).  In $IOLAT_RESULTS it leaves:
#   dkms.log        modprobe of the DKMS-installed module (if IOLAT_DKMS=1)
#   kunit.ktap      the KUnit suite's KTAP from debugfs (if IOLAT_KUNIT_KO
#                   is set; parsed on the host by kunit.py)
#   kselftest.tap   the kselftests' TAP
#   dmesg.log       the kernel log at the end (scanned on the host for
#                   KASAN, lockdep and other kernel reports)
# and exits non-zero if any part failed.  With IOLAT_DKMS=1 the kselftests
# run on the DKMS-built module; otherwise on $IOLAT_KO.

out=${IOLAT_RESULTS:?}
rc=0

if [ "${IOLAT_DKMS:-0}" = 1 ]; then
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
	# The suite's KTAP as the kernel keeps it for parsers (KUNIT_DEBUGFS).
	# The kernel log is not used: 6.1 prints a module's suites without
	# the top-level header and at two indentations, which kunit.py
	# cannot strip.
	grep -qs ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug
	insmod "$IOLAT_KO" && insmod "$IOLAT_KUNIT_KO" &&
		cat /sys/kernel/debug/kunit/iolat/results >"$out/kunit.ktap"
	st=$?
	rmmod iolat_kunit
	rmmod iolat
	[ $st = 0 ] || { echo "suite: cannot run the KUnit suite"; rc=1; }
fi

echo "suite: kselftests on $(uname -r) with $IOLAT_KO"
"$IOLAT_TEST" >"$out/kselftest.tap" 2>&1
st=$?
cat "$out/kselftest.tap"
[ $st = 0 ] || rc=1
dmesg >"$out/dmesg.log"
exit $rc
