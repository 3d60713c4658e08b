#!/bin/sh
# bench/profiles-rss.sh BUILD [SECONDS] — issue 29 point 2: does the memory
# Heaplens adds stay flat while continuous heap profiles are written? Runs
# tests/e2e/t-profiles (2048 blocks live, about 20 MB/s of churn) for
# SECONDS (default 600) under `record --sample-bytes N --profile-every T
# --profile-dir`, and the same program without Heaplens beside it; prints
# the RSS (VmRSS, KiB) of record, of the recorded program and of the plain
# one every 10 s, then the means of the first and the last minute.
# SAMPLE_BYTES (default 4096: far more samples than the 524288 of
# --sample, to make any growth show) and EVERY (default 60s) change the
# options; PROFILES=0 records without profiles (the control). Not part of
# the test suite.
set -eu
build=$(cd "${1:?usage: bench/profiles-rss.sh BUILD [SECONDS]}" && pwd)
secs=${2:-600}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'kill $plain $rec 2> /dev/null || true; rm -rf "$tmp"' EXIT
cc -O1 -fno-omit-frame-pointer -I "$here/../include" -o "$tmp/t-profiles" "$here/../tests/e2e/t-profiles.c"
rss () { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2> /dev/null || echo 0; }
if [ "${PROFILES:-1}" = 0 ]; then
  set -- --sample-bytes "${SAMPLE_BYTES:-4096}"
else
  set -- --sample-bytes "${SAMPLE_BYTES:-4096}" --profile-every "${EVERY:-60s}" --profile-dir "$tmp/prof"
fi
"$build/src/cli/heaplens-cli" record "$@" -o "$tmp/t.hltrace" -- "$tmp/t-profiles" "$secs" > /dev/null 2> "$tmp/record.err" &
rec=$!
"$tmp/t-profiles" "$secs" > /dev/null &
plain=$!
sleep 1
target=$(pgrep -P "$rec" | head -1)
echo "t_s record_kib target_kib plain_kib profiles trace_kib"
t=0
while kill -0 "$target" 2> /dev/null; do
  echo "$t $(rss "$rec") $(rss "$target") $(rss "$plain") $(ls "$tmp/prof" 2> /dev/null | wc -l) $(($(stat -c %s "$tmp/t.hltrace" 2> /dev/null || echo 0) / 1024))"
  sleep 10
  t=$((t + 10))
done | tee "$tmp/rss"
wait "$rec" || true
awk -v last="$((secs - 60))" 'NR > 1 && $1 >= 0 && $1 < 60 { n1++; r1 += $2; g1 += $3; p1 += $4 }
     NR > 1 && $1 >= last { n2++; r2 += $2; g2 += $3; p2 += $4 }
     END { printf "first minute: record %d KiB, target %d KiB, plain %d KiB\n", r1 / n1, g1 / n1, p1 / n1;
           printf "last minute:  record %d KiB, target %d KiB, plain %d KiB\n", r2 / n2, g2 / n2, p2 / n2 }' "$tmp/rss"
cat "$tmp/record.err"
