#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A CPU hot-added to a running guest, through QEMU's QMP socket.

    qmp.py SOCKET cpu-add

Adds the first hotpluggable vCPU that is not plugged (query-hotpluggable-
cpus, then device_add with its type and socket/core/thread), as a
hypervisor adds one to a VM declared with more possible CPUs than it
runs.  Prints the CPU's properties; exits 1 with QEMU's error otherwise.
tests/guest/run calls it when a guest test asks (IOLAT_GUEST_STATE/cpu-add).
"""
import json
import socket
import sys


def command(f, sock, name, args=None):
    """One QMP command's return value, past any event before it."""
    msg = {'execute': name}
    if args:
        msg['arguments'] = args
    sock.sendall(json.dumps(msg).encode() + b'\n')
    while True:
        reply = json.loads(f.readline())
        if 'error' in reply:
            raise RuntimeError('%s: %s' % (name, reply['error'].get('desc')))
        if 'return' in reply:
            return reply['return']


def main():
    if len(sys.argv) != 3 or sys.argv[2] != 'cpu-add':
        sys.exit('usage: qmp.py SOCKET cpu-add')
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(60)
    sock.connect(sys.argv[1])
    f = sock.makefile('r')
    json.loads(f.readline())            # the greeting
    try:
        command(f, sock, 'qmp_capabilities')
        slots = command(f, sock, 'query-hotpluggable-cpus')
        free = [c for c in slots if 'qom-path' not in c]
        if not free:
            raise RuntimeError('no hotpluggable CPU left (-smp maxcpus=)')
        # the lowest ids first: QEMU lists the slots from the last
        free.sort(key=lambda c: sorted(c['props'].items()))
        cpu = free[0]
        args = dict(cpu['props'], driver=cpu['type'],
                    id='hotcpu%d' % (len(slots) - len(free)))
        command(f, sock, 'device_add', args)
    except RuntimeError as e:
        print('qmp: %s' % e)
        sys.exit(1)
    print('qmp: added %s %s' % (cpu['type'], json.dumps(cpu['props'])))


if __name__ == '__main__':
    main()
