#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   tests/hotpath-check.sh IOLAT.KO
#
# The probes every block request and NVMe command runs have no `rep stos`
# and call no memset(): with CONFIG_INIT_STACK_ALL_ZERO (Debian's
# kernels) a large local variable is zeroed by one, which costs every
# I/O (docs/design.md, "The cost of a request").  The hot path is every
# tracepoint probe (iolat_probe_*) and every function of the module they
# call or jump to, followed through the disassembly, so that a helper
# the compiler leaves out of line is checked as well as one it inlines.
# Not followed (cold below): the rare paths written out of line so that
# only they pay for their stack copy, each commented where it is defined
# (a request's stash entry on another CPU, a completion never seen
# issued), and the admin commands' records, a few per second at most.
# Prints the functions it checked; fails on a zeroing, or if a probe
# every kernel has is not in the module.
#
# Then: adding a request (the insert and issue probes) runs with
# interrupts on (docs/design.md, Union without a lock).  Interrupts go
# off as `pushf; pop; cli` or, on a kernel built for paravirtualisation
# (Debian's), as calls through pv_ops (pv_irq_ops before 4.20); neither
# may be in those probes' bodies.  The completion probe, which takes a
# request out with interrupts off, must show one: else the pattern would
# find nothing on this build, and the check could not fail.

set -euo pipefail

ko=${1:?usage: $0 IOLAT.KO}
required='iolat_probe_bio_queue iolat_probe_getrq iolat_probe_rq_insert iolat_probe_rq_issue iolat_probe_rq_complete iolat_probe_nvme_setup iolat_probe_nvme_complete'
cold='iolat_slot_take_remote iolat_stash_adopt iolat_rq_done_unseen iolat_record_emit_admin'
objdump -dr "$ko" | awk -v required="$required" -v cold="$cold" '
	function base(f) { sub(/^</, "", f); sub(/>:?$/, "", f); sub(/[+-]0x[0-9a-f]+$/, "", f); sub(/\..*$/, "", f); return f }
	/^[0-9a-f]+ <.*>:$/ { fn = $2; sub(/^</, "", fn); sub(/>:$/, "", fn); defined[fn] = 1; next }
	fn == "" { next }
	/rep stos|memset/ { zero[fn] = zero[fn] "\n    " $0 }
	# calls and jumps to another function, direct or through a relocation
	/\t(call|jmp) +[0-9a-f]+ <[^>]*>$/ {
		t = $NF; sub(/^</, "", t); sub(/>$/, "", t); sub(/[+-]0x[0-9a-f]+$/, "", t)
		if (t != fn) edge[fn] = edge[fn] " " t
	}
	/R_X86_64_PLT32|R_X86_64_PC32/ {
		t = $NF; sub(/[+-]0x[0-9a-f]+$/, "", t)
		edge[fn] = edge[fn] " " t
	}
	END {
		nc = split(cold, c, " ")
		for (i = 1; i <= nc; i++) iscold[c[i]] = 1
		n = 0
		for (f in defined) if (f ~ /^iolat_probe_/ && f !~ /^__pfx_/) { queue[++n] = f; seen[f] = 1 }
		nr = split(required, r, " ")
		for (i = 1; i <= nr; i++) if (!(r[i] in defined)) { print "hot path: no " r[i] " in the module"; bad++ }
		for (q = 1; q <= n; q++) {
			f = queue[q]
			m = split(edge[f], to, " ")
			for (j = 1; j <= m; j++) {
				t = to[j]
				if (!(t in defined) || (t in seen) || t ~ /^__pfx_/ || (base(t) in iscold)) continue
				seen[t] = 1; queue[++n] = t
			}
		}
		list = ""
		for (q = 1; q <= n; q++) {
			list = list " " queue[q]
			if (queue[q] in zero) { print "hot path: " queue[q] " zeroes memory:" zero[queue[q]]; bad++ }
		}
		if (bad) exit 1
		print "hot path: " n " functions, no rep stos, no memset:" list
	}'
objdump -dr "$ko" | awk '
	/^[0-9a-f]+ <.*>:$/ { fn = $2; sub(/^</, "", fn); sub(/>:$/, "", fn); next }
	/\t(cli|pushf|pushfq|popf|popfq) *$|pv_(irq_)?ops/ { irqoff[fn]++ }
	END {
		split("iolat_probe_rq_insert iolat_probe_rq_issue", on, " ")
		for (i = 1; i in on; i++)
			if (irqoff[on[i]]) { print "hot path: " on[i] " turns interrupts off"; bad++ }
		if (!irqoff["iolat_probe_rq_complete"]) {
			print "hot path: no interrupts-off section found in iolat_probe_rq_complete: the pattern finds nothing on this build"
			bad++
		}
		if (bad) exit 1
		print "hot path: interrupts stay on in iolat_probe_rq_insert and iolat_probe_rq_issue (off in iolat_probe_rq_complete: " irqoff["iolat_probe_rq_complete"] " instructions)"
	}'
