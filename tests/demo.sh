#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: iolat doing its job.  Installs what it needs, builds the CLI
# and the module for Debian's 6.1 kernel, boots that kernel under QEMU with
# an emulated NVMe drive and null_blk, and traces fio on both.  The
# output is also left in build/demo.txt.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
say() { echo "demo: $*" >&2; }

say "installing packages (apt-get)"
tests/deps.sh
say "building the CLI and the kernel cache (the first time takes minutes)"
make -s cli
tests/guest/kernels.sh prepare 6.1 >/dev/null
say "building iolat.ko for Debian's 6.1 kernel"
tests/build-module.sh 6.1 >/dev/null
say "booting the guest"
# the transcript is kept: `make check` compares README's sample with a
# run like this one, and tests/docs/samples.py update README.md
# build/demo.txt takes it into README
tests/guest/run --kernel 6.1 -- tests/guest/demo.sh | tee build/demo.txt
