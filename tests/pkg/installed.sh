#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/pkg/installed.sh KERNEL[+NEWER]
#
# The Debian packages installed on a Debian 12 system booted with
# systemd as init, under QEMU: the root of tests/pkg/sysroot.sh (KERNEL,
# and NEWER, with their headers installed, no network), on a disk image
# made fresh with the packages of `make deb` and
# tests/pkg/guest/pkgtest.sh, which runs at each boot (pkgtest.service)
# and reports on the serial console and in a file of the image, read once
# the guest is off: on KERNEL, dpkg -i builds the module with DKMS for the
# running kernel (and NEWER), the service is enabled, starts ready,
# serves /metrics, a real Prometheus scrapes it (native histograms too),
# a reload applies; a reboot brings module and service back, and the
# flight recorder's service (installed, not enabled) starts, dumps when
# asked, and stops; then the
# guest is booted again on NEWER, as after a kernel upgrade, and module
# and service are back on it; apt-get purge leaves no module, no DKMS
# tree, no unit.  Exits 0 if every check passed, 1 if one failed or the
# guest did not finish, 125 if it cannot run here.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kernels=${1:?usage: $0 KERNEL[+NEWER]}
kernel=${kernels%%+*}
newer=${kernels#"$kernel"}
newer=${newer#+}
cd "$ROOT"
v=$(cat VERSION)
out=$ROOT/build/pkg/installed-$kernels
# a guest silent this long is stuck (the DKMS build prints nothing for
# minutes under TCG: its compiler's steps do)
stall=${IOLAT_PKG_STALL:-1800}

for tool in qemu-system-x86_64 mke2fs debugfs debootstrap; do
	command -v "$tool" >/dev/null || { echo "installed: $tool is missing: SKIP"; exit 125; }
done
sysroot=$("$ROOT/tests/pkg/sysroot.sh" "$kernels")
kver_of() { cat "$("$ROOT/tests/guest/kernels.sh" dir "$1")/kver"; }
kver=$(kver_of "$kernel")
next=${newer:+$(kver_of "$newer")}
[ -f "build/pkg/deb/iolat_${v}_amd64.deb" ] || make -s deb >/dev/null
rm -rf "$out"
mkdir -p "$out"

# the image: the root, then the packages and the test, with debugfs
# (no loop device needed)
echo "installed: $kernel: image of $(du -sh "$sysroot" | cut -f1) root"
mke2fs -q -F -t ext4 -d "$sysroot" -L iolat-root "$out/root.img" 6G >/dev/null
{
	echo "mkdir /root/pkgtest"
	for f in "build/pkg/deb/iolat-dkms_${v}_all.deb" "build/pkg/deb/iolat_${v}_amd64.deb" \
		 tests/pkg/guest/pkgtest.sh; do
		echo "write $f /root/pkgtest/$(basename "$f")"
	done
	if [ -n "$next" ]; then
		echo "$next" >"$out/next"
		echo "write $out/next /root/pkgtest/next"
	fi
	echo "write tests/pkg/guest/pkgtest.service /etc/systemd/system/pkgtest.service"
	echo "symlink /etc/systemd/system/multi-user.target.wants/pkgtest.service /etc/systemd/system/pkgtest.service"
	# no login on the console: its getty hangs the line up, and the
	# test's lines on it after that were lost
	echo "symlink /etc/systemd/system/serial-getty@ttyS0.service /dev/null"
	# Debian's Prometheus, enabled by its package: started by the test
	# when it scrapes, not at each of the three boots, beside the DKMS
	# builds; and the daily timers, which have never run and so run at
	# boot (apt without a network, the dpkg database's backup, fstrim,
	# e2scrub): work the emulated CPUs do for nothing
	for unit in multi-user.target.wants/prometheus.service \
		    timers.target.wants/apt-daily.timer timers.target.wants/apt-daily-upgrade.timer \
		    timers.target.wants/dpkg-db-backup.timer timers.target.wants/fstrim.timer \
		    timers.target.wants/e2scrub_all.timer; do
		echo "rm /etc/systemd/system/$unit"
	done
} >"$out/debugfs.cmds"
debugfs -w -f "$out/debugfs.cmds" "$out/root.img" >"$out/debugfs.log" 2>&1
if grep -q -i 'error\|not found\|could not' "$out/debugfs.log"; then
	cat "$out/debugfs.log"
	exit 1
fi

# Boot kernel $1 until the guest powers off: two host threads (MTTCG),
# not the suites' one: the DKMS build inside is most of the run, and
# takes both vCPUs.  (A reboot inside the guest boots the same kernel.)
# init_on_alloc=0, as the suites' rig (tests/guest/run): Debian's kernels
# zero every allocation by default, which under TCG doubles what forks,
# execs and page-cache reads cost, and the DKMS build is thousands of
# them.
boot() {
	local qpid last=0 since=$SECONDS size
	console=$out/console-$1.log
	: >"$console"
	echo "installed: booting $1 with systemd (console: $console)"
	qemu-system-x86_64 -accel "${IOLAT_ACCEL:-tcg,thread=multi}" -cpu max -smp 2 -m 2048 \
		-nodefaults -display none -monitor none \
		-kernel "$sysroot/boot/vmlinuz-$1" -initrd "$sysroot/boot/initrd.img-$1" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=1 init_on_alloc=0" \
		-drive "file=$out/root.img,if=virtio,format=raw" \
		-serial "file:$console" </dev/null &
	qpid=$!
	trap 'kill "$qpid" 2>/dev/null || true' EXIT
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 2
		size=$(stat -c %s "$console")
		if [ "$size" != "$last" ]; then
			last=$size
			since=$SECONDS
		elif [ $((SECONDS - since)) -ge "$stall" ]; then
			echo "installed: the guest printed nothing for ${stall}s; killing it"
			kill "$qpid"
			break
		fi
	done
	wait "$qpid" 2>/dev/null || true
	trap - EXIT
}

boot "$kver"
# off for the newer kernel: booted on it, as after an upgrade
if [ -n "$next" ] &&
   debugfs -R "cat /root/pkgtest/results" "$out/root.img" 2>/dev/null |
	grep -q "^PKGTEST boot 2: .* off, for the host to boot $next"; then
	boot "$next"
fi
# the test's own record of its checks, from the image
debugfs -R "cat /root/pkgtest/results" "$out/root.img" 2>/dev/null | tee "$out/results"
if grep -q '^PKGTEST done: 0 failed' "$out/results" &&
   ! grep -q '^PKGTEST FAIL' "$out/results"; then
	echo "installed: $kernels: $(grep -c '^PKGTEST ok' "$out/results") checks passed"
	exit 0
fi
echo "installed: $kernels: a check failed or the guest did not finish (last console lines:)"
tail -n 30 "$console" | tr -d '\r'
exit 1
