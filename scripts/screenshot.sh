#!/bin/sh
# Screenshots of the application under Xvfb, light and dark.
#   scripts/screenshot.sh TRACE.hltrace [BUILD_DIR] [OUT_DIR] [TRACE_B.hltrace]
# Starts `heaplens TRACE` on a private X server (with openbox, when it is
# installed, so that dialogs are placed over their window as on a desktop),
# and saves to OUT_DIR (docs/screenshots by default):
#   STYLE-start.png            the start page
#   STYLE-view1..4.png         summary, flame graph, call tree, allocations (1400×900)
#   STYLE-narrow-view1..4.png  the same at 800×600
#   STYLE-by-site.png          the timeline's heap by call site (By Call Site)
#   STYLE-filters.png          the filter menu open
#   STYLE-range.png            a time range dragged on the timeline (its chip)
#   STYLE-compare-dialog.png   Compare With… (Ctrl+D), the file chooser over its window
#   STYLE-diff-filtered.png    the comparison it opens, the range carried over
#   STYLE-about.png, STYLE-shortcuts.png   the dialogs over their window (whole screen)
#   STYLE-diff.png             `heaplens --diff TRACE TRACE_B` (TRACE_B defaults to TRACE)
#   live-attach-dialog.png     Attach to a Running Process… over the start page,
#                              listing the demo recorded by `heaplens-cli record`
#                              and the run's processes
# HL_SHOTS="light dark attach" (the default) chooses which of these to make.
# As root, the run gets a /dev/shm and a /proc of its own (mount and pid
# namespaces), so that the attach dialog lists the demo and the run's own
# processes only, not other programs' sessions and processes.
# Views are switched with their shortcuts (Ctrl+1…4, xdotool). Look at
# every one of them.
set -eu
if [ -z "${HL_SHOT_INNER:-}" ] && [ -z "${HL_SHOT_PRIVATE_SHM:-}" ] && [ "$(id -u)" = 0 ] \
	&& unshare -m -p -f --mount-proc true 2> /dev/null; then
	HL_SHOT_PRIVATE_SHM=1 exec unshare -m -p -f --mount-proc \
		sh -c 'mount -t tmpfs -o mode=1777 tmpfs /dev/shm && exec "$0" "$@"' "$0" "$@"
fi
if [ -z "${HL_SHOT_INNER:-}" ]; then
	trace=$(realpath "$1")
	build=$(realpath "${2:-build}")
	out=$(realpath -m "${3:-docs/screenshots}")
	trace_b=$(realpath "${4:-$1}")
	mkdir -p "$out"
	export GDK_BACKEND=x11 GTK_A11Y=none GSETTINGS_BACKEND=memory
	export GSETTINGS_SCHEMA_DIR="$build/data"
	unset WAYLAND_DISPLAY DEBUGINFOD_URLS
	home=$(mktemp -d)
	trap 'rm -rf "$home"' EXIT
	export HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config"
	HL_SHOT_INNER=1 xvfb-run -a -s '-screen 0 1600x1000x24' "$0" "$trace" "$build" "$out" "$trace_b"
	for f in "$out"/light-*.png "$out"/dark-*.png "$out"/live-attach-dialog.png; do
		[ -e "$f" ] && convert "$f" -resize '1000x>' -strip -colors 256 "PNG8:$f"
	done
	ls -l "$out"
	exit 0
fi

trace=$1 build=$2 out=$3 trace_b=$4
app="$build/src/app/heaplens"
if command -v openbox >/dev/null 2>&1; then
	openbox --sm-disable >/dev/null 2>&1 &
	sleep 1
fi

# wait_window NAME: the id of the first window whose title matches NAME.
wait_window() {
	for i in $(seq 100); do
		w=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -1)
		if [ -n "$w" ]; then echo "$w"; return 0; fi
		sleep 0.1
	done
	echo "no window named $1" >&2
	return 1
}

size() {  # size WIN W H: resize and move to the top-left corner
	xdotool windowsize --sync "$1" "$2" "$3" 2>/dev/null || xdotool windowsize "$1" "$2" "$3"
	xdotool windowmove "$1" 40 40
	sleep 1
}

key() {  # key WIN KEYS...: to the focused window (a window manager ignores sent events)
	win=$1; shift
	xdotool windowactivate --sync "$win" 2>/dev/null || true
	xdotool key "$@"
}

