#!/bin/bash
# bench/live-drops.sh [BUILD_DIR] [RUNS] — live-table drops per run (the
# "N dropped" of heaplens-cli record's end line, children included) for the
# python3 workload (PYTHONMALLOC=malloc), sqlite3 on bench/capture.sh's SQL
# script, the allocation churn (bench/churn.c) and a program with 32
# threads, hence many glibc arenas (bench/live-arenas.c). Zero is the
# target for each (the default table: 16 M entries). Not a test.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
runs=${2:-5}
cli=$build/src/cli/heaplens-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$cli" ] || { echo "no heaplens-cli in $build" >&2; exit 1; }
export PYTHONMALLOC=malloc

gcc -O2 -g -fno-omit-frame-pointer "$here/churn.c" -o "$tmp/churn"
gcc -O2 -g -fno-omit-frame-pointer -pthread "$here/live-arenas.c" -o "$tmp/arenas"
python3 "$here/sqlite-work.py" > "$tmp/work.sql"

cmd_of () {
  case $1 in
    python) echo "/usr/bin/python3 $here/workload.py" ;;
    sqlite) echo "sqlite3 $tmp/db.sqlite -init $tmp/work.sql .quit" ;;
    churn) echo "$tmp/churn 2000000" ;;
    arenas) echo "$tmp/arenas 32 100000 300000 48" ;;
  esac
}

echo "live-table drops per run, $runs runs ($build)"
for w in ${WORKLOADS:-python sqlite churn arenas}; do
  line=""
  for r in $(seq "$runs"); do
    rm -f "$tmp/db.sqlite" "$tmp"/t.hltrace*
    # shellcheck disable=SC2046
    "$cli" record --no-compress -o "$tmp/t.hltrace" -- $(cmd_of "$w") > /dev/null 2> "$tmp/err" < /dev/null || true
    n=$(sed -n 's/^heaplens: .* \([0-9][0-9]*\) dropped.*/\1/p' "$tmp/err" | tail -1)
    line="$line ${n:-?}"
  done
  printf '%-8s%s\n' "$w" "$line"
done
