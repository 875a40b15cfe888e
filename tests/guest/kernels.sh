#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel cache for the guest rig: Debian kernel images and headers fetched
# with apt and unpacked (never installed over the host's /boot), and the
# KUnit debug kernel built from Debian's linux-source-6.1.
#
#   tests/guest/kernels.sh prepare NAME   make kernel NAME ready, print its dir
#   tests/guest/kernels.sh dir NAME       print its dir (must be ready)
#   tests/guest/kernels.sh source         extract linux-source-6.1, print dir
#
# NAME is a kernel of tests/kernels/table, whose "from" column says how
# it is made: 5.10, 6.1, 6.12, newest, debug, or one of the old-kernel
# fixtures 5.4, rhel8 and 4.19.  newest is Debian's newest kernel (sid's
# linux-image-amd64), with the toolchain it needs: a sid chroot made with
# debootstrap from the machine's own archive, cached, in which its
# headers are installed and modules are built (the kernel dir's
# "chroot" file names it; build-module.sh builds there).  5.10 comes from
# bullseye, through a private apt
# configuration in the cache whose archive URIs are read from the
# machine's own /etc/apt/sources.list.d/*.sources at run time.  The
# fixtures are prebuilt kernels with a compact kbuild tree, unpacked from
# NAME.tar.xz in $IOLAT_FIXTURES (default: ../shared/kernels beside the
# checkout; its README says how they were built).  Exit status 125: a
# fixture that is not there (a guest that cannot run, not a failure).
# Layout of a ready kernel dir:
#   kver          the kernel release (uname -r in the guest)
#   vmlinuz       the kernel image
#   modroot/      usr/lib/modules/KVER with its modules, depmod run (lib is
#                 a symlink to usr/lib, as on the merged-/usr host)
#   build         symlink to the kbuild dir to build modules against (KDIR)
#   initramfs.gz  busybox initramfs that mounts the host root (see init)
#
# The cache lives in $IOLAT_CACHE (default /var/cache/iolat), outside the
# repository, so clones and CI runs on the same machine share it.

set -euo pipefail

IOLAT_CACHE=${IOLAT_CACHE:-/var/cache/iolat}
RIG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$RIG_DIR/../.." && pwd)
IOLAT_FIXTURES=${IOLAT_FIXTURES:-$REPO_DIR/../shared/kernels}

# shellcheck source=tests/kernels/table.sh
. "$REPO_DIR/tests/kernels/table.sh"

log() { echo "kernels: $*" >&2; }
die() { echo "kernels: error: $*" >&2; exit 1; }

# apt options of the current series: none for bookworm's own kernels.
APT_OPTS=()

# Bullseye's package lists, kept apart from the host's apt state: the
# same archives as the host's deb822 sources, suite bullseye.
apt_bullseye() {
	local d=$IOLAT_CACHE/apt-bullseye
	mkdir -p "$d/sources" "$d/lists/partial" "$d/cache/archives/partial"
	awk 'BEGIN { RS = "" }
	{
		uri = ""; suites = ""
		for (i = 1; i <= NF; i++) {
			if ($i == "URIs:") uri = $(i + 1)
			if ($i == "Suites:") suites = $(i + 1)
		}
		if (uri == "") next
		if (suites ~ /-security/) sec = uri; else if (main == "") main = uri
	}
	END {
		if (main == "") exit 1
		printf "Types: deb\nURIs: %s\nSuites: bullseye bullseye-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n", main
		if (sec != "")
			printf "\nTypes: deb\nURIs: %s\nSuites: bullseye-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n", sec
	}' /etc/apt/sources.list.d/*.sources >"$d/sources/bullseye.sources" ||
		die "no deb822 Debian source in /etc/apt/sources.list.d to derive bullseye from"
	APT_OPTS=(-o Dir::Etc::SourceList=/dev/null
		-o "Dir::Etc::SourceParts=$d/sources"
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache"
		-o Dir::State::status=/dev/null)
	if [ -z "$(find "$d/lists" -name '*bullseye*Packages*' -mmin -1440 2>/dev/null)" ]; then
		log "5.10: updating bullseye package lists"
		apt-get "${APT_OPTS[@]}" -q update >/dev/null ||
			die "apt-get update for bullseye failed"
	fi
}

