#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Each guest test's duration, from the guest's kernel log.

    tests/guest/durations.py KERNEL_LOG [--slowest N]

KERNEL_LOG is what suite.sh kept of /dev/kmsg ("PRI,SEQ,USEC,FLAGS;TEXT"
lines), in which it copies each test's "#  RUN" line and its result
("ok N ...", "not ok N ...") as "iolat SUITE: ...".  Prints a line per
test, "SECONDS SUITE FIXTURE.TEST RESULT", in the order they ran; a test
that never reported its result is "unfinished", timed to the log's last
line.  With --slowest N: only "SUITE.TEST SECONDSs" of the N slowest, on
one line, comma-separated (for check.sh's results table).
"""
import re
import sys

KMSG = re.compile(r'^\d+,\d+,(\d+),[^;]*;(.*)$')
LINE = re.compile(r'^iolat ([a-z_]+): (.*)$')
RUN = re.compile(r'^#\s+RUN\s+(\S+)')
RESULT = re.compile(r'^(not ok|ok) \d+')


def durations(path):
    tests, running, last = [], {}, 0
    with open(path, errors='replace') as f:
        for raw in f:
            m = KMSG.match(raw.rstrip('\n'))
            if not m:
                continue
            usec = int(m.group(1))
            last = usec
            m = LINE.match(m.group(2))
            if not m:
                continue
            suite, text = m.groups()
            r = RUN.match(text)
            if r:
                running[suite] = (r.group(1), usec)
                continue
            r = RESULT.match(text)
            if r and suite in running:
                name, t0 = running.pop(suite)
                result = 'skip' if '# SKIP' in text else \
                    ('fail' if r.group(1) == 'not ok' else 'pass')
                tests.append(((usec - t0) / 1e6, suite, name, result))
    for suite, (name, t0) in running.items():
        tests.append(((last - t0) / 1e6, suite, name, 'unfinished'))
    return tests


def main():
    args = sys.argv[1:]
    slowest = None
    if len(args) == 3 and args[1] == '--slowest':
        slowest = int(args[2])
        args = args[:1]
    if len(args) != 1:
        sys.exit(__doc__)
    tests = durations(args[0])
    if slowest is not None:
        top = sorted(tests, key=lambda t: -t[0])[:slowest]
        print(', '.join(f'{s}.{n.split(".", 1)[-1]} {d:.0f}s'
                        for d, s, n, _ in top))
        return
    for d, s, n, r in tests:
        print(f'{d:8.1f} {s} {n} {r}')


if __name__ == '__main__':
    main()
