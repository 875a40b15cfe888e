#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Call cycles between source files, from their objects' symbols.

    tests/cycles.py [--layers TOP,...,BOTTOM] OBJ...

File A uses file B when A's object leaves undefined a symbol that B's
defines (a function called, or data used).  Prints each cycle of uses
between files (each strongly connected group of two or more files, and
one path around it), and exits 1 if there is any.  With --layers, the
folders of the objects from the top layer down: a file that uses one
in a folder above its own is printed too, and fails as a cycle does
(a folder not listed is above them all).  For example, the CLI's
objects: tests/cycles.py --layers cmd,out,analysis,file,session,nl,dev,util,lib
build/user/*.o build/user/*/*.o build/lib/*.o; the module's:
tests/cycles.py build/kmod/6.1/kmod/*.o build/kmod/6.1/lib/*.o.
"""
import os
import subprocess
import sys


def symbols(obj):
    """The global symbols @obj defines, and those it leaves undefined."""
    out = subprocess.run(['nm', obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == 'U':
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in 'TDRBCGSV':
            defined.add(f[2])
    return defined, undefined


def name(obj):
    """A file's name: its folder (kmod, lib, user) and base name."""
    return os.path.join(os.path.basename(os.path.dirname(obj)),
                        os.path.splitext(os.path.basename(obj))[0])


def sccs(graph):
    """Tarjan's strongly connected components of @graph (iterative)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    out.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = n
                n += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(graph[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


def cycle_path(graph, comp):
    """One path around @comp, from its first file back to it."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def layer_uses(graph, why, layers):
    """The uses of a file in a folder above the user's: (user, used, symbol)."""
    rank = {l: i for i, l in enumerate(layers)}
    up = []
    for f, gs in graph.items():
        for g in gs:
            rf = rank.get(os.path.dirname(f), -1)
            rg = rank.get(os.path.dirname(g), -1)
            if rg < rf:
                up.append((f, g, why[(f, g)]))
    return sorted(up)


def main():
    args = sys.argv[1:]
    layers = None
    if args[:1] == ['--layers'] and len(args) > 1:
        layers, args = args[1].split(','), args[2:]
    objs = args
    if not objs:
        sys.exit(__doc__)
    syms = {name(o): symbols(o) for o in objs}
    owner = {}
    for f, (defined, _) in syms.items():
        for s in defined:
            owner[s] = f
    graph = {f: set() for f in syms}
    why = {}
    for f, (_, undefined) in syms.items():
        for s in undefined:
            g = owner.get(s)
            if g and g != f:
                graph[f].add(g)
                why.setdefault((f, g), s)
    cycles = [c for c in sccs(graph) if len(c) > 1]
    for c in cycles:
        path = cycle_path(graph, c)
        steps = ', '.join(f'{a} -> {b} ({why[(a, b)]})'
                          for a, b in zip(path, path[1:]))
        print(f'cycle among {len(c)} files ({" ".join(c)}): {steps}')
    up = layer_uses(graph, why, layers) if layers else []
    for f, g, s in up:
        print(f'{f} uses {g} ({s}), in a layer above its own')
    print(f'{len(syms)} files, {sum(len(v) for v in graph.values())} '
          f'uses between them, {len(cycles)} cycle(s)' +
          (f', {len(up)} use(s) of a layer above' if layers else ''))
    sys.exit(1 if cycles or up else 0)


if __name__ == '__main__':
    main()
