#!/bin/sh
# scripts/fuzz.sh TARGET SECONDS — runs a libFuzzer target of tests/fuzz
# (trace-reader, shm-reader, costs-packet, elf-probe, heaptrack-import) for SECONDS, starting from the committed corpus
# tests/fuzz/corpus/TARGET. New inputs go to a scratch directory (printed at
# the end); crashes are written to ./fuzz-TARGET-crash-* and make the
# script exit non-zero. Builds build-fuzz (clang, -Dfuzzing=true) if needed.
# Not part of CI: the fuzz-regression test suite replays the corpus there.
set -eu

target=${1:-}
seconds=${2:-60}
case "$target" in
  trace-reader|shm-reader|costs-packet|elf-probe|heaptrack-import) ;;
  *) echo "usage: scripts/fuzz.sh trace-reader|shm-reader|costs-packet|elf-probe|heaptrack-import SECONDS" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang meson setup "$build" "$root" -Dfuzzing=true -Dapp=disabled -Dwerror=false \
    -Db_lundef=false >/dev/null
fi
ninja -C "$build" -j2 "tests/fuzz/fuzz-$target" >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/heaplens-fuzz-$target.XXXXXX")
max_len=65536
[ "$target" = shm-reader ] && max_len=4096
echo "fuzzing $target for ${seconds}s; new corpus in $work" >&2
set +e
"$build/tests/fuzz/fuzz-$target" -max_total_time="$seconds" -max_len="$max_len" \
  -print_final_stats=1 -artifact_prefix="$root/fuzz-$target-crash-" \
  "$work" "$root/tests/fuzz/corpus/$target" 2>"$work.log"
status=$?
set -e
grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|cov:|ERROR|SUMMARY" "$work.log" | tail -n 8 >&2
echo "exit status $status; full log: $work.log" >&2
exit $status
