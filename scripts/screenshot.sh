#!/bin/sh
# Screenshots of the application under Xvfb, one per view, light and dark.
#   scripts/screenshot.sh TRACE.hltrace [BUILD_DIR] [OUT_DIR]
# Starts `heaplens TRACE` on a private X server, switches views with the
# keyboard shortcuts (Ctrl+1…4, through xdotool) and saves small PNGs to
# OUT_DIR (docs/screenshots by default). Look at every one of them.
set -eu
trace=$(realpath "$1")
build=$(realpath "${2:-build}")
out=$(realpath -m "${3:-docs/screenshots}")
mkdir -p "$out"

export GDK_BACKEND=x11 GTK_A11Y=none GSETTINGS_BACKEND=memory
export GSETTINGS_SCHEMA_DIR="$build/data"
unset WAYLAND_DISPLAY DEBUGINFOD_URLS
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config"

shoot() {
	# $1 = name, $2 = extra environment for the style (light/dark)
	xvfb-run -a -s '-screen 0 1400x900x24' sh -c '
		"$0" "$1" & pid=$!
		for i in $(seq 100); do
			xdotool search --name "hltrace" >/dev/null 2>&1 && break
			sleep 0.1
		done
		sleep 3
		win=$(xdotool search --name "hltrace" | head -1)
		for view in 1 2 3 4; do
			xdotool windowactivate --sync "$win" 2>/dev/null || true
			xdotool key --window "$win" "ctrl+$view"
			sleep 1.5
			import -window "$win" "$2/$3-view$view.png"
		done
		kill $pid' "$build/src/app/heaplens" "$trace" "$out" "$1"
}

shoot light
# libadwaita's debug variable: our default scheme follows it.
ADW_DEBUG_COLOR_SCHEME=prefer-dark shoot dark
for f in "$out"/light-view*.png "$out"/dark-view*.png; do
	convert "$f" -resize 1000x -strip -colors 256 "PNG8:$f"
done
ls -l "$out"
