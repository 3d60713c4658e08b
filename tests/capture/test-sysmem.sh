#!/bin/sh
# Where the memory the system sees goes (issue 30 point 2), against the
# program's own figures (t-sysmem):
# - each of the three allocator samples taken after the program's own
#   call of mallinfo2() (after its mark sysmem-K) holds the same arena,
#   in-use, free and mmapped figures (the program's malloc between them
#   takes a chunk from the tcache, which mallinfo2 counts as in use);
# - the bytes of its own anonymous mappings at the end and at their peak
#   (a partial munmap, a hole punched, an mremap that grows) are what
#   /proc/self/smaps gave the program, and each of the three mapping
#   functions is a site with the bytes it still maps; a file mapping and
#   malloc's own mappings (five 200 KiB blocks) are not counted;
# - the program's output (results and errno of calls that fail and
#   succeed), exit status and log lines other than addresses are the same
#   with and without the preload; report's memory line adds up.
# With `record` (compressed trace, costs saved) and the bare preload.
. "$(dirname "$0")/tap-lib.sh"

"$D/t-sysmem" "$WORK/plain.log" > "$WORK/plain.out" 2>&1
eq "without the preload: t-sysmem runs" "$?" "0"

check_trace () {
  what=$1
  tr=$2
  log=$3
  "$HL_CLI" dump "$tr" > "$WORK/$what.dump" 2> "$WORK/$what.dump.err"
  eq "$what: dump reads the trace" "$?" "0"
  eq "$what: allocator samples equal the program's mallinfo2 after each mark" "$(python3 -c "
import re, sys
prog = {}
for l in open(sys.argv[2]):
    f = l.split()
    if f[0] == 'mallinfo':
        prog[f[1]] = tuple(int(x) for x in f[2:6])
mark = None
seen = {}
for l in open(sys.argv[1]):
    m = re.search(r'MARK \"sysmem-(\d)\"', l)
    if m:
        mark = m.group(1)
        continue
    if 'ALLOCATOR' in l and mark is not None and mark not in seen:
        kv = dict(x.split('=') for x in l.split() if '=' in x)
        seen[mark] = tuple(int(kv[k]) for k in ('arena', 'in_use', 'free', 'mmapped_chunks_bytes'))
bad = [(k, prog[k], seen.get(k)) for k in sorted(prog) if seen.get(k) != prog[k]]
print('ok' if len(prog) == 3 and not bad else 'differ: %s' % bad)
" "$WORK/$what.dump" "$log")" "ok"
  "$HL_CLI" report --json "$tr" > "$WORK/$what.json" 2> "$WORK/$what.err"
  eq "$what: report --json reads it" "$?" "0"
  eq "$what: mmap bytes at the end and at the peak are smaps'" "$(python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
want = {l.split()[1]: int(l.split()[2]) for l in open(sys.argv[2]) if l.startswith('smaps')}
m = j['mmap']
print(m['live_bytes'] == want['end'] and m['peak_bytes'] == want['peak'] and 'ok'
      or 'live %d peak %d, smaps %s' % (m['live_bytes'], m['peak_bytes'], want))
" "$WORK/$what.json" "$log")" "ok"
  eq "$what: the sites are the three mapping functions, with what each maps at the end" "$(python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
sites = {}
for s in j['mmap']['sites']:
    fn = s['stack'][0]['function'].split('.')[0] if s['stack'] else '?'
    sites[fn] = (s['live_bytes'], s['peak_bytes'], s['calls'])
page = 4096
want = {'map_big': (768 * 1024, 1024 * 1024, 1), 'map_pages': (2 * page, 3 * page, 1),
        'map_growing': (256 * 1024, 256 * 1024, 1)}
got = {k: sites.get(k) for k in want}
print('ok' if got == want and j['mmap']['regions'] == 4 else 'got %s, regions %d' % (sites, j['mmap']['regions']))
" "$WORK/$what.json")" "ok"
  "$HL_CLI" report --json --top 0 --cost mmap "$tr" > "$WORK/$what.mmap.json" 2> /dev/null
  eq "$what: the mmap cost of each mapping function is what it still maps, the selection's smaps' at the end" "$(python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
want_end = {l.split()[1]: int(l.split()[2]) for l in open(sys.argv[2]) if l.startswith('smaps')}['end']
got = {}
for e in j['top']['mmap']:
    fn = e['stack'][0]['function'].split('.')[0] if e['stack'] else '?'
    got[fn] = got.get(fn, 0) + e['costs']['mmap_bytes']
want = {'map_big': 768 * 1024, 'map_pages': 2 * 4096, 'map_growing': 256 * 1024}
print('ok' if got == want and j['selection']['mmap_bytes'] == want_end else 'got %s, selection %d, smaps %d' % (got, j['selection']['mmap_bytes'], want_end))
" "$WORK/$what.mmap.json" "$log")" "ok"
  eq "$what: the memory split adds up to its RSS and names the allocator's figures" "$(python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['memory']
parts = m['heap_bytes'] + m['allocator_overhead_bytes'] + m['allocator_free_bytes'] + m['mmap_bytes']
ok = m['samples'] >= 4 and m['rss_bytes'] > 0 and (m['other_bytes'] == m['rss_bytes'] - parts if parts <= m['rss_bytes'] else m['other_bytes'] == 0)
print('ok' if ok else m)
" "$WORK/$what.json")" "ok"
  "$HL_CLI" timeline --memory --buckets 20 "$tr" > "$WORK/$what.csv" 2> /dev/null
  eq "$what: timeline --memory's last bucket holds the last allocator sample" "$(python3 -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, last = rows[0], rows[-1]
got = [int(last[head.index(k)]) for k in ('malloc_in_use_bytes', 'malloc_free_bytes', 'mmap_bytes')]
kv = dict(x.split('=') for x in [l for l in open(sys.argv[2]) if 'ALLOCATOR' in l][-1].split() if '=' in x)
want = [int(kv['in_use']) + int(kv['mmapped_chunks_bytes']), int(kv['free']), int(kv['mmap'])]
print('ok' if got == want and len(rows) == 21 else 'got %s want %s' % (got, want))
" "$WORK/$what.csv" "$WORK/$what.dump")" "ok"
  "$HL_CLI" report "$tr" > "$WORK/$what.txt" 2>&1
  check "$what: report's text has the memory and mmap lines" \
    grep -q "^  memory:           RSS .* heap .*, malloc's overhead .*, free inside malloc's arenas .* (fragmentation), mmap 1.01 MiB, other " "$WORK/$what.txt"
  check "$what: report lists the mapping sites" grep -q "at map_big" "$WORK/$what.txt"
}

