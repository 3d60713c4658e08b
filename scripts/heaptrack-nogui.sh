#!/bin/sh
# scripts/heaptrack-nogui.sh ARGS... — runs the installed heaptrack with
# ARGS, without the heaptrack_gui it opens at the end of every recording
# when the Debian heaptrack-gui package is installed (under Xvfb that window
# never closes: a test or a benchmark would wait for ever). The heaptrack
# script looks for heaptrack_gui beside itself and for its libraries in
# ../lib/heaptrack, so a copy of it in a directory of our own, with lib
# linked to the real one, records exactly as heaptrack does and opens
# nothing.
set -eu
real=$(command -v heaptrack) || { echo "heaptrack-nogui: heaptrack is not installed" >&2; exit 127; }
real=$(readlink -f "$real")
dir=$(mktemp -d "${TMPDIR:-/tmp}/heaplens-heaptrack-nogui.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
mkdir "$dir/bin"
cp "$real" "$dir/bin/heaptrack"
ln -s "$(dirname "$real")/../lib" "$dir/lib"
status=0
"$dir/bin/heaptrack" "$@" || status=$?
exit "$status"
