#!/usr/bin/env python3
"""Prints the headers of FOLDER that HEADER includes, directly or through
another header of FOLDER, HEADER included: the public API an umbrella
header makes."""
import os, re, sys

folder, top = sys.argv[1], sys.argv[2]
inc = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
present = {n for n in os.listdir(folder) if n.endswith('.h')}
seen, todo = set(), [top]
while todo:
    h = todo.pop()
    if h in seen or h not in present:
        continue
    seen.add(h)
    with open(os.path.join(folder, h), encoding='utf-8', errors='replace') as f:
        for line in f:
            m = inc.match(line)
            if m:
                todo.append(os.path.basename(m.group(1)))
print('\n'.join(sorted(seen)))