shoot_style() {
	style=$1
	# The start page.
	"$app" >/dev/null 2>&1 & pid=$!
	win=$(wait_window '^Heaplens$')
	size "$win" 1000 700
	import -window "$win" "$out/$style-start.png"
	kill $pid; wait $pid 2>/dev/null || true

	# Every view, wide and narrow.
	"$app" "$trace" >/dev/null 2>&1 & pid=$!
	win=$(wait_window 'hltrace')
	size "$win" 1400 900
	sleep 2
	for view in 1 2 3 4; do
		key "$win" "ctrl+$view"
		sleep 1.5
		import -window "$win" "$out/$style-view$view.png"
	done
	# The timeline by call site (By Call Site, Alt+S), then back.
	key "$win" ctrl+1
	key "$win" alt+s
	sleep 1.5
	import -window "$win" "$out/$style-by-site.png"
	key "$win" alt+s
	sleep 0.5
	# Filters: the menu button left of the main menu (header bar, right).
	key "$win" ctrl+1
	xdotool mousemove --window "$win" 1217 28 click 1
	sleep 1
	# A popover is a window of its own: take the screen.
	import -window root -crop 1400x900+40+40 "$out/$style-filters.png"
	xdotool key Escape
	sleep 1
	# A time range dragged across the middle of the timeline.
	xdotool mousemove --window "$win" 500 260 mousedown 1 mousemove --window "$win" 700 260 \
		mousemove --window "$win" 900 260 mouseup 1
	xdotool mousemove 1590 990   # no tooltip in the pictures
	sleep 3
	import -window "$win" "$out/$style-range.png"
	# Compare With… (Ctrl+D): the file chooser over the window, then the
	# diff with the range carried over as a chip.
	key "$win" ctrl+d
	sleep 2
	import -window root "$out/$style-compare-dialog.png"
	xdotool type --delay 20 "$trace_b"
	sleep 0.5
	xdotool key Return
	diffwin=$(wait_window '→')
	size "$diffwin" 1400 900
	sleep 2
	import -window "$diffwin" "$out/$style-diff-filtered.png"
	# Its close button (header bar, top right).
	xdotool mousemove --window "$diffwin" 1371 28 click 1
	sleep 1
	size "$win" 800 600
	for view in 1 2 3 4; do
		key "$win" "ctrl+$view"
		sleep 1.5
		import -window "$win" "$out/$style-narrow-view$view.png"
	done
	# The dialogs, over their window.
	size "$win" 1200 800
	key "$win" "ctrl+question"
	sleep 1.5
	import -window root "$out/$style-shortcuts.png"
	xdotool key Escape
	sleep 0.5
	# Main menu (F10), its last item: About Heaplens.
	key "$win" F10
	sleep 1
	xdotool mousemove 1053 434 click 1
	sleep 1.5
	import -window root "$out/$style-about.png"
	kill $pid; wait $pid 2>/dev/null || true

	# A comparison.
	"$app" --diff "$trace" "$trace_b" >/dev/null 2>&1 & pid=$!
	win=$(wait_window '→')
	size "$win" 1400 900
	sleep 2
	import -window "$win" "$out/$style-diff.png"
	kill $pid; wait $pid 2>/dev/null || true
}

# The attach dialog over the start page, listing a demo that
# `heaplens-cli record` runs.
shoot_attach() {
	cli="$build/src/cli/heaplens-cli"
	tmp=$(mktemp -d)
	"$cli" record -o "$tmp/demo.hltrace" -- "$build/examples/heaplens-demo" --seconds 30 \
		>/dev/null 2>&1 & rec=$!
	for i in $(seq 100); do
		"$cli" sessions 2>/dev/null | grep -q 'heaplens-demo' && break
		sleep 0.1
	done
	# a data directory of its own: the traces the other shots opened are
	# listed on the start page ("Recent Traces") and move its buttons
	XDG_DATA_HOME="$tmp/data" "$app" >/dev/null 2>&1 & pid=$!
	win=$(wait_window '^Heaplens$')
	size "$win" 1000 700
	# "Attach to a Running Process…" on the start page: 150 px right of the
	# window's centre and 197 px below it, found from the window's size at
	# each try (a resize not applied yet moved it once, and a click before
	# the page has settled is lost: clicked again)
	for try in 1 2 3 4 5; do
		sleep 0.5
		eval "$(xdotool getwindowgeometry --shell "$win")"
		xdotool mousemove --window "$win" $((WIDTH / 2 + 150)) $((HEIGHT / 2 + 197)) click 1
		wait_window 'Attach to a Running Process' >/dev/null && break
		[ "$try" -lt 5 ] || exit 1
	done
	xdotool mousemove 1590 990   # no hover, no tooltip
	sleep 1.5
	import -window root -crop 1000x700+40+40 "$out/live-attach-dialog.png"
	kill $pid; wait $pid 2>/dev/null || true
	kill -INT $rec; wait $rec 2>/dev/null || true
	rm -rf "$tmp"
}

shots=${HL_SHOTS:-light dark attach}
case " $shots " in *" light "*) shoot_style light ;; esac
# libadwaita's debug variable: our default scheme follows it.
case " $shots " in *" dark "*) ADW_DEBUG_COLOR_SCHEME=prefer-dark shoot_style dark ;; esac
case " $shots " in *" attach "*) shoot_attach ;; esac
