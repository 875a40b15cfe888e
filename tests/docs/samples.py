#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""README's sample output against what iolat prints today.

    samples.py check  README.md TRANSCRIPT
    samples.py update README.md TRANSCRIPT

TRANSCRIPT is the output of `make demo`'s guest half (tests/guest/demo.sh)
from a real guest run.  README holds a copy between the lines
"<!-- sample: demo begin ... -->" and "<!-- sample: demo end -->".
`check` compares the two with what varies from run to run masked, and
exits 1 with the difference when they disagree: a change in what the CLI
prints that README does not follow fails `make check`.  `update` puts the
transcript into README.

Masked: every number that stands alone (counts, times with their unit,
pids, percentages; a version such as 0.1.0 is not one), the kernel's
release ("# uname -r", record's "Linux 6.1.0-56-amd64,"), the start time, runs of spaces (column widths) and the
histogram bars.  Then runs of lines that are the same once masked (the
rows of a histogram, of a trace, of a stat table) count as one, and so do
repeated runs of several lines (a table per NVMe queue: which queues a
job used depends on the CPUs it ran on).  What stays: the commands and
comments, every header, column name, label and message, the sections and
their order.
"""
import re
import sys

BEGIN = re.compile(r'^<!-- sample: demo begin\b.*-->$')
END = '<!-- sample: demo end -->'
NUMBER = re.compile(
    r'(?<![\w.])[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?:ns|us|ms|s|%)?(?![\w.])')
BAR = re.compile(r'\|[ *]*\|')
WHEN = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ')
KERNEL = re.compile(r'Linux \S+,')


def block(readme):
    """README's lines, and the index of the sample's first and last line."""
    lines = readme.split('\n')
    begin = [i for i, l in enumerate(lines) if BEGIN.match(l)]
    end = [i for i, l in enumerate(lines) if l == END]
    if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
        sys.exit('samples: README has no single "<!-- sample: demo begin'
                 ' -->" ... "' + END + '" block')
    # the block is a fenced code block: its fences stay
    b, e = begin[0] + 1, end[0] - 1
    if lines[b] != '```' or lines[e] != '```':
        sys.exit('samples: the sample block must be one ``` fenced block')
    return lines, b + 1, e


def mask(line):
    if line.startswith('# uname -r: '):
        return '# uname -r: KERNEL'
    if line.startswith('#'):
        return line.rstrip()
    line = BAR.sub('|BAR|', line)
    line = WHEN.sub('TIME', line)
    line = KERNEL.sub('Linux KERNEL,', line)
    line = NUMBER.sub('N', line)
    return ' '.join(line.split())


def collapse(lines):
    """Runs of the same line, then repeated runs of 2.. lines, as one."""
    out = []
    for l in lines:
        if not out or out[-1] != l:
            out.append(l)
    changed = True
    while changed:
        changed = False
        for n in range(2, len(out) // 2 + 1):
            i = 0
            while i + 2 * n <= len(out):
                if out[i:i + n] == out[i + n:i + 2 * n]:
                    del out[i + n:i + 2 * n]
                    changed = True
                else:
                    i += 1
    return out


def shape(text):
    return collapse([mask(l) for l in text.rstrip('\n').split('\n')
                     if l.strip()])


def transcript(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    if '# uname -r: ' not in text:
        sys.exit('samples: %s is not a demo transcript' % path)
    # from the first line the demo prints (the rig may print before it)
    return text[text.index('# uname -r: '):]


def check(readme_path, trans_path):
    with open(readme_path, encoding='utf-8') as f:
        lines, b, e = block(f.read())
    want = shape('\n'.join(lines[b:e]))
    got = shape(transcript(trans_path))
    if want == got:
        print('samples: %s matches %s (%d lines, %d once masked)' %
              (readme_path, trans_path, e - b, len(want)))
        return 0
    import difflib
    print('samples: %s no longer shows what iolat prints (%s);' %
          (readme_path, trans_path))
    print('samples: masked, README (-) against today (+):')
    for l in difflib.unified_diff(want, got, 'README', 'today', n=2,
                                  lineterm=''):
        print(l)
    print('samples: to take today\'s output: tests/docs/samples.py update '
          '%s %s' % (readme_path, trans_path))
    return 1


def update(readme_path, trans_path):
    with open(readme_path, encoding='utf-8') as f:
        lines, b, e = block(f.read())
    new = transcript(trans_path).rstrip('\n').split('\n')
    lines[b:e] = [l.rstrip() for l in new]
    with open(readme_path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines))
    print('samples: %s: the sample is now %s (%d lines)' %
          (readme_path, trans_path, len(new)))
    return 0


def main(argv):
    if len(argv) != 4 or argv[1] not in ('check', 'update'):
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    return (check if argv[1] == 'check' else update)(argv[2], argv[3])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
