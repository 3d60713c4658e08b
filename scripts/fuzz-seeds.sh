#!/bin/sh
# scripts/fuzz-seeds.sh [BUILD_DIR] — records the costs-packet fuzz seeds
# again (tests/fuzz/corpus/costs-packet/t-*): three small test programs
# under `heaplens-cli record --no-costs`, each trace then given a COSTS
# packet of either form (stacks inline, stacks by reference) and its
# payload alone, by tests/fuzz/costs-seed. Run it when the trace format or
# the costs packet changes: the test fuzz-costs-seeds fails while a seed is
# one the reader no longer accepts.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
ninja -C "$build" src/cli/heaplens-cli src/capture/libheaplens-preload.so tests/fuzz/costs-seed \
  tests/capture/t-churn tests/capture/t-cxx tests/capture/t-tree > /dev/null
out="$root/tests/fuzz/corpus/costs-packet"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name, then the program and its arguments (small runs: seeds stay a few KiB)
seed () {
  name=$1
  shift
  "$build/src/cli/heaplens-cli" record --no-costs -o "$tmp/$name.hltrace" -- "$@" > /dev/null 2>&1
  for form in inline reference; do
    "$build/tests/fuzz/costs-seed" --write "$tmp/$name.hltrace" "$form" \
      "$out/$name-$form.hltrace" "$out/$name-$form.payload"
    # a payload longer than scripts/fuzz.sh's -max_len is not kept
    [ "$(stat -c %s "$out/$name-$form.payload")" -le 65536 ] || rm "$out/$name-$form.payload"
  done
}
seed t-churn "$build/tests/capture/t-churn" 300
seed t-cxx "$build/tests/capture/t-cxx"
seed t-tree "$build/tests/capture/t-tree"
ls -l "$out"/t-* >&2
