#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The sizes and offsets the docs give, against the module's own types.

    sizes.py MODULE.ko DOC...

Every "`struct NAME` (N bytes" / "`struct NAME`, N bytes" in the docs
(whatever the line breaks; "(ABI 5, 184 bytes" too) and every row
"| OFFSET | `field` |" of docs/abi.md's record table is compared with
what gdb reads from the module's debug information.  Exits 1 on any
difference, or if the docs give none (the pattern broke).
"""
import re
import subprocess
import sys

SIZE = re.compile(r'`struct (\w+)`(?:,|\s*\()\s*(?:ABI \d+,\s*)?'
                  r'(\d[\d ]*) bytes')
ROW = re.compile(r'^\| (\d+) \| `(\w+)` \|', re.M)
TABLE = re.compile(r'^## `struct (\w+)`.*?(?=^## )', re.M | re.S)


def gdb(ko, exprs):
    """Each expression's value, or None where gdb could not evaluate it."""
    args = ['gdb', '-batch', '-nx']
    for e in exprs:
        args += ['-ex', 'echo @@\\n', '-ex', 'print/d ' + e]
    out = subprocess.run(args + [ko], capture_output=True, text=True)
    vals = []
    for part in (out.stdout + '\n' + out.stderr).split('@@\n')[1:]:
        m = re.search(r'^\$\d+ = (\d+)$', part, re.M)
        vals.append(int(m.group(1)) if m else None)
    if len(vals) != len(exprs):
        sys.exit('sizes: gdb did not answer (%s)' % out.stderr.strip())
    return vals


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    ko, checks = argv[1], []
    for path in argv[2:]:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        flat = ' '.join(text.split())
        for m in SIZE.finditer(flat):
            checks.append(('%s: struct %s is %s bytes' %
                           (path, m.group(1), m.group(2)),
                           'sizeof(struct %s)' % m.group(1),
                           int(m.group(2).replace(' ', ''))))
        for t in TABLE.finditer(text):
            for r in ROW.finditer(t.group(0)):
                checks.append(('%s: %s at offset %s of struct %s' %
                               (path, r.group(2), r.group(1), t.group(1)),
                               '(long)&((struct %s *)0)->%s' %
                               (t.group(1), r.group(2)),
                               int(r.group(1))))
    if not checks:
        print('sizes: the docs give no struct size or offset: pattern broken?')
        return 1
    st = 0
    for (what, expr, want), got in zip(checks, gdb(ko, [c[1] for c in checks])):
        if got != want:
            print('sizes: %s, but the module says %s' %
                  (what, 'nothing (no such type or field)' if got is None
                   else got))
            st = 1
    print('sizes: %d sizes and offsets checked, %s' %
          (len(checks), 'all as documented' if not st else 'some wrong'))
    return st


if __name__ == '__main__':
    sys.exit(main(sys.argv))
