#!/usr/bin/env python3
"""Prints the include circles among the files of one layer (src/LAYER).

A file's unit is its name without extension and without a "-private"
suffix (hl-foo.c, hl-foo.h and hl-foo-private.h are one unit: an object
and its private header). An object split across files (GNOME Text
Editor's way) is one unit too: a file hl-foo-*.c or .h that includes
hl-foo-private.h, or that hl-foo-private.h includes, belongs to hl-foo,
with its same-named partner (hl-foo-bar.c and hl-foo-bar.h). Unit A
depends on unit B when a file of A includes one of B's headers. A
circle is a strongly connected component of more than one unit. Exit
status 1 when there is one."""
import os, re, sys

def unit_of(name):
    u = os.path.splitext(name)[0]
    return u[:-len('-private')] if u.endswith('-private') else u

def units(folder):
    deps = {}
    headers = {}
    for root, _, names in os.walk(folder):
        for n in names:
            if n.endswith(('.c', '.h')):
                if n.endswith('.h'):
                    headers[n] = unit_of(n)
    inc = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
    for root, _, names in os.walk(folder):
        for n in names:
            if not n.endswith(('.c', '.h')):
                continue
            u = unit_of(n)
            deps.setdefault(u, set())
            with open(os.path.join(root, n), encoding='utf-8', errors='replace') as f:
                for line in f:
                    m = inc.match(line)
                    if m:
                        h = os.path.basename(m.group(1))
                        if h in headers and headers[h] != u:
                            deps[u].add(headers[h])
    return deps

def merge_split_objects(folder, deps):
    """Folds the files of an object split across files into its unit."""
    inc = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
    files = {}
    for root, _, names in os.walk(folder):
        for n in names:
            if n.endswith(('.c', '.h')):
                with open(os.path.join(root, n), encoding='utf-8', errors='replace') as f:
                    files[n] = {os.path.basename(m.group(1)) for m in map(inc.match, f) if m}
    owner = {}
    for p in files:
        if not p.endswith('-private.h'):
            continue
        obj = p[:-len('-private.h')]
        for n, included in files.items():
            stem = os.path.splitext(n)[0]
            if stem.startswith(obj + '-') and not stem.endswith('-private') and (p in included or n in files[p]):
                owner[stem] = obj
    if not owner:
        return deps
    merged = {}
    for u, ds in deps.items():
        mu = owner.get(u, u)
        merged.setdefault(mu, set()).update(owner.get(d, d) for d in ds)
    for u in merged:
        merged[u].discard(u)
    return merged

def circles(deps):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in sorted(deps.get(v, ())):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return out

found = circles(merge_split_objects(sys.argv[1], units(sys.argv[1])))
for c in found:
    print(' <-> '.join(c))
sys.exit(1 if found else 0)
