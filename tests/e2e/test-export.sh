#!/bin/sh
# heaplens-cli export (issue 29, point 3): go tool pprof reads the pprof
# export of the demo's recording and its total, per sample type, equals
# report --json's selection; -traces reads it too; the speedscope file
# validates against speedscope's published schema (vendored, see
# speedscope/README.md) and each profile's weights sum to the selection;
# the collapsed stacks sum to the bytes; a compressed and a filtered
# recording's pprof, and a sampled one's (its estimates, period = N), total
# what report --json says.
set -u
B="${HL_BUILD_ROOT:?}"
S="${HL_SOURCE_ROOT:?}"
CLI="$B/src/cli/heaplens-cli"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PY=/usr/bin/python3
export HOME="$WORK" GOCACHE="$WORK/gocache"
n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
eq () { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:      $2" "expected: $3"; fi; }

echo "1..24"
"$CLI" record --no-compress -o "$WORK/d.hltrace" -- "$B/examples/heaplens-demo" --seconds 0.3 > /dev/null 2>&1
"$CLI" report --json "$WORK/d.hltrace" > "$WORK/d.json"
sel () { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["selection"][sys.argv[2]])' "$WORK/d.json" "$1"; }
for f in pprof speedscope collapsed svg; do
  "$CLI" export --format "$f" "$WORK/d.hltrace" -o "$WORK/d.$f" > /dev/null 2>&1
done
eq "every format exported" "$(ls "$WORK"/d.pprof "$WORK"/d.speedscope "$WORK"/d.collapsed "$WORK"/d.svg 2>/dev/null | wc -l)" 4

# pprof: the total go tool pprof -top prints, in raw units, per sample type
for pair in alloc_objects:allocations alloc_space:bytes temp_objects:temporary peak_inuse_space:peak_bytes \
            inuse_space:live_bytes leaked_objects:leaked_blocks leaked_space:leaked_bytes \
            long_lived_space:long_lived_bytes mmap_space:mmap_bytes; do
  t=${pair%%:*}; k=${pair#*:}
  got=$(go tool pprof -symbolize=none -sample_index="$t" -unit=byte -top "$WORK/d.pprof" 2>&1 \
        | sed -n 's/.* of \([0-9]*\)[a-zB]* total.*/\1/p' | head -1)
  eq "pprof -top $t total = report --json selection.$k" "$got" "$(sel "$k")"
done
# -traces: one block per sample; the sum of the alloc_space values is the bytes
got=$(go tool pprof -symbolize=none -sample_index=alloc_space -unit=byte -traces "$WORK/d.pprof" 2>&1 \
      | awk '/^-+\+-+$/ { want = 1; next } want && $1 ~ /^[0-9]+B?$/ { v = $1; sub(/B$/, "", v); s += v; want = 0 } END { print s + 0 }')
eq "pprof -traces: the samples' alloc_space sums to the bytes" "$got" "$(sel bytes)"
eq "pprof carries the build-id of the demo" \
  "$(go tool pprof -symbolize=none -top "$WORK/d.pprof" 2>&1 | grep -c '^Build ID: [0-9a-f]\{8,\}')" 1

# speedscope: the published schema, and the weights
eq "speedscope validates against the schema" "$("$PY" -c 'import json,sys,jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))); print("valid")' \
  "$WORK/d.speedscope" "$S/tests/e2e/speedscope/file-format-schema.json" 2>&1 | tail -1)" valid
eq "speedscope: each profile's weights sum to the selection" "$("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1])); print(" ".join("%s=%d" % (p["name"], sum(p["weights"])) for p in d["profiles"]))' "$WORK/d.speedscope")" \
  "bytes=$(sel bytes) allocations=$(sel allocations) temporary=$(sel temporary) peak=$(sel peak_bytes) live=$(sel live_bytes) leaked=$(sel leaked_bytes) long-lived=$(sel long_lived_bytes) mmap=$(sel mmap_bytes)"
eq "collapsed stacks sum to the bytes" "$(awk '{ s += $NF } END { print s }' "$WORK/d.collapsed")" "$(sel bytes)"
eq "svg is an SVG" "$(grep -c '^<svg ' "$WORK/d.svg")" 1
"$CLI" export --format nope "$WORK/d.hltrace" -o "$WORK/x" > /dev/null 2>&1
eq "an unknown format is a usage error" "$?" 2

# a filtered export (the report's filters) and a compressed recording (the
# default of record): each total equals report --json's selection for the
# same filter and file
"$CLI" record -o "$WORK/c.hltrace" -- "$B/examples/heaplens-demo" --seconds 0.3 > /dev/null 2>&1
eq "record compressed its trace (smaller than the plain one)" \
  "$([ "$(wc -c < "$WORK/c.hltrace")" -lt "$(wc -c < "$WORK/d.hltrace")" ] && echo yes)" yes
for spec in "c:" "c:--from 50ms --to 200ms" "d:--from 50ms --to 200ms"; do
  f=${spec%%:*}; args=${spec#*:}
  # shellcheck disable=SC2086
  "$CLI" report --json $args "$WORK/$f.hltrace" > "$WORK/f.json"
  # shellcheck disable=SC2086
  "$CLI" export --format pprof $args "$WORK/$f.hltrace" -o "$WORK/f.pprof" > /dev/null 2>&1
  want=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["selection"]["bytes"])' "$WORK/f.json")
  got=$(go tool pprof -symbolize=none -sample_index=alloc_space -unit=byte -top "$WORK/f.pprof" 2>&1 \
        | sed -n 's/.* of \([0-9]*\)[a-zB]* total.*/\1/p' | head -1)
  eq "pprof of $f.hltrace ${args:-whole}: alloc_space total = report's selection bytes" "$got" "$want"
done
# a sampled recording: the estimates, with period = N, the same as report's
"$CLI" record --sample-bytes 4096 -o "$WORK/s.hltrace" -- "$B/examples/heaplens-demo" --seconds 0.3 > /dev/null 2>&1
"$CLI" report --json "$WORK/s.hltrace" > "$WORK/s.json"
"$CLI" export --format pprof "$WORK/s.hltrace" -o "$WORK/s.pprof" > /dev/null 2>&1
for pair in alloc_objects:allocations alloc_space:bytes; do
  t=${pair%%:*}; k=${pair#*:}
  want=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["selection"][sys.argv[2]])' "$WORK/s.json" "$k")
  got=$(go tool pprof -symbolize=none -sample_index="$t" -unit=byte -top "$WORK/s.pprof" 2>&1 \
        | sed -n 's/.* of \([0-9]*\)[a-zB]* total.*/\1/p' | head -1)
  eq "sampled pprof: $t total = report's estimated $k" "$got" "$want"
done
eq "sampled pprof: period is the sampling's mean bytes" \
  "$(go tool pprof -symbolize=none -raw "$WORK/s.pprof" 2>&1 | sed -n 's/^Period: //p' | head -1)" 4096
exit $failed
