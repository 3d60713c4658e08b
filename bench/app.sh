#!/bin/sh
# Benchmarks of the application (issue 7). Not tests: prints measured numbers.
#   bench/app.sh [BUILD_DIR]
# - flame graph redraw at 100,000 nodes (target ≤ 16 ms), by the widget-free
#   drawing function on an image surface;
# - the application's own timestamps (HEAPLENS_DEBUG=timing) when it opens
#   a trace: set HL_BENCH_TRACE=FILE.hltrace to measure open-to-drawn.
set -eu
build=${1:-build}
"$build/tests/app/bench-flame-draw" 100000
"$build/tests/app/bench-flame-draw" 1000000

if [ -n "${HL_BENCH_TRACE:-}" ]; then
	export GDK_BACKEND=x11 GTK_A11Y=none GSETTINGS_BACKEND=memory
	export GSETTINGS_SCHEMA_DIR="$build/data" HEAPLENS_DEBUG=timing
	xvfb-run -a -s '-screen 0 1400x900x24' sh -c "
		timeout 20 '$build/src/app/heaplens' '$HL_BENCH_TRACE' 2>&1 &
		sleep 8; kill \$! 2>/dev/null" | grep 'timing' || true
fi
