# SPDX-License-Identifier: GPL-2.0
#
# What tests/pkg/deb.sh and rpm.sh share, sourced: the tree's root as
# the working directory, its VERSION in $v, a scratch directory $tmp gone
# at exit, and fail(), which says why and marks the check failed ($st).
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
v=$(cat VERSION)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
st=0
fail() { echo "${PKG_CHECK:-pkg}: $*"; st=1; }
