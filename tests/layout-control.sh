#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/layout-control.sh NAME
#
# The negative control of the build-time layout check: iolat.ko built for
# the cached kernel NAME (one whose source tree holds nvme-core's private
# headers: the debug kernel) with IOLAT_NVME_LAYOUT_CONTROL, which shifts
# compat.h's copy of struct nvme_request's status by two bytes, must fail
# to build, on that check's assertion and nothing else.  The same build
# without the define is tests/build-module.sh's, which must pass.

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=${1:?usage: $0 NAME}
kdir=$("$ROOT/tests/guest/kernels.sh" dir "$name")/build || exit 1
dir=$ROOT/build/kmod/$name-layout-control
want="nvme-core's struct nvme_request is not the head compat.h knows"

"$ROOT/tests/module-src.sh" "$dir" || exit 1
if make -C "$kdir" M="$dir" KCFLAGS=-DIOLAT_NVME_LAYOUT_CONTROL modules \
	>"$dir/build.log" 2>&1; then
	echo "layout-control: the build with a wrong nvme_request layout succeeded: the check does not fire"
	exit 1
fi
errors=$(grep -c 'error:' "$dir/build.log")
# gcc escapes the quote in the message it repeats
if ! grep -F "static assertion failed" "$dir/build.log" |
	sed "s/\\\\'/'/g" | grep -qF "$want"; then
	echo "layout-control: the build failed, but not on the layout check:"
	grep 'error:' "$dir/build.log"
	exit 1
fi
if [ "$errors" != 1 ]; then
	echo "layout-control: $errors errors, expected the layout check's alone:"
	grep 'error:' "$dir/build.log"
	exit 1
fi
echo "layout-control: $name: the build with a shifted status failed as it must:"
grep 'error:' "$dir/build.log"