# The first dependency of a Debian metapackage, e.g.
# linux-image-amd64 -> linux-image-6.1.0-56-amd64.
meta_dep() {
	apt-cache "${APT_OPTS[@]}" depends "$1" 2>/dev/null |
		awk '/^ *\|?Depends:/ { sub(/^ *\|?Depends: */, ""); print; exit }'
}

# The guest mounts modroot as an overlay layer above the host root, whose
# /lib is a symlink to usr/lib: keep the same shape so the layers merge.
make_modroot() {
	mkdir -p "$1/modroot/usr/lib/modules"
	ln -s usr/lib "$1/modroot/lib"
}

# Unpack .deb files into a root directory.
unpack_debs() {
	local root=$1; shift
	local deb
	mkdir -p "$root"
	for deb in "$@"; do
		dpkg-deb -x "$deb" "$root"
	done
}

# Download packages into $IOLAT_CACHE/debs and print their paths.
download() {
	local dir=$IOLAT_CACHE/debs pkg
	mkdir -p "$dir"
	for pkg in "$@"; do
		if ! ls "$dir/${pkg}_"*.deb >/dev/null 2>&1; then
			log "downloading $pkg"
			(cd "$dir" && apt-get "${APT_OPTS[@]}" -q \
				-o APT::Sandbox::User=root \
				download "$pkg" >/dev/null) ||
				die "apt-get download $pkg failed (run apt-get update?)"
		fi
		ls "$dir/${pkg}_"*.deb | tail -n 1
	done
}

# Debian's headers Makefile includes the -common tree by absolute path;
# point it into the unpacked copy instead.
fix_headers() {
	local root=$1 kver=$2 mk
	mk=$root/usr/src/linux-headers-$kver/Makefile
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$mk"
}

# Busybox initramfs: /init from this directory plus the modules the guest
# needs before it can mount the host root (those that are not built in).
build_initramfs() {
	local kdir=$1 kver=$2 tmp m f
	tmp=$(mktemp -d)
	mkdir -p "$tmp"/{bin,sbin,dev,proc,sys,mnt,lib/modules}
	cp /bin/busybox "$tmp/bin/busybox"
	cp "$RIG_DIR/init" "$tmp/init"
	cp "$RIG_DIR/modprobe" "$tmp/sbin/modprobe"
	chmod 755 "$tmp/init" "$tmp/sbin/modprobe"
	: >"$tmp/lib/modules/order"
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$kdir/modroot" -S "$kver" --show-depends "$m" \
			2>/dev/null | awk '$1 == "insmod" { print $2 }' |
		while read -r f; do
			local base
			base=$(basename "$f")
			base=${base%.xz}
			[ -e "$tmp/lib/modules/$base" ] && continue
			case "$f" in
			*.xz) xz -dc "$f" >"$tmp/lib/modules/$base" ;;
			*) cp "$f" "$tmp/lib/modules/$base" ;;
			esac
			echo "$base" >>"$tmp/lib/modules/order"
		done
	done
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) \
		>"$kdir/initramfs.gz"
	rm -rf "$tmp"
	initramfs_key >"$kdir/init.sha"
}

# What the initramfs is made of, besides the kernel's modules.
initramfs_key() {
	cat "$RIG_DIR/init" "$RIG_DIR/modprobe" | sha256sum
}

# A ready kernel dir whose key is @2: its initramfs refreshed, its path
# printed.  False if it is not ready or was made from something else.
use_cached() {
	[ -f "$1/.ready" ] && [ "$(cat "$1/key")" = "$2" ] || return 1
	refresh_initramfs "$1"
	echo "$1"
}

# A ready kernel whose initramfs predates the current init (or modprobe
# helper) gets a new one.
refresh_initramfs() {
	local kdir=$1
	if ! initramfs_key | cmp -s - "$kdir/init.sha"; then
		build_initramfs "$kdir" "$(cat "$kdir/kver")"
	fi
}

