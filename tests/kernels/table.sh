# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Reading tests/kernels/table, for the scripts that source this file.
#
#   kernel_names              every kernel's name, in the table's order
#   kernel_field NAME COLUMN  NAME's value in COLUMN (the header's word;
#                             the last column's is the rest of the line);
#                             fails for a kernel or column not there

KERNEL_TABLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/table

kernel_table() {
	awk -v n="$1" -v c="$2" '
		/^#/ || !NF { next }
		!ncol { for (ncol = 1; ncol <= NF; ncol++) col[$ncol] = ncol; next }
		n == "" { print $1; next }
		$1 == n && c in col {
			# the last column takes the rest of the line
			v = $col[c]
			if (col[c] == ncol - 1)
				for (i = col[c] + 1; i <= NF; i++)
					v = v " " $i
			print v
			found = 1
		}
		END { exit n != "" && !found }' "$KERNEL_TABLE"
}

kernel_names() {
	kernel_table "" ""
}

kernel_field() {
	kernel_table "$1" "$2" || {
		echo "tests/kernels/table: no kernel '$1' or no column '$2'" >&2
		return 1
	}
}
