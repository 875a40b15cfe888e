#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/pkg/sysroot.sh KERNEL[+KERNEL...]
#
# A Debian 12 root with systemd as init, for the packages' install test
# (tests/pkg/installed.sh): debootstrap's bookworm, then, with the
# machine's own apt sources, each kernel KERNEL (tests/guest/kernels.sh;
# bookworm's) as a package with its headers, so that its initramfs boots
# the root and DKMS builds against it, DKMS and its compiler, the CLI's
# libraries and Prometheus; what the guest needs and no network to get
# it.  Made once in $IOLAT_CACHE/sysroot-KERNEL[+KERNEL...] (about 1.3 GB
# and 0.4 GB a further kernel), its path printed.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kernel=${1:?usage: $0 KERNEL[+KERNEL...]}
cache=${IOLAT_CACHE:-/var/cache/iolat}
dir=$cache/sysroot-$kernel
kvers=()
for k in ${kernel//+/ }; do
	kvers+=("$(cat "$("$ROOT/tests/guest/kernels.sh" dir "$k")/kver")")
done
log() { echo "sysroot: $*" >&2; }

# the key: the kernels and this script
key="${kvers[*]} $(sha256sum "$0" | cut -c1-16)"
if [ -f "$dir/.ready" ] && [ "$(cat "$dir/.ready")" = "$key" ]; then
	echo "$dir"
	exit 0
fi
mirror=$(bash -c 'source <(sed -n "/^host_archive()/,/^}/p" "$1"); host_archive' \
	sh "$ROOT/tests/guest/kernels.sh")
[ -n "$mirror" ] || { log "no deb822 Debian source in /etc/apt/sources.list.d"; exit 1; }
rm -rf "$dir"
log "$kernel: debootstrap of bookworm with systemd"
debootstrap --variant=minbase --include=systemd,systemd-sysv,udev,kmod,procps \
	bookworm "$dir" "$mirror" >"$cache/sysroot-$kernel.log" 2>&1 ||
	{ tail -n 20 "$cache/sysroot-$kernel.log" >&2; exit 1; }
# the machine's own sources (the kernel comes from bookworm-security)
rm -f "$dir/etc/apt/sources.list"
cp /etc/apt/sources.list.d/*.sources "$dir/etc/apt/sources.list.d/"
in_root() {
	unshare -m -f sh -c 'mount -t proc proc "$1/proc" && mount -t sysfs sys "$1/sys" &&
		mount --bind /dev "$1/dev" && d=$1 && shift && exec chroot "$d" "$@"' \
		sh "$dir" "$@"
}
log "$kernel: the kernels ${kvers[*]}, their headers, DKMS, the CLI's libraries, Prometheus"
in_root apt-get -q update >>"$cache/sysroot-$kernel.log" 2>&1
in_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y install \
	--no-install-recommends "${kvers[@]/#/linux-image-}" "${kvers[@]/#/linux-headers-}" \
	initramfs-tools dkms gcc make libc6-dev libnl-3-200 libnl-genl-3-200 \
	libpopt0 libprotobuf-c1 prometheus python3 iproute2 >>"$cache/sysroot-$kernel.log" 2>&1 ||
	{ tail -n 20 "$cache/sysroot-$kernel.log" >&2; exit 1; }
in_root apt-get clean
# no network in the guest: no lists to refresh, nothing waits for one
rm -rf "$dir"/var/lib/apt/lists/*_Packages "$dir"/var/lib/apt/lists/*_Release*
echo iolat-guest >"$dir/etc/hostname"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$dir/etc/fstab"
# root's console, without a password, for a look on failure
in_root passwd -d root >/dev/null
echo "$key" >"$dir/.ready"
log "$kernel: ready ($(du -sh "$dir" | cut -f1))"
echo "$dir"
