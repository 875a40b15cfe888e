#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/pkg/rpm.sh
#
# The RPMs (rpm/iolat.spec), built by `make rpm` from a tarball of the
# tree, as make check's packages-rpm stage checks them:
# - rpmlint, with RHEL's conventions (rpm/rpmlint.toml), finds nothing
#   but what rpm/iolat.rpmlintrc lists, each with its reason;
# - iolat holds the CLI, its manual page, docs, licence, the exporter's
#   unit, its settings (a noreplace config file) and the module's
#   modules-load.d entry, and presets the unit when first installed and
#   disables it when removed;
# - iolat-dkms (noarch) holds the module's source set, exactly what
#   `make dkms-src` gives, hands it to DKMS when installed and takes it
#   back when removed.
# Built on Debian, the CLI is linked against Debian's C library: the
# spec is checked here, a binary for RHEL is built on RHEL.

set -euo pipefail

PKG_CHECK=pkg-rpm
# shellcheck source=tests/pkg/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$ROOT/build/pkg/rpm

grep -qx "Version: *$v" <(sed 's/[[:space:]]\+/ /' rpm/iolat.spec) ||
	fail "rpm/iolat.spec is not of version $v (VERSION)"
make -s rpm >"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log"; exit 1; }
cli=$top/RPMS/x86_64/iolat-$v-1.x86_64.rpm
dkms=$top/RPMS/noarch/iolat-dkms-$v-1.noarch.rpm
echo "pkg-rpm: built $(cd "$top" && find . -name '*.rpm' | sort | tr '\n' ' ')"

if rpmlint -c rpm/rpmlint.toml -r rpm/iolat.rpmlintrc rpm/iolat.spec \
	"$cli" "$dkms" "$top/SRPMS/iolat-$v-1.src.rpm" >"$tmp/lint" 2>&1 &&
   grep -q ' 0 errors, 0 warnings, 0 badness' "$tmp/lint"; then
	echo "pkg-rpm: rpmlint: clean; filtered: $(grep -c '^addFilter' rpm/iolat.rpmlintrc)"
else
	cat "$tmp/lint"
	fail "rpmlint has findings (above)"
fi

# the files of each package (the build id's links aside), against what
# they must be
files() { rpm -qlp "$1" | grep -v '^/usr/lib/\.build-id' | sort; }
files "$cli" >"$tmp/cli.files"
printf '%s\n' /etc/iolat /etc/iolat/exporter.conf /etc/iolat/watch.conf \
	/usr/lib/modules-load.d/iolat.conf \
	/usr/lib/systemd/system/iolat-exporter.service \
	/usr/lib/systemd/system/iolat-watch.service /usr/sbin/iolat \
	"/usr/share/doc/iolat-$v" "/usr/share/doc/iolat-$v/abi.md" \
	"/usr/share/doc/iolat-$v/output.md" "/usr/share/licenses/iolat-$v" \
	"/usr/share/licenses/iolat-$v/COPYING" /usr/share/iolat \
	/usr/share/iolat/grafana /usr/share/iolat/grafana/iolat.json \
	/usr/share/iolat/prometheus \
	/usr/share/iolat/prometheus/iolat.rules.yml \
	/usr/share/iolat/prometheus/iolat.rules.test.yml \
	/usr/share/man/man8/iolat.8.gz | sort >"$tmp/cli.want"
diff -u "$tmp/cli.want" "$tmp/cli.files" || fail "iolat's files are not the list above"
# (whole lists, then grep: grep -q leaves rpm writing into a closed pipe)
rpm -qp --configfiles "$cli" >"$tmp/cli.conf"
for f in /etc/iolat/exporter.conf /etc/iolat/watch.conf; do
	grep -qx "$f" "$tmp/cli.conf" || fail "iolat: $f is not a config file"
done
rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$cli" >"$tmp/cli.flags"
for f in /etc/iolat/exporter.conf /etc/iolat/watch.conf; do
	grep -q "^cn $f\$" "$tmp/cli.flags" || fail "iolat: $f is not %config(noreplace)"
done
rpm -qp --scripts "$cli" >"$tmp/cli.scripts"
grep -q 'systemctl --no-reload preset iolat-exporter.service' "$tmp/cli.scripts" ||
	fail "iolat: the unit is not preset at install"
grep -q 'systemctl --no-reload disable --now iolat-exporter.service' "$tmp/cli.scripts" ||
	fail "iolat: the unit is not disabled at removal"

files "$dkms" >"$tmp/dkms.files"
make -s dkms-src BUILD="$tmp/src" >/dev/null
{
	(cd "$tmp/src/dkms/iolat-$v" && find . | sed "s|^\.|/usr/src/iolat-$v|")
	printf '%s\n' "/usr/share/doc/iolat-dkms-$v" \
		"/usr/share/doc/iolat-dkms-$v/README.md" \
		"/usr/share/licenses/iolat-dkms-$v" \
		"/usr/share/licenses/iolat-dkms-$v/COPYING"
} | sort >"$tmp/dkms.want"
diff -u "$tmp/dkms.want" "$tmp/dkms.files" || fail "iolat-dkms's files are not make dkms-src's set"
[ "$(rpm -qp --qf '%{ARCH}' "$dkms")" = noarch ] || fail "iolat-dkms is not noarch"
rpm -qp --requires "$dkms" | grep -qx dkms || fail "iolat-dkms does not require dkms"
rpm -qp --scripts "$dkms" >"$tmp/dkms.scripts"
grep -q "dkms add -m iolat -v $v" "$tmp/dkms.scripts" &&
grep -q "dkms install -m iolat -v $v" "$tmp/dkms.scripts" &&
grep -q "dkms remove -m iolat -v $v --all" "$tmp/dkms.scripts" ||
	fail "iolat-dkms: its scriptlets do not add, install and remove iolat/$v with DKMS"
rpm2cpio "$dkms" | (cd "$tmp" && cpio -id --quiet "./usr/src/iolat-$v/dkms.conf")
grep -qx "PACKAGE_VERSION=\"$v\"" "$tmp/usr/src/iolat-$v/dkms.conf" ||
	fail "iolat-dkms: dkms.conf is not of version $v"
[ $st = 0 ] && echo "pkg-rpm: both packages' files, config files and scriptlets as they must be"
exit $st