prepare_debian() {
	local series=$1 kdir=$IOLAT_CACHE/kernels/$1 image kver common kbuild
	local want=""
	[ "$(kernel_field "$series" from)" != bullseye ] || apt_bullseye
	image=$(meta_dep "$(kernel_field "$series" package)")
	if [ -n "$image" ]; then
		want=${image#linux-image-}
	fi
	if [ -f "$kdir/.ready" ]; then
		if [ -z "$want" ] || [ "$want" = "$(cat "$kdir/kver")" ]; then
			refresh_initramfs "$kdir"
			echo "$kdir"
			return
		fi
		log "$series: cached $(cat "$kdir/kver"), apt has $want"
	fi
	[ -n "$want" ] ||
		die "cannot resolve the Debian $series kernel (apt-get update?)"
	kver=$want
	common=$(apt-cache "${APT_OPTS[@]}" depends "linux-headers-$kver" |
		awk '/Depends: linux-headers-.*-common/ { print $2; exit }')
	kbuild=$(apt-cache "${APT_OPTS[@]}" depends "linux-headers-$kver" |
		awk '/Depends: linux-kbuild/ { print $2; exit }')
	[ -n "$common" ] && [ -n "$kbuild" ] ||
		die "cannot resolve headers dependencies of $kver"
	log "$series: preparing $kver"
	rm -rf "$kdir"
	mkdir -p "$kdir"
	# shellcheck disable=SC2046
	unpack_debs "$kdir/image" $(download "linux-image-$kver-unsigned")
	# shellcheck disable=SC2046
	unpack_debs "$kdir/headers" $(download "linux-headers-$kver" \
		"$common" "$kbuild")
	fix_headers "$kdir/headers" "$kver"
	ln -s "headers/usr/src/linux-headers-$kver" "$kdir/build"
	make_modroot "$kdir"
	mv "$kdir/image/lib/modules/$kver" "$kdir/modroot/lib/modules/"
	rm -f "$kdir/modroot/lib/modules/$kver/build" \
		"$kdir/modroot/lib/modules/$kver/source"
	mv "$kdir/image/boot/vmlinuz-$kver" "$kdir/vmlinuz"
	rm -rf "$kdir/image"
	depmod -b "$kdir/modroot" "$kver"
	echo "$kver" >"$kdir/kver"
	build_initramfs "$kdir" "$kver"
	touch "$kdir/.ready"
	echo "$kdir"
}

# Debian's linux-source-6.1, extracted once: checkpatch.pl, the kselftest
# harness, kunit.py and the debug kernel all come from it.
prepare_source() {
	local tarball=/usr/src/linux-source-6.1.tar.xz
	local src=$IOLAT_CACHE/src/linux-source-6.1 stamp
	[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-6.1)"
	stamp=$(stat -c %Y "$tarball")
	if [ "$(cat "$src/.stamp" 2>/dev/null)" != "$stamp" ]; then
		log "extracting $tarball"
		rm -rf "$src"
		mkdir -p "$IOLAT_CACHE/src"
		tar -C "$IOLAT_CACHE/src" -xf "$tarball"
		echo "$stamp" >"$src/.stamp"
	fi
	echo "$src"
}

# The KUnit debug kernel: allnoconfig + tests/kernels/debug.config, keyed
# by the hash of the fragment and the source version.
prepare_debug() {
	local frag=$REPO_DIR/tests/kernels/debug.config src key kdir obj kver
	src=$(prepare_source)
	key=$( (cat "$frag"; cat "$src/.stamp") | sha256sum | cut -c1-16)
	kdir=$IOLAT_CACHE/kernels/debug
	use_cached "$kdir" "$key" && return
	log "debug: building kernel (key $key); this takes ~18 minutes on 2 cores"
	rm -rf "$kdir"
	mkdir -p "$kdir"
	obj=$kdir/obj
	make -s -C "$src" O="$obj" allnoconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "$frag" >/dev/null)
	make -s -C "$src" O="$obj" olddefconfig >/dev/null
	check_fragment "$frag" "$obj/.config"
	make -s -C "$src" O="$obj" -j"$(nproc)" bzImage modules \
		>"$kdir/build.log" 2>&1 ||
		{ tail -n 30 "$kdir/build.log" >&2; die "debug kernel build failed"; }
	make_modroot "$kdir"
	make -s -C "$src" O="$obj" INSTALL_MOD_PATH="$kdir/modroot" \
		modules_install >/dev/null
	kver=$(cat "$obj/include/config/kernel.release")
	rm -f "$kdir/modroot/lib/modules/$kver/build" \
		"$kdir/modroot/lib/modules/$kver/source"
	depmod -b "$kdir/modroot" "$kver"
	cp "$obj/arch/x86/boot/bzImage" "$kdir/vmlinuz"
	ln -s obj "$kdir/build"
	echo "$kver" >"$kdir/kver"
	echo "$key" >"$kdir/key"
	build_initramfs "$kdir" "$kver"
	touch "$kdir/.ready"
	echo "$kdir"
}

