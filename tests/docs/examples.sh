#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The docs' commands, checked on the host (make check's "docs" stage):
#
# 1. tests/docs/samples.py finds a change: README's demo sample against
#    itself matches, and against a copy with one column renamed, one
#    message reworded or one section dropped does not (a negative control
#    for the check that compares README with a guest run).
# 2. Every command of the man page's EXAMPLES parses: run here, without
#    the module, each ends in one line and exit 1 ("not loaded", or an
#    unknown device), never a usage error (2).
#
#   tests/docs/examples.sh CLI

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
CLI=${1:?usage: examples.sh CLI}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
st=0

# The sample as a transcript, as samples.py reads it.
awk '/^<!-- sample: demo begin/ { on = 1; next } /^<!-- sample: demo end/ { on = 0 }
	on && !/^```$/' README.md >"$tmp/same.txt"
if ! python3 tests/docs/samples.py check README.md "$tmp/same.txt"; then
	echo "examples: README's sample does not match itself"
	st=1
fi
# (the changes must each be there to make: else the control is void)
mutate() {
	local name=$1 sedexpr=$2
	sed "$sedexpr" "$tmp/same.txt" >"$tmp/$name.txt"
	if cmp -s "$tmp/same.txt" "$tmp/$name.txt"; then
		echo "examples: control '$name' changed nothing: fix its sed"
		st=1
	elif python3 tests/docs/samples.py check README.md "$tmp/$name.txt" \
		>"$tmp/$name.out"; then
		echo "examples: samples.py missed a change: $name"
		st=1
	else
		echo "examples: samples.py finds '$name': $(grep -c '^[-+][^-+]' "$tmp/$name.out") lines differ"
	fi
}
mutate column '0,/ p99\.99 /s// p99.98 /'
mutate message '0,/requests traced/s//requests seen/'
mutate section '/ request sizes:$/,/^$/d'
mutate comment '0,/^# exact %util/s//# %util/'

# The man page's examples.  Without the module (the host never loads
# it), each must get past option parsing.
if [ -e /sys/module/iolat ]; then
	echo "examples: ******** SKIP the commands: iolat is loaded on this host ********"
	exit 125
fi
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' man/iolat.8 |
	sed -n 's/^    iolat /iolat /p' | sed 's/\\-/-/g; s/\\e$//' >"$tmp/cmds"
n=$(wc -l <"$tmp/cmds")
[ "$n" -ge 5 ] || { echo "examples: only $n commands found in man/iolat.8"; st=1; }
while read -r line; do
	# continuation lines (fio's options) are left out: -- ends iolat's part
	read -ra words <<<"${line%% \\}"
	"$CLI" "${words[@]:1}" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" != 1 ] || [ "$lines" != 1 ]; then
		echo "examples: '$line': exit $rc, $lines lines on stderr (want 1 and 1):"
		cat "$tmp/err"
		st=1
	else
		echo "examples: '$line': $(cat "$tmp/err")"
	fi
done <"$tmp/cmds"
exit $st