HEAPLENS_RECORD_COSTS_MIN=0 "$HL_CLI" record --costs -o "$WORK/r.hltrace" -- "$D/t-sysmem" "$WORK/r.log" > "$WORK/r.out" 2> /dev/null
eq "record: exit status" "$?" "0"
eq "record: the program's output is the same" "$(cmp "$WORK/r.out" "$WORK/plain.out" && echo same)" "same"
check_trace record "$WORK/r.hltrace" "$WORK/r.log"

under_preload "$WORK/p.hltrace" "$D/t-sysmem" "$WORK/p.log" > "$WORK/p.out" 2> /dev/null
eq "preload: exit status" "$?" "0"
eq "preload: the program's output is the same" "$(cmp "$WORK/p.out" "$WORK/plain.out" && echo same)" "same"
eq "preload: the kernel's mapped bytes are those of the plain run" "$(grep smaps "$WORK/p.log")" "$(grep smaps "$WORK/plain.log")"
check_trace preload "$WORK/p.hltrace" "$WORK/p.log"

# the session's header words (docs/shm-layout.md §3) at the end: the
# mappings as smaps gave them at the end and at the peak, and the last
# allocator sample (at the clean exit) the trace's last ALLOCATOR
uid=$(id -u)
HEAPLENS_KEEP_SESSION=1 HEAPLENS_OUTPUT=$WORK/k.hltrace LD_PRELOAD=$HL_PRELOAD "$D/t-sysmem" "$WORK/k.log" > /dev/null 2>&1 &
pid=$!
wait $pid
seg=$(basename "$(ls /dev/shm/heaplens-$uid-$pid-* 2> /dev/null | head -n 1)")
"$D/hl-shm-summary" "$seg" > "$WORK/k.sum" 2>&1
"$HL_CLI" top --once "$seg" > "$WORK/k.top" 2>&1
rm -f "/dev/shm/$seg"
check "top: the malloc line of the last sample" grep -q "^malloc     in use .*   free inside its arenas .*   its own mappings 0 B   (at " "$WORK/k.top"
check "top: the mappings' line, 4 regions" grep -q "^mmap       1.01 MiB in 4 regions   peak 1.26 MiB$" "$WORK/k.top"
eq "session: mmap bytes, peak and regions" \
  "$(field "$WORK/k.sum" mmap_bytes) $(field "$WORK/k.sum" peak_mmap_bytes) $(field "$WORK/k.sum" mmap_regions)" \
  "$(sed -n 's/^smaps end //p' "$WORK/k.log") $(sed -n 's/^smaps peak //p' "$WORK/k.log") 4"
"$HL_CLI" dump "$WORK/k.hltrace" 2> /dev/null | grep ALLOCATOR | tail -n 1 \
  | sed 's/.* arena=\([0-9]*\) in_use=\([0-9]*\) free=\([0-9]*\) mmapped_chunks_bytes=\([0-9]*\) .*/\1 \2 \3 \4/' > "$WORK/k.last"
eq "session: mallinfo words are the last allocator sample's" "$(field "$WORK/k.sum" malloc)" "$(cat "$WORK/k.last")"
check "session: the sample's time is set" test "$(field "$WORK/k.sum" malloc_sample_ns)" -gt 0

# HEAPLENS_NO_COSTS_PACKET: the events give the same mmap and memory keys
# as the saved costs
HEAPLENS_NO_COSTS_PACKET=1 "$HL_CLI" report --json "$WORK/r.hltrace" > "$WORK/r-events.json" 2> /dev/null
eq "record: the saved costs and the events give the same mmap and memory" "$(python3 -c "
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print('ok' if a['mmap'] == b['mmap'] and a['memory'] == b['memory'] else 'differ')
" "$WORK/record.json" "$WORK/r-events.json")" "ok"
finish
