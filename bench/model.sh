#!/bin/bash
# bench/model.sh [BUILD_DIR] — `heaplens-cli report` against `heaptrack_print`
# on recordings of the same program run (bench/churn.c, 2.5 M malloc/free
# pairs = 5 M calls): wall time, CPU time (user+sys) and peak RSS of the
# analysis, same run, best of REPS (3) alternated runs; also the report
# decoding the events instead of reading the costs `record` saved in the
# trace (HEAPLENS_NO_COSTS_PACKET=1, docs/trace-format.md 7e), and on the
# full model (HEAPLENS_REPORT_FULL=1). The churn is recorded the default
# way (`record` computes the saved costs while the program runs); what that
# costs `record` is printed too: its wall and CPU time with and without
# them (--no-costs), and the time it spends after the program has exited.
# Also times model-bench (1 M synthetic allocations) and, unless BIG=0,
# `report` on a 20 M-event churn recording (10 M pairs). BASE=path of
# another heaplens-cli (e.g. an older build) adds its numbers on the same
# recordings, for before/after ratios. Writes a Markdown table to
# bench/results/model-DATE.md.
# The 20 M-event recording also goes through bench/load-bench (load to a
# ready model, CPU time and peak RSS; range filters of 10/50/90 %), and
# bench/symbol-bench symbolizes 10,000 unique libc addresses cold.
# BASE_BUILD=another build directory adds its load-bench and symbol-bench
# on the same files, same run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# heaptrack without the heaptrack_gui it opens at the end when installed
heaptrack=$here/../scripts/heaptrack-nogui.sh
build=$(cd "${1:-$here/../build}" && pwd)
cli=$build/src/cli/heaplens-cli
pairs=${PAIRS:-2500000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gcc -O2 -g -fno-omit-frame-pointer "$here/churn.c" -o "$tmp/churn"
"$cli" record -o "$tmp/churn.hltrace" -- "$tmp/churn" "$pairs" > /dev/null 2>&1
saved=no
[ "$(tail -c 8 "$tmp/churn.hltrace" | tr -d '\0')" = HLCOSTS ] && saved=yes
(cd "$tmp" && "$heaptrack" -o "$tmp/churn.heaptrack" "$tmp/churn" "$pairs" > /dev/null 2>&1)
ht=$(ls "$tmp"/churn.heaptrack*)

measure () { # NAME CMD...: prints "seconds max_rss_kib cpu_seconds" (cpu = user + sys)
  local name=$1; shift
  /usr/bin/time -f "%e %M %U %S" -o "$tmp/$name.time" "$@" > "$tmp/$name.out" 2>/dev/null
  # the last line: GNU time puts "Command exited with non-zero status N" first
  read -r e m u s < <(tail -n 1 "$tmp/$name.time")
  echo "$e $m $(python3 -c "print('%.2f' % ($u + $s))")"
}
# REPS rounds (default 3), each running every analysis once in turn: the
# best wall and CPU of each, its largest peak RSS — the machine is shared,
# single runs are noise.
REPS=${REPS:-3}
base=${BASE:-}
declare -A W M C A
keep () { # NAME "wall rss cpu"
  local w m c; read -r w m c <<< "$2"
  W[$1]=$(python3 -c "print(min(${W[$1]:-999}, $w))")
  C[$1]=$(python3 -c "print(min(${C[$1]:-999}, $c))")
  [ "$m" -gt "${M[$1]:-0}" ] && M[$1]=$m
  return 0
}
for _ in $(seq "$REPS"); do
  keep heaplens "$(measure heaplens "$cli" report "$tmp/churn.hltrace")"
  keep heaptrack "$(measure heaptrack heaptrack_print "$ht")"
  keep full "$(measure full env HEAPLENS_REPORT_FULL=1 "$cli" report "$tmp/churn.hltrace")"
  keep decode "$(measure decode env HEAPLENS_NO_COSTS_PACKET=1 "$cli" report "$tmp/churn.hltrace")"
  if [ -n "$base" ]; then keep base "$(measure base "$base" report "$tmp/churn.hltrace")"; fi
done
hl_s=${W[heaplens]} hl_kb=${M[heaplens]} hl_cpu=${C[heaplens]}
ht_s=${W[heaptrack]} ht_kb=${M[heaptrack]} ht_cpu=${C[heaptrack]}
fu_s=${W[full]} fu_kb=${M[full]} fu_cpu=${C[full]}
de_s=${W[decode]} de_kb=${M[decode]} de_cpu=${C[decode]}
# what saving the costs adds to `record`, alternated runs; the time after
# the program exited is the best of REPS too
after_exit () { sed -n 's/^heaplens: timing: \([0-9.]*\) s after the program exited.*/\1/p' "$tmp/$1.err"; }
for _ in $(seq "$REPS"); do
  for cfg in rec recnc; do
    flag=""; [ $cfg = recnc ] && flag=--no-costs
    /usr/bin/time -f "%e %M %U %S" -o "$tmp/$cfg.time" env HEAPLENS_DEBUG=timing "$cli" record $flag \
      -o "$tmp/$cfg.hltrace" -- "$tmp/churn" "$pairs" > /dev/null 2> "$tmp/$cfg.err"
    read -r e m u s < <(tail -n 1 "$tmp/$cfg.time")
    keep $cfg "$e $m $(python3 -c "print('%.2f' % ($u + $s))")"
    A[$cfg]=$(python3 -c "print(min(${A[$cfg]:-999}, $(after_exit $cfg)))")
  done
done
if [ -n "$base" ]; then b_s=${W[base]} b_kb=${M[base]} b_cpu=${C[base]}; fi
if [ "${BIG:-1}" != 0 ]; then
  "$cli" record -o "$tmp/big.hltrace" -- "$tmp/churn" 10000000 > /dev/null 2>&1
  read -r big_s big_kb big_cpu < <(measure big "$cli" report "$tmp/big.hltrace")
  if [ -n "$base" ]; then
    read -r bb_s bb_kb bb_cpu < <(measure bigbase "$base" report "$tmp/big.hltrace")
  fi
fi

loadbench () { # BUILD: load-bench on the big recording, then its CPU and RSS
  /usr/bin/time -f "user+sys %U+%S s, max RSS %M KiB" "$1/bench/load-bench" "$tmp/big.hltrace" 2>&1
}
base_build=${BASE_BUILD:-}
out=$here/results/model-$(date -u +%Y%m%d-%H%M).md
{
  echo "# model benchmark $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "churn, $pairs malloc/free pairs ($(nproc) cores):"
  echo
  echo "best of $REPS rounds (each round runs every analysis once):"
  echo
  echo "| analysis | wall s | CPU s (user+sys) | peak RSS MiB |"
  echo "|---|---|---|---|"
  echo "| heaplens-cli report (recorded the default way; saved costs: $saved) | $hl_s | $hl_cpu | $((hl_kb / 1024)) |"
  echo "| heaplens-cli report, events decoded (HEAPLENS_NO_COSTS_PACKET=1) | $de_s | $de_cpu | $((de_kb / 1024)) |"
  echo "| heaptrack_print | $ht_s | $ht_cpu | $((ht_kb / 1024)) |"
  echo "| heaplens-cli report, full model (HEAPLENS_REPORT_FULL=1) | $fu_s | $fu_cpu | $((fu_kb / 1024)) |"
  if [ -n "$base" ]; then echo "| BASE report ($base) | $b_s | $b_cpu | $((b_kb / 1024)) |"; fi
  echo
  echo "speed-up (heaptrack_print / report): wall $(python3 -c "print('%.1fx' % ($ht_s / max($hl_s, 0.01)))"), CPU $(python3 -c "print('%.1fx' % ($ht_cpu / max($hl_cpu, 0.01)))") (target: wall >= 5x); peak RSS $(python3 -c "print('%.2f' % ($hl_kb / $ht_kb))") of heaptrack_print's (target < 1)"
  echo
  echo "decoding the events instead: wall $(python3 -c "print('%.1fx' % ($ht_s / max($de_s, 0.01)))"), CPU $(python3 -c "print('%.1fx' % ($ht_cpu / max($de_cpu, 0.01)))") faster than heaptrack_print"
  echo
  echo "record (program run + post-processing), best of $REPS: with saved costs (the default) wall ${W[rec]} s, CPU ${C[rec]} s, ${A[rec]} s after the program exited, trace $(stat -c %s "$tmp/rec.hltrace") B; without (--no-costs) wall ${W[recnc]} s, CPU ${C[recnc]} s, ${A[recnc]} s after exit, trace $(stat -c %s "$tmp/recnc.hltrace") B"
  echo
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "${BIG:-1}" != 0 ]; then
    echo
    echo "20 M-event churn (10 M pairs), file to printed report:"
    echo
    echo "| analysis | wall s | CPU s | peak RSS MiB |"
    echo "|---|---|---|---|"
    echo "| heaplens-cli report | $big_s | $big_cpu | $((big_kb / 1024)) |"
    if [ -n "$base" ]; then echo "| BASE report | $bb_s | $bb_cpu | $((bb_kb / 1024)) |"; fi
  fi
  if [ "${BIG:-1}" != 0 ]; then
    echo
    echo "20 M-event churn: load to a ready model (no symbols), range filters (target: load <= 2 s, filter <= 100 ms):"
    echo
    echo '```'
    echo "# this build"
    loadbench "$build"
    if [ -n "$base_build" ]; then echo "# BASE_BUILD $base_build"; loadbench "$base_build"; fi
    echo '```'
  fi
  echo
  echo "10,000 unique addresses symbolized cold (target <= 0.2 s):"
  echo
  echo '```'
  "$build/bench/symbol-bench"
  if [ -n "$base_build" ]; then echo "# BASE_BUILD $base_build"; "$base_build/bench/symbol-bench"; fi
  echo '```'
  echo
  echo '```'
  "$build/bench/model-bench" 1000000
  echo '```'
} | tee "$out"
