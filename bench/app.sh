#!/bin/sh
# Benchmarks of the application (issue 7). Not tests: prints measured numbers.
#   bench/app.sh [BUILD_DIR] [PAIRS] [TRACE]
# 1. Flame graph redraw at 100,000 and 1,000,000 nodes (target ≤ 16 ms), by
#    the widget-free drawing function on an image surface.
# 2. The application on a recording of bench/churn.c with PAIRS malloc/free
#    pairs (default 10,000,000 = 20 M events; or an existing TRACE), under
#    Xvfb, with its own timestamps (HEAPLENS_DEBUG=timing): open to the
#    flame graph drawn (target ≤ 2 s; for a large trace with saved costs
#    that is the flame graph of the costs saved in it, drawn while its
#    events load), open to fully loaded (the events decoded and the flame
#    graph drawn again from them), and time-range drags on the timeline
#    with xdotool (refilter of every view, target ≤ 100 ms): two with the
#    summary shown, two with the flame graph shown, then each other view
#    shown once (the views not shown catch up when they are shown).
# Every stage is printed with its wall time and the CPU time of the whole
# process over it (all threads), so a busy machine still gives an answer.
# GSK_RENDERERS (default "cairo gl") lists the renderers to run with: under
# Xvfb "gl" is Mesa's software GL, whose own threads take most of the CPU of
# a frame; "cairo" draws on the main thread. BENCH_ROUNDS (default 1) runs
# them alternately that many times; the last lines put the renderers side by
# side (medians over the rounds; a refilter's frames are those painted from
# the drag's release to the views drawn). BASE_BUILD=another build
# directory (e.g. of main before a change) runs its application too,
# alternated with this one in every round, for before/after in one run.
set -eu
build=$(realpath "${1:-build}")
pairs=${2:-10000000}
trace=${3:-}
"$build/tests/app/bench-flame-draw" 100000
"$build/tests/app/bench-flame-draw" 1000000

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$trace" ]; then
	gcc -O2 -g -fno-omit-frame-pointer "$(dirname "$0")/churn.c" -o "$tmp/churn"
	"$build/src/cli/heaplens-cli" record --output "$tmp/churn.hltrace" -- "$tmp/churn" "$pairs" >/dev/null 2>&1
	trace=$tmp/churn.hltrace
fi
ls -l "$trace" | awk '{ printf "trace: %s bytes\n", $5 }'

export GDK_BACKEND=x11 GTK_A11Y=none GSETTINGS_BACKEND=memory
export GSETTINGS_SCHEMA_DIR="$build/data" HEAPLENS_DEBUG=timing HOME="$tmp"
unset WAYLAND_DISPLAY DEBUGINFOD_URLS
renderers=${GSK_RENDERERS:-cairo gl}
builds="this"
[ -n "${BASE_BUILD:-}" ] && builds="this base"
for round in $(seq "${BENCH_ROUNDS:-1}"); do
for label in $builds; do
for renderer in $renderers; do
	rm -f "$tmp/app.log"
	app=$build/src/app/heaplens
	[ "$label" = base ] && app=$(realpath "$BASE_BUILD")/src/app/heaplens
	GSK_RENDERER=$renderer xvfb-run -a -s '-screen 0 1400x900x24' sh -c '
		log=$2/app.log
		/usr/bin/time -f "heaplens: process: %e s wall, %U s user, %S s sys, max RSS %M KiB" \
			"$0" "$1" >>"$log" 2>&1 & pid=$!
		# the drags once every event is loaded (an older build logs no
		# "fully loaded": its first flame graph is drawn from the events)
		for i in $(seq 240); do
			grep -qE "fully loaded|open to flame graph drawn \([0-9]+ frames" "$log" 2>/dev/null && break
			sleep 0.5
		done
		sleep 1
		drag () {  # the timeline is at the top of the window (no banner for churn)
			xdotool mousemove $1 150 mousedown 1 mousemove $(($1 + 100)) 150 mousemove $2 150 mouseup 1
			sleep 2
		}
		echo "heaplens: bench: drags with the summary shown" >>"$log"
		drag 200 500; drag 300 700
		echo "heaplens: bench: drags with the flame graph shown" >>"$log"
		xdotool key ctrl+2; sleep 1
		drag 250 450; drag 350 800
		echo "heaplens: bench: the other views shown" >>"$log"
		xdotool key ctrl+3; sleep 1; xdotool key ctrl+4; sleep 1; xdotool key ctrl+1; sleep 1
		kill $(pgrep -P $pid) 2>/dev/null || kill $pid
		wait $pid || true' "$app" "$trace" "$tmp"
	# an older build: its first flame graph is drawn from the events
	grep -q "fully loaded" "$tmp/app.log" ||
		sed -n "s/open to flame graph drawn/open to fully loaded/p" "$tmp/app.log" >> "$tmp/app.log"
	cp "$tmp/app.log" "$tmp/app-$label-$renderer-$round.log"
	echo "== $label build, GSK_RENDERER=$renderer, round $round (wall ms, then CPU ms of every thread over the stage)"
	grep -E "open to|recording set|analysis|summary|refilter|refreshed|flame graph data|allocations view|call tree \(|bench:|process:" "$tmp/app.log" \
		| sed 's/^heaplens: //'
done
done
done

# "W ms (cpu C ms" of the lines matching $2 in renderer $1's logs: the
# median of W, its largest, the median of C, and the median of the frames.
median () { sed "/^$/d" | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2; else printf "-" }'; }
largest () { sed "/^$/d" | sort -n | tail -1; }
stage () {
	lines=$(cat "$tmp"/app-"$1"-*.log | grep -F "$2" || true)
	wall=$(echo "$lines" | sed -n 's/.* \([0-9.]*\) ms (cpu .*/\1/p')
	cpu=$(echo "$lines" | sed -n 's/.* ms (cpu \([0-9.]*\) ms.*/\1/p')
	frames=$(echo "$lines" | sed -n 's/.*(\([0-9]*\) frames painted.*/\1/p')
	printf "  %-36s wall %7s ms (max %7s), cpu %7s ms, frames %s\n" "$2" \
		"$(echo "$wall" | median)" "$(echo "$wall" | largest)" "$(echo "$cpu" | median)" "$(echo "$frames" | median)"
}
echo "== side by side: medians over ${BENCH_ROUNDS:-1} round(s) (targets: open ≤ 2000 ms, refilter ≤ 100 ms)"
echo "   (open to flame graph drawn: of the saved costs while the events load, when the build and trace do that)"
for renderer in $renderers; do
for label in $builds; do
	echo "$label build, GSK_RENDERER=$renderer"
	stage "$label-$renderer" "open to flame graph drawn"
	stage "$label-$renderer" "open to fully loaded"
	stage "$label-$renderer" "refilter to flame graph drawn"
	stage "$label-$renderer" "call tree (worker)"
done
done