# The archive of the machine's own Debian sources (deb822), not security.
host_archive() {
	awk 'BEGIN { RS = "" }
	{
		uri = ""; suites = ""
		for (i = 1; i <= NF; i++) {
			if ($i == "URIs:") uri = $(i + 1)
			if ($i == "Suites:") suites = $(i + 1)
		}
		if (uri != "" && suites !~ /-security/) { print uri; exit }
	}' /etc/apt/sources.list.d/*.sources
}

# The sid chroot newest is built in: made once, its package lists
# refreshed daily.  The packages kbuild and DKMS need; the headers'
# own dependencies (the right gcc) come with them.
SID_ROOT=$IOLAT_CACHE/sid-root
prepare_sid_root() {
	local mirror
	if [ ! -f "$SID_ROOT/.ready" ]; then
		command -v debootstrap >/dev/null ||
			die "debootstrap is not installed (make deps)"
		mirror=$(host_archive)
		[ -n "$mirror" ] ||
			die "no deb822 Debian source in /etc/apt/sources.list.d to make a sid chroot from"
		log "newest: making a sid chroot (debootstrap)"
		rm -rf "$SID_ROOT"
		debootstrap --variant=minbase \
			--include=gcc,make,libc6-dev,bc,bison,flex,libelf-dev,libssl-dev,openssl,kmod,xz-utils,dwarves,dkms \
			sid "$SID_ROOT" "$mirror" >"$IOLAT_CACHE/sid-root.log" 2>&1 ||
			{ tail -n 20 "$IOLAT_CACHE/sid-root.log" >&2; die "debootstrap of sid failed"; }
		touch "$SID_ROOT/.ready"
	fi
	if [ -z "$(find "$SID_ROOT/var/lib/apt/lists" -name '*Packages*' -mmin -1440 2>/dev/null)" ]; then
		log "newest: updating sid's package lists"
		# the machine's archive may be a mirror frozen at a date, whose
		# sid Release is past its Valid-Until: still the newest it has
		chroot "$SID_ROOT" apt-get -q \
			-o Acquire::Check-Valid-Until=false update >/dev/null ||
			die "apt-get update in the sid chroot failed"
	fi
}

# Run a command in the sid chroot, with /proc (objtool reads it) and the
# repository (at its own path) mounted in a private mount namespace that
# ends with it.
in_sid() {
	mkdir -p "$SID_ROOT$REPO_DIR"
	unshare -m -f sh -c 'mount -t proc proc "$1/proc" &&
		mount --bind "$2" "$1$2" && shift 2 && exec chroot "$@"' \
		sh "$SID_ROOT" "$REPO_DIR" "$SID_ROOT" "$@"
}

