#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing iolat needs, from the machine's own
# apt sources (Debian 12).  Quick when everything is there already.
# --bench: also the BPF peers that make bench measures iolat against
# (bcc's and bpftrace's biolatency), which make check does not need.

set -euo pipefail

pkgs=(
	build-essential pkg-config libnl-3-dev libnl-genl-3-dev libpopt-dev
	libprotobuf-c-dev protobuf-c-compiler
	dkms kmod bc bison flex libelf-dev libssl-dev cpio xz-utils rsync
	linux-source-6.1 python3 util-linux fdisk gdb
	dwarves qemu-system-x86 busybox-static debootstrap
	fio blktrace nvme-cli dmsetup cryptsetup-bin mdadm lvm2
	prometheus chromium python3-pil python3-pandas python3-numpy
	debhelper dh-dkms lintian rpm rpmlint
)
[ "${1:-}" = --bench ] && pkgs+=(bpftrace bpfcc-tools)

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

# The kernel cache resolves Debian's current kernels from apt's lists.
lists_ok() {
	local policy
	policy=$(apt-cache policy linux-image-amd64 2>/dev/null || true)
	[[ $policy == *"Candidate: "[0-9]* ]]
}

if [ ${#missing[@]} -gt 0 ] || ! lists_ok; then
	echo "deps: apt-get update" >&2
	apt-get update -q >/dev/null
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >/dev/null
fi
