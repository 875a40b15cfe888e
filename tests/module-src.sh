#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/module-src.sh DIR
#
# Empty DIR and put in it the module's source set as DKMS gets it (make
# dkms-src), ready for kbuild's M=DIR: the one way the tests build a
# module, plain (build-module.sh) or with a define or an edit of their
# own (layout-control.sh, bench/cost.sh, bench/ablate.sh).

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:?usage: $0 DIR}
rm -rf "$dir"
mkdir -p "$dir"
make -s -C "$ROOT" dkms-src BUILD="$dir/.src"
cp -r "$dir"/.src/dkms/iolat-*/. "$dir"/
rm -rf "$dir/.src"