# Debian's newest kernel: the image and modules unpacked as for the
# others (sid splits them: linux-binary-KVER the image, linux-modules-KVER
# the modules, linux-base-KVER modules.builtin and .order), the headers
# installed in the sid chroot.
prepare_newest() {
	local kdir=$IOLAT_CACHE/kernels/newest kver debs
	prepare_sid_root
	kver=$(chroot "$SID_ROOT" apt-cache depends "$(kernel_field newest package)" |
		awk '/Depends: linux-image-/ { sub(/.*linux-image-/, ""); print; exit }')
	[ -n "$kver" ] || die "cannot resolve sid's $(kernel_field newest package)"
	if [ -f "$kdir/.ready" ] && [ "$kver" = "$(cat "$kdir/kver")" ]; then
		refresh_initramfs "$kdir"
		echo "$kdir"
		return
	fi
	log "newest: preparing $kver"
	rm -rf "$kdir"
	mkdir -p "$kdir"
	chroot "$SID_ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install \
		-y -q --no-install-recommends "linux-headers-$kver" >"$kdir/headers.log" 2>&1 ||
		{ tail -n 20 "$kdir/headers.log" >&2; die "cannot install linux-headers-$kver in the sid chroot"; }
	debs=$SID_ROOT/tmp/iolat-debs
	rm -rf "$debs"
	mkdir -p "$debs"
	(cd "$debs" && chroot "$SID_ROOT" sh -c "cd /tmp/iolat-debs && apt-get -q -o APT::Sandbox::User=root download linux-base-$kver linux-binary-$kver linux-modules-$kver" >/dev/null) ||
		die "cannot download sid's kernel $kver"
	unpack_debs "$kdir/image" "$debs"/*.deb
	rm -rf "$debs"
	make_modroot "$kdir"
	mv "$kdir/image/usr/lib/modules/$kver" "$kdir/modroot/lib/modules/"
	mv "$kdir/modroot/lib/modules/$kver/vmlinuz" "$kdir/vmlinuz"
	rm -rf "$kdir/image"
	depmod -b "$kdir/modroot" "$kver"
	ln -s "$SID_ROOT/usr/src/linux-headers-$kver" "$kdir/build"
	echo "$SID_ROOT" >"$kdir/chroot"
	echo "$kver" >"$kdir/kver"
	build_initramfs "$kdir" "$kver"
	touch "$kdir/.ready"
	echo "$kdir"
}

# An old-kernel fixture (5.4, rhel8, 4.19): unpacked from its tarball,
# again whenever the tarball changes (keyed by its hash).
prepare_fixture() {
	local name=$1 tarball=$IOLAT_FIXTURES/$1.tar.xz kdir key
	kdir=$IOLAT_CACHE/kernels/$name
	if [ ! -f "$tarball" ]; then
		log "$name: no $tarball (the old-kernel fixtures live in ../shared/kernels beside the checkout; set IOLAT_FIXTURES)"
		exit 125
	fi
	key=$(sha256sum <"$tarball" | cut -c1-16)
	use_cached "$kdir" "$key" && return
	log "$name: unpacking $tarball"
	rm -rf "$kdir"
	mkdir -p "$kdir"
	tar -C "$kdir" -xJf "$tarball"
	[ -s "$kdir/kver" ] && [ -f "$kdir/vmlinuz" ] && [ -f "$kdir/build/Makefile" ] &&
		[ -d "$kdir/modroot/usr/lib/modules/$(cat "$kdir/kver")" ] ||
		die "$tarball does not hold kver, vmlinuz, build/ and modroot/"
	echo "$key" >"$kdir/key"
	build_initramfs "$kdir" "$(cat "$kdir/kver")"
	touch "$kdir/.ready"
	echo "$kdir"
}

# Every CONFIG_X=y/m line of the fragment must have survived olddefconfig.
check_fragment() {
	local frag=$1 config=$2 line bad=0
	while read -r line; do
		case "$line" in
		CONFIG_*=[ym]|CONFIG_*=\"*\"|CONFIG_*=[0-9]*)
			grep -qx -- "$line" "$config" ||
				{ log "fragment option lost: $line"; bad=1; } ;;
		esac
	done <"$frag"
	[ "$bad" = 0 ] || die "debug config does not match the fragment"
}

case "${1:-}" in
prepare)
	# One preparer of a kernel at a time, across make checks sharing the
	# cache: the lock is held by every child, so a build that outlives
	# the make check that started it still keeps the next one out.
	mkdir -p "$IOLAT_CACHE/kernels"
	exec 9>"$IOLAT_CACHE/kernels/.${2:-none}.lock"
	flock 9
	# where the kernel comes from: tests/kernels/table
	case "$(kernel_field "${2:-}" from 2>/dev/null)" in
	bookworm|bullseye) prepare_debian "$2" ;;
	source) prepare_debug ;;
	fixture) prepare_fixture "$2" ;;
	sid) prepare_newest ;;
	*) die "usage: $0 prepare $(kernel_names | paste -sd'|')" ;;
	esac ;;
dir)
	d=$IOLAT_CACHE/kernels/${2:-}
	[ -f "$d/.ready" ] || die "kernel '${2:-}' not prepared (run: $0 prepare ${2:-})"
	echo "$d" ;;
source) prepare_source ;;
sid) shift; in_sid "$@" ;;
*) die "usage: $0 prepare NAME | dir NAME | source | sid CMD..." ;;
esac
