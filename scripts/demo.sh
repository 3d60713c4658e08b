#!/bin/sh
# The main job, from a clean clone on Debian 12: installs what is missing,
# builds, and records the bundled demo program.
#   - With a display: the Heaplens application records the demo live.
#   - Without one: `heaplens-cli record` records it and `heaplens-cli report`
#     prints what it found.
#   scripts/demo.sh [--seconds N]     (the demo runs 10 s by default)
set -eu
cd "$(dirname "$0")/.."
builddir=${HL_BUILDDIR:-build}
seconds=10
if [ "${1:-}" = "--seconds" ] && [ -n "${2:-}" ]; then
	seconds=$2
fi

scripts/deps.sh

if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" >"$builddir.setup.log" 2>&1 || {
		cat "$builddir.setup.log"; exit 1; }
fi
ninja -C "$builddir" >"$builddir.build.log" 2>&1 || {
	tail -n 40 "$builddir.build.log"; exit 1; }

cli="$builddir/src/cli/heaplens-cli"
app="$builddir/src/app/heaplens"
demo="$builddir/examples/heaplens-demo"

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
	echo "heaplens: recording the demo live in the application"
	# the uninstalled application keeps its window state with the build's schema
	export GSETTINGS_SCHEMA_DIR="$builddir/data"
	exec "$app" --record -- "$demo" --seconds "$seconds"
fi

echo "heaplens: no display: recording with heaplens-cli and printing the report instead"
trace="$builddir/heaplens-demo.hltrace"
"$cli" record --output "$trace" -- "$demo" --seconds "$seconds"
exec "$cli" report "$trace"
