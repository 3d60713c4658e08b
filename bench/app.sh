#!/bin/sh
# Benchmarks of the application (issue 7). Not tests: prints measured numbers.
#   bench/app.sh [BUILD_DIR] [PAIRS]
# 1. Flame graph redraw at 100,000 and 1,000,000 nodes (target ≤ 16 ms), by
#    the widget-free drawing function on an image surface.
# 2. The application on a recording of bench/churn.c with PAIRS malloc/free
#    pairs (default 10,000,000 = 20 M events), under Xvfb, with its own
#    timestamps (HEAPLENS_DEBUG=timing): open to views shown (target ≤ 2 s),
#    and two time-range drags on the timeline with xdotool (refilter of
#    every view, target ≤ 100 ms).
set -eu
build=$(realpath "${1:-build}")
pairs=${2:-10000000}
"$build/tests/app/bench-flame-draw" 100000
"$build/tests/app/bench-flame-draw" 1000000

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -g -fno-omit-frame-pointer "$(dirname "$0")/churn.c" -o "$tmp/churn"
"$build/src/cli/heaplens-cli" record --output "$tmp/churn.hltrace" -- "$tmp/churn" "$pairs" >/dev/null 2>&1
ls -l "$tmp/churn.hltrace" | awk '{ printf "trace: %s bytes\n", $5 }'

export GDK_BACKEND=x11 GTK_A11Y=none GSETTINGS_BACKEND=memory
export GSETTINGS_SCHEMA_DIR="$build/data" HEAPLENS_DEBUG=timing HOME="$tmp"
unset WAYLAND_DISPLAY DEBUGINFOD_URLS
xvfb-run -a -s '-screen 0 1400x900x24' sh -c '
	"$0" "$1" >"$2/app.log" 2>&1 & pid=$!
	for i in $(seq 120); do grep -q "views shown" "$2/app.log" && break; sleep 0.5; done
	sleep 1
	# The timeline is at the top of the window (no banner for churn).
	xdotool mousemove 200 150 mousedown 1 mousemove 300 150 mousemove 500 150 mouseup 1
	sleep 3
	xdotool mousemove 300 150 mousedown 1 mousemove 400 150 mousemove 700 150 mouseup 1
	sleep 3
	kill $pid' "$build/src/app/heaplens" "$tmp/churn.hltrace" "$tmp"
grep -E "open to|refilter|views refreshed|analysis" "$tmp/app.log"
