#!/bin/sh
# Continuous heap profiles (issue 29, point 2): record --sample-bytes 4096
# --profile-every 0.5s --profile-dir DIR on t-profiles, whose live set and
# totals are known (it prints them). The files appear with their names and
# mode 0600, every one decodes in go tool pprof, the inuse estimates are
# within 15 % of the live set the program kept, the alloc profiles sum to
# within 5 % of what it allocated (and exactly to report --json's
# estimate, the same weights), the labels carry program, pid, host and
# phase=serve, --profile-keep 3 keeps the newest three of each kind, and
# HEAPLENS_PROFILE_DIR stands for --profile-dir.
set -u
B="${HL_BUILD_ROOT:?}"
CLI="$B/src/cli/heaplens-cli"
T="${HL_PROFILES_TARGET:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PY=/usr/bin/python3
export HOME="$WORK" GOCACHE="$WORK/gocache"
n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
eq () { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:      $2" "expected: $3"; fi; }
# within NAME GOT WANT PERCENT
within () {
  if "$PY" -c 'import sys; g, w, p = map(float, sys.argv[1:]); sys.exit(0 if w > 0 and abs(g - w) <= w * p / 100 else 1)' "$2" "$3" "$4"; then
    ok "$1 ($2 against $3, within $4 %)"
  else
    not_ok "$1" "got:      $2" "expected: $3 within $4 %"
  fi
}
# The sums of a profile's two sample types: "OBJECTS BYTES", from -raw.
sums () {
  go tool pprof -raw "$1" 2>/dev/null \
    | awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /^ *[0-9]+ +[0-9]+:/ { o += $1; b += $2 }
           END { printf "%d %d\n", o, b }'
}
truth () { sed -n "s/^$1 //p" "$WORK/truth"; }

if ! command -v go > /dev/null 2>&1; then
  echo "1..0 # SKIP go (golang-go) is not installed"
  exit 0
fi
echo "1..19"

P="$WORK/prof"
"$CLI" record --sample-bytes 4096 --profile-every 0.5s --profile-dir "$P" -o "$WORK/t.hltrace" \
  -- "$T" 3 > "$WORK/truth" 2> "$WORK/record.err"
eq "record runs the program and exits 0" "$?" 0

inuse=$(ls "$P" | grep -c '\.inuse\.pb\.gz$')
alloc=$(ls "$P" | grep -c '\.alloc\.pb\.gz$')
# 3 s every 0.5 s, and the last one at the exit: 6 or 7 (a late start: 5)
eq "5 to 8 inuse profiles in 3 s at 0.5 s" "$([ "$inuse" -ge 5 ] && [ "$inuse" -le 8 ] && echo yes)" yes
eq "one alloc profile per inuse profile" "$alloc" "$inuse"
eq "every file is named heaplens-PROG-PID-TIME.KIND.pb.gz" \
  "$(ls "$P" | grep -cv '^heaplens-t-profiles-[0-9]\{1,\}-[0-9]\{8\}T[0-9]\{6\}\.[0-9]\{3\}Z\.\(inuse\|alloc\)\.pb\.gz$')" 0
eq "every file has mode 0600" "$(stat -c %a "$P"/* | sort -u)" 600
pid=$(ls "$P" | sed -n 's/^heaplens-t-profiles-\([0-9]*\)-.*/\1/p' | sort -u)
eq "one pid in the names" "$(echo "$pid" | wc -l)" 1

# every file decodes, with its two sample types
bad=0
for f in "$P"/*.pb.gz; do
  case "$f" in *.inuse.pb.gz) want="inuse_objects/count inuse_space/bytes[dflt]" ;; *) want="alloc_objects/count alloc_space/bytes[dflt]" ;; esac
  got=$(go tool pprof -raw "$f" 2>&1 | sed -n '/^Samples:/{n;p;}' | sed 's/^ *//')
  [ "$got" = "$want" ] || { bad=$((bad + 1)); echo "# $f: '$got'"; }
done
eq "every profile decodes in go tool pprof with its sample types" "$bad" 0
eq "period is the sampling's mean bytes" \
  "$(go tool pprof -raw "$(ls "$P"/*.inuse.pb.gz | head -1)" 2>&1 | sed -n 's/^Period: //p')" 4096

# the live set: every inuse profile (all are taken in phase=serve, when
# the program holds its live set and at most one block more)
worst_b=0 worst_o=0
for f in "$P"/*.inuse.pb.gz; do
  set -- $(sums "$f")
  worst_b=$("$PY" -c 'import sys; w, g, t = map(float, sys.argv[1:]); print(max(w, abs(g - t) / t * 100))' "$worst_b" "$2" "$(truth live_bytes)")
  worst_o=$("$PY" -c 'import sys; w, g, t = map(float, sys.argv[1:]); print(max(w, abs(g - t) / t * 100))' "$worst_o" "$1" "$(truth live_blocks)")
done
eq "every inuse_space estimate within 15 % of the live bytes (worst ${worst_b} %)" \
  "$("$PY" -c 'import sys; print(float(sys.argv[1]) <= 15)' "$worst_b")" True
eq "every inuse_objects estimate within 15 % of the live blocks (worst ${worst_o} %)" \
  "$("$PY" -c 'import sys; print(float(sys.argv[1]) <= 15)' "$worst_o")" True

# what was allocated: the intervals add up to the run
tot_o=0 tot_b=0
for f in "$P"/*.alloc.pb.gz; do
  set -- $(sums "$f")
  tot_o=$((tot_o + $1)); tot_b=$((tot_b + $2))
done
within "alloc_space over the profiles = the bytes the program allocated" "$tot_b" "$(truth total_bytes)" 5
within "alloc_objects over the profiles = the blocks it allocated" "$tot_o" "$(truth total_blocks)" 5
"$CLI" report --json "$WORK/t.hltrace" > "$WORK/t.json" 2> /dev/null
sel () { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["selection"][sys.argv[2]])' "$WORK/t.json" "$1"; }
eq "alloc_space over the profiles = report --json's estimated bytes" "$tot_b" "$(sel bytes)"
eq "alloc_objects over the profiles = report --json's estimated allocations" "$tot_o" "$(sel allocations)"

# labels (go tool pprof -tags): program, pid, host, the metadata set then
mid=$(ls "$P"/*.inuse.pb.gz | sed -n 3p)
tags=$(go tool pprof -symbolize=none -tags "$mid" 2>&1)
eq "labels: program, pid, host and phase=serve" \
  "$(printf '%s\n' "$tags" | awk '/^ [a-z]+: Total/ { k = $1 } k != "" && /\(.*%\): / { sub(/^.*%\): /, ""); print k $0; k = "" }' | sort | tr '\n' ' ')" \
  "host:$(hostname) phase:serve pid:$pid program:$T "

# --profile-keep 3: the newest three of each kind stay
K="$WORK/keep"
start_ms=$(date +%s%3N)
"$CLI" record --sample-bytes 4096 --profile-every 0.5s --profile-dir "$K" --profile-keep 3 -o "$WORK/k.hltrace" \
  -- "$T" 3 > /dev/null 2>&1
eq "--profile-keep 3: three inuse and three alloc profiles left" \
  "$(ls "$K" | grep -c '\.inuse\.pb\.gz$') $(ls "$K" | grep -c '\.alloc\.pb\.gz$') $(ls -A "$K" | wc -l)" "3 3 6"
oldest=$(ls "$K" | head -1 | sed -n 's/.*-\([0-9]\{8\}T[0-9]\{6\}\)\.\([0-9]\{3\}\)Z\..*/\1 \2/p')
oldest_ms=$("$PY" -c 'import sys, datetime; d = datetime.datetime.strptime(sys.argv[1], "%Y%m%dT%H%M%S").replace(tzinfo=datetime.timezone.utc)
print(int(d.timestamp()) * 1000 + int(sys.argv[2]))' $oldest)
eq "--profile-keep 3: the oldest left is from the last 1.6 s of the 3 s run (the older were removed)" \
  "$([ $((oldest_ms - start_ms)) -ge 1400 ] && echo yes)" yes

# HEAPLENS_PROFILE_DIR stands for --profile-dir
HEAPLENS_PROFILE_DIR="$WORK/env" "$CLI" record --sample-bytes 4096 --profile-every 0.2s -o "$WORK/e.hltrace" \
  -- "$T" 0.5 > /dev/null 2>&1
eq "HEAPLENS_PROFILE_DIR: profiles there, in pairs" \
  "$(n_i=$(ls "$WORK/env" 2> /dev/null | grep -c 'inuse'); n_a=$(ls "$WORK/env" 2> /dev/null | grep -c 'alloc'); [ "$n_i" -ge 2 ] && [ "$n_i" = "$n_a" ] && echo yes)" yes

# bad options are usage errors
"$CLI" record --profile-every 0 --profile-dir "$WORK/x" -- /bin/true > /dev/null 2>&1; s1=$?
"$CLI" record --profile-every 1s -- /bin/true > /dev/null 2>&1; s2=$?
"$CLI" record --no-compress --profile-dir "$WORK/x" -- /bin/true > /dev/null 2>&1; s3=$?
"$CLI" record --profile-dir "$WORK/x" --profile-keep 0 -- /bin/true > /dev/null 2>&1; s4=$?
eq "--profile-every 0, --profile-every without a folder, --no-compress with profiles, --profile-keep 0: status 2" \
  "$s1 $s2 $s3 $s4" "2 2 2 2"
exit $failed
