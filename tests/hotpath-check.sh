#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/hotpath-check.sh IOLAT.KO
#
# The probes every block request runs have no `rep stos` and call no
# memset(): with CONFIG_INIT_STACK_ALL_ZERO (Debian's kernels) a large
# local variable is zeroed by one, which costs every I/O (docs/design.md,
# "The cost of a request").  Prints what it finds and fails on any.

set -euo pipefail

ko=${1:?usage: $0 IOLAT.KO}
hot='iolat_probe_rq_insert|iolat_probe_rq_issue|iolat_probe_rq_complete|iolat_rq_done|iolat_rq_keep|iolat_slot_fill|iolat_slot_prepare|iolat_slot_queue|iolat_slot_end|iolat_probe_bio_queue|iolat_probe_getrq|iolat_stash_new|iolat_stash_claim|iolat_stash_publish|iolat_stash_release'
objdump -dr "$ko" | awk -v hot="^<($hot)(\\\\.[a-z0-9.]+)?>:$" '
	/^[0-9a-f]+ <.*>:$/ { fn = $2; in_hot = fn ~ hot; if (in_hot) n++ }
	in_hot && /rep stos|memset/ { print "hot path: " fn " " $0; bad++ }
	END {
		if (n < 4) { print "hot path: only " n " of the probe functions found"; exit 1 }
		if (bad) exit 1
		print "hot path: " n " functions, no rep stos, no memset"
	}'
