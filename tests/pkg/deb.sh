#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/pkg/deb.sh KERNEL
#
# The Debian packages (debian/), built by `make deb` from a copy of the
# tree, as make check's packages-deb stage checks them:
# - lintian, pedantic and with its info tags, finds nothing but the
#   overrides debian/*.lintian-overrides lists, each with its reason;
# - iolat holds the CLI, its manual page, docs, the exporter's unit, its
#   settings (a conffile) and the module's modules-load.d entry, and
#   enables the unit without starting it at install;
# - iolat-dkms holds the module's source set, exactly what `make
#   dkms-src` gives, with dkms.conf of this version, and depends on dkms;
#   that source, as installed, builds the module for KERNEL
#   (tests/guest/kernels.sh) with W=1 and no warning;
# - the unit passes systemd-analyze verify.
# What installing them with DKMS under systemd does is a guest's test.

set -euo pipefail

kernel=${1:?usage: $0 KERNEL}
PKG_CHECK=pkg-deb
# shellcheck source=tests/pkg/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
dir=$ROOT/build/pkg/deb

[ "$(dpkg-parsechangelog -S Version)" = "$v" ] ||
	fail "debian/changelog is not of version $v (VERSION)"
make -s deb >"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log"; exit 1; }
echo "pkg-deb: built $(cd "$dir" && ls ./*.deb | tr '\n' ' ')"

# lintian (as root it says so on stderr: not a finding)
lintian --pedantic --display-info --fail-on error,warning,info,pedantic \
	"$dir/iolat_${v}_amd64.changes" >"$tmp/lintian" 2>"$tmp/lintian.err" ||
	fail "lintian failed"
grep -v 'running with root privileges' "$tmp/lintian.err" >>"$tmp/lintian" || true
if [ -s "$tmp/lintian" ]; then
	cat "$tmp/lintian"
	fail "lintian has findings (above)"
else
	echo "pkg-deb: lintian (pedantic, info): clean; overrides: $(grep -hvc '^#' debian/*.lintian-overrides | paste -sd+ | bc)"
fi

# the files of each package, against what they must be
files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort; }
files "$dir/iolat_${v}_amd64.deb" >"$tmp/iolat.files"
printf '%s\n' /etc/iolat/exporter.conf /etc/iolat/watch.conf \
	/lib/systemd/system/iolat-exporter.service \
	/lib/systemd/system/iolat-watch.service \
	/usr/lib/modules-load.d/iolat.conf /usr/sbin/iolat \
	/usr/share/doc/iolat/abi.md.gz /usr/share/doc/iolat/changelog.gz \
	/usr/share/doc/iolat/copyright /usr/share/doc/iolat/output.md.gz \
	/usr/share/lintian/overrides/iolat \
	/usr/share/iolat/grafana/iolat.json \
	/usr/share/iolat/prometheus/iolat.rules.yml \
	/usr/share/iolat/prometheus/iolat.rules.test.yml \
	/usr/share/man/man8/iolat.8.gz | sort >"$tmp/iolat.want"
diff -u "$tmp/iolat.want" "$tmp/iolat.files" || fail "iolat's files are not the list above"
dpkg-deb -e "$dir/iolat_${v}_amd64.deb" "$tmp/ctl"
grep -qx /etc/iolat/exporter.conf "$tmp/ctl/conffiles" ||
	fail "iolat: /etc/iolat/exporter.conf is not a conffile"
grep -qx /etc/iolat/watch.conf "$tmp/ctl/conffiles" ||
	fail "iolat: /etc/iolat/watch.conf is not a conffile"
grep -q "deb-systemd-helper enable 'iolat-exporter.service'" "$tmp/ctl/postinst" ||
	fail "iolat: postinst does not enable iolat-exporter.service"
# the flight recorder's triggers are chosen before it is enabled
grep -q "deb-systemd-helper debian-installed 'iolat-watch.service'" "$tmp/ctl/postinst" ||
	fail "iolat: postinst enables iolat-watch.service on a first installation"
! grep -q 'deb-systemd-invoke start' "$tmp/ctl/postinst" ||
	fail "iolat: postinst starts the service before DKMS may have built the module"
grep -q 'deb-systemd-invoke stop iolat-exporter.service' "$tmp/ctl/prerm" ||
	fail "iolat: prerm does not stop the service when the package goes"

files "$dir/iolat-dkms_${v}_all.deb" >"$tmp/dkms.files"
make -s dkms-src BUILD="$tmp/src" >/dev/null
(cd "$tmp/src/dkms/iolat-$v" && find . -type f | sed "s|^\.|/usr/src/iolat-$v|") >"$tmp/dkms.want"
printf '%s\n' /usr/share/doc/iolat-dkms/changelog.gz \
	/usr/share/doc/iolat-dkms/copyright >>"$tmp/dkms.want"
sort -o "$tmp/dkms.want" "$tmp/dkms.want"
diff -u "$tmp/dkms.want" "$tmp/dkms.files" || fail "iolat-dkms's files are not make dkms-src's set"
dpkg-deb -x "$dir/iolat-dkms_${v}_all.deb" "$tmp/dkms"
grep -qx "PACKAGE_VERSION=\"$v\"" "$tmp/dkms/usr/src/iolat-$v/dkms.conf" ||
	fail "iolat-dkms: dkms.conf is not of version $v"
dpkg-deb -f "$dir/iolat-dkms_${v}_all.deb" Depends | grep -q 'dkms' ||
	fail "iolat-dkms does not depend on dkms"
dpkg-deb -e "$dir/iolat-dkms_${v}_all.deb" "$tmp/dkms-ctl"
grep -q '^DKMS_NAME=iolat$' "$tmp/dkms-ctl/postinst" &&
grep -q 'common.postinst' "$tmp/dkms-ctl/postinst" ||
	fail "iolat-dkms: postinst does not hand the module to DKMS"

# the packaged source builds, as DKMS would build it
if "$ROOT/tests/build-module.sh" "$kernel" "$tmp/dkms/usr/src/iolat-$v" \
	"$tmp/kbuild" >"$tmp/kbuild.log" 2>&1; then
	echo "pkg-deb: iolat-dkms's source builds iolat.ko for $kernel (W=1, no warning)"
else
	tail -n 30 "$tmp/kbuild.log"
	fail "iolat-dkms's source does not build for $kernel"
fi

# the units, with the packaged binary where they name it
dpkg-deb -x "$dir/iolat_${v}_amd64.deb" "$tmp/root"
for unit in iolat-exporter.service iolat-watch.service; do
	sed "s|/usr/sbin/iolat|$tmp/root/usr/sbin/iolat|; s|EnvironmentFile=/etc|EnvironmentFile=$tmp/root/etc|" \
		"$tmp/root/lib/systemd/system/$unit" >"$tmp/$unit"
	if systemd-analyze verify --man=no "$tmp/$unit" >"$tmp/verify" 2>&1 &&
	   ! grep -q . "$tmp/verify"; then
		echo "pkg-deb: $unit: systemd-analyze verify: clean"
	else
		cat "$tmp/verify"
		fail "$unit does not verify"
	fi
done
exit $st
