#!/bin/bash
# bench/capture.sh [BUILD_DIR] — overhead of the preload, side by side in
# one run: uninstrumented, Heaplens (libunwind), Heaplens (fp), heaptrack,
# each as a user runs it (`heaplens-cli record`, which compresses the trace
# after the program exits; `heaptrack`, which compresses while it runs),
# on three workloads: an allocation churn at depth 5-25, python3
# (PYTHONMALLOC=malloc) on a dict/list/string workload, and sqlite3 running
# a generated SQL script. Median wall time of RUNS (default 5) runs; trace
# sizes of the last run. Writes a Markdown table to bench/results/.
# Also the medians of the CPU time (user+sys of the whole process tree)
# and, for Heaplens, of the wait after the program exited (the compression
# left for then: `record` prints it with HEAPLENS_DEBUG=timing).
# The configurations take turns run by run (plain, libunwind, fp, ...,
# then again), so that a slow spell of the shared machine falls on all.
# BASE=OTHER_BUILD_DIR adds a column "base": Heaplens (libunwind) of
# another build (before/after a change, side by side in the same run).
# Also `record --no-costs` (config nocosts: without the saved costs it
# computes while the program runs, docs/trace-format.md 7e): its time, CPU,
# wait after exit and trace size beside the default's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# heaptrack without the heaptrack_gui it opens at the end when installed
heaptrack=$here/../scripts/heaptrack-nogui.sh
build=$(cd "${1:-$here/../build}" && pwd)
runs=${RUNS:-5}
preload=$build/src/capture/libheaplens-preload.so
cli=$build/src/cli/heaplens-cli
base=${BASE:+$(cd "$BASE" && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$preload" ] || { echo "no preload in $build" >&2; exit 1; }
# every configuration runs python3 with the C allocator (not pymalloc)
export PYTHONMALLOC=malloc

gcc -O2 -g -fno-omit-frame-pointer "$here/churn.c" -o "$tmp/churn"
python3 "$here/sqlite-work.py" > "$tmp/work.sql"

workloads=${WORKLOADS:-churn python sqlite}
cmd_of () {
  case $1 in
    churn) echo "$tmp/churn 2000000" ;;
    python) echo "/usr/bin/python3 $here/workload.py" ;;
    sqlite) echo "sqlite3 $tmp/db.sqlite -init $tmp/work.sql .quit" ;;
  esac
}
prepare () { rm -f "$tmp/db.sqlite" "$tmp"/trace* "$tmp"/ht.*; }

# run_one CONFIG WORKLOAD: prints wall seconds, CPU seconds, seconds
# waited after the program's exit (0 when not Heaplens)
run_one () {
  local cfg=$1 w=$2 cmd
  cmd=$(cmd_of "$w")
  prepare
  local t0 t1 tm=/usr/bin/time
  t0=$(date +%s%N)
  case $cfg in
    plain) $tm -f "%U %S" -o "$tmp/cpu" $cmd > /dev/null 2>&1 ;;
    # fp: the sampled check would switch fp-less programs (python3) to the
    # DWARF unwinder; keep fp to measure it
    libunwind|fp) HEAPLENS_DEBUG=timing HEAPLENS_FP_CHECK=warn $tm -f "%U %S" -o "$tmp/cpu" \
                    "$cli" record --unwind "$cfg" -o "$tmp/trace.hltrace" -- $cmd > /dev/null 2> "$tmp/err" ;;
    nocosts) HEAPLENS_DEBUG=timing HEAPLENS_FP_CHECK=warn $tm -f "%U %S" -o "$tmp/cpu" \
               "$cli" record --unwind libunwind --no-costs -o "$tmp/trace.hltrace" -- $cmd > /dev/null 2> "$tmp/err" ;;
    base) HEAPLENS_DEBUG=timing HEAPLENS_FP_CHECK=warn $tm -f "%U %S" -o "$tmp/cpu" \
            "$base/src/cli/heaplens-cli" record -o "$tmp/trace.hltrace" -- $cmd > /dev/null 2> "$tmp/err" ;;
    heaptrack) $tm -f "%U %S" -o "$tmp/cpu" "$heaptrack" -o "$tmp/ht" $cmd > /dev/null 2>&1 ;;
  esac
  t1=$(date +%s%N)
  local post=0 postcpu=0 ok=1 rss=0
  case $cfg in
    libunwind|fp|base|nocosts)
      post=$(sed -n 's/^heaplens: timing: \([0-9.]*\) s after.*/\1/p' "$tmp/err" | tail -1)
      rss=$(sed -n "s/^heaplens: timing: record's peak RSS \([0-9]*\) KiB/\1/p" "$tmp/err" | tail -1)
      postcpu=$(sed -n 's/^heaplens: timing: .* after the program exited (\([0-9.]*\) s CPU).*/\1/p' "$tmp/err" | tail -1)
      # a trace left plain was not compressed: `sessions --prune` of another
      # process (a test run) can remove the program's ended session before
      # `record` reads it; such a run measures nothing and is run again
      [ $(( $(od -An -tu4 -j20 -N4 "$tmp/trace.hltrace" 2> /dev/null | tr -d ' ' || echo 0) & 2 )) -ne 0 ] || ok=0 ;;
  esac
  # the costs saved (1) or not (0; L when the costs thread gave up, behind)
  local saved=0
  case $cfg in
    libunwind|fp|base|nocosts)
      [ "$(tail -c 8 "$tmp/trace.hltrace" 2> /dev/null | tr -d '\0')" = HLCOSTS ] && saved=1
      grep -q "costs not saved (the costs thread fell" "$tmp/err" 2> /dev/null && saved=L ;;
  esac
  echo "$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc) $(awk '{printf "%.3f", $1 + $2}' "$tmp/cpu") ${post:-0} ${postcpu:-0} $((${rss:-0} / 1024)) $saved $ok"
}

median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
size_of () { local s=0; for f in "$@"; do [ -f "$f" ] && s=$((s + $(stat -c %s "$f"))); done; echo $s; }
# paired NUM DEN: the wall time of NUM over DEN's of the same round, round
# by round (from $tmp/runs-NUM and $tmp/runs-DEN, line r = round r); prints
# the median of these ratios and their range, "1.52 (1.40–1.61)"
paired () {
  awk 'NR == FNR {d[FNR] = $1; next} {printf "%.3f\n", $1 / d[FNR]}' "$tmp/runs-$2" "$tmp/runs-$1" > "$tmp/paired"
  echo "# $w paired $1/$2: $(tr "\n" " " < "$tmp/paired")" >&2
  echo "$(median < "$tmp/paired") $(sort -n "$tmp/paired" | head -1) $(sort -n "$tmp/paired" | tail -1)" |
    awk '{printf "%.2f (%.2f–%.2f)\n", $1, $2, $3}'
}

configs="plain libunwind fp heaptrack nocosts${base:+ base}"
declare -A T S C P Q SAVED M R
for w in $workloads; do
  # the configurations take turns, run by run: a slow spell of the shared
  # machine falls on all of them, not on the five runs of one
  for cfg in $configs; do : > "$tmp/runs-$cfg"; done
  for r in $(seq "$runs"); do
    for cfg in $configs; do
      for try in 1 2 3; do
        line=$(run_one "$cfg" "$w")
        [ "${line##* }" = 1 ] && break
        echo "# $w $cfg: the trace was left plain (session pruned meanwhile?): again" >&2
      done
      echo "${line% *}" >> "$tmp/runs-$cfg"
      case $cfg in
        libunwind|fp|base|nocosts) S[$cfg,$w]=$(size_of "$tmp"/trace.hltrace*) ;;
        heaptrack) S[$cfg,$w]=$(size_of "$tmp"/ht.*) ;;
      esac
    done
  done
  for cfg in $configs; do
    cp "$tmp/runs-$cfg" "$tmp/runs"
    T[$cfg,$w]=$(awk '{print $1}' "$tmp/runs" | median)
    C[$cfg,$w]=$(awk '{print $2}' "$tmp/runs" | median)
    P[$cfg,$w]=$(awk '{print $3}' "$tmp/runs" | median)
    Q[$cfg,$w]=$(awk '{print $4}' "$tmp/runs" | median)
    M[$cfg,$w]=$(awk '{print $5}' "$tmp/runs" | median)
    # costs saved in how many runs (and how many gave up for the lag)
    lagged=$(awk '$6 == "L"' "$tmp/runs" | wc -l)
    SAVED[$cfg,$w]="$(awk '$6 == 1' "$tmp/runs" | wc -l)/$runs"
    [ "$lagged" -gt 0 ] && SAVED[$cfg,$w]="${SAVED[$cfg,$w]} ($lagged lag)"
    echo "# $w $cfg: ${T[$cfg,$w]} s, cpu ${C[$cfg,$w]} s, after exit ${P[$cfg,$w]} s, ${Q[$cfg,$w]} s CPU, record RSS ${M[$cfg,$w]} MiB, costs saved ${SAVED[$cfg,$w]} (wall cpu after after-cpu rss saved:" $(cat "$tmp/runs") ")" >&2
  done
  # paired ratios: each run against the plain (heaptrack) run of its round
  for cfg in $configs; do
    [ "$cfg" = plain ] || R[$cfg,$w]=$(paired "$cfg" plain)
  done
  R[lu-ht,$w]=$(paired libunwind heaptrack)
done

ratio () { echo "scale=2; $1 / $2" | bc; }
out=$here/results/capture-$(date -u +%Y%m%d-%H%M).md
{
  echo "# Capture overhead ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, median of $runs)"
  echo
  echo "| workload | plain s | heaplens libunwind | heaplens fp | heaptrack | trace libunwind | trace fp | heaptrack file | libunwind/heaptrack time | trace/heaptrack size |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for w in $workloads; do
    p=${T[plain,$w]}
    echo "| $w | $p | ${T[libunwind,$w]} s ($(ratio ${T[libunwind,$w]} $p)x) | ${T[fp,$w]} s ($(ratio ${T[fp,$w]} $p)x) | ${T[heaptrack,$w]} s ($(ratio ${T[heaptrack,$w]} $p)x) | ${S[libunwind,$w]} | ${S[fp,$w]} | ${S[heaptrack,$w]} | $(ratio "$(ratio ${T[libunwind,$w]} $p)" "$(ratio ${T[heaptrack,$w]} $p)") | $(ratio ${S[libunwind,$w]} ${S[heaptrack,$w]}) |"
  done
  echo
  echo "CPU s: user+sys of the process tree; after exit: \`record\`'s wait after the program exited, and the CPU"
  echo "\`record\` used then (all its threads; less sensitive to a loaded machine) (medians)."
  echo
  echo "| workload | cpu plain | cpu libunwind | cpu heaptrack | after exit libunwind | after exit fp | after-exit CPU libunwind |${base:+ base time | base cpu | base after exit | base after-exit CPU | base size | base/heaptrack time |}"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |${base:+ ---: | ---: | ---: | ---: | ---: | ---: |}"
  for w in $workloads; do
    line="| $w | ${C[plain,$w]} | ${C[libunwind,$w]} | ${C[heaptrack,$w]} | ${P[libunwind,$w]} s | ${P[fp,$w]} s | ${Q[libunwind,$w]} s |"
    [ -n "$base" ] && line="$line ${T[base,$w]} s | ${C[base,$w]} | ${P[base,$w]} s | ${Q[base,$w]} s | ${S[base,$w]} | $(ratio ${T[base,$w]} ${T[heaptrack,$w]}) |"
    echo "$line"
  done
  echo
  echo "Saved costs: libunwind (the default, costs computed while the program runs) against --no-costs (medians)"
  echo
  echo "| workload | time with / without | cpu with / without | after exit with / without | trace with / without | record RSS with / without | costs saved (runs) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
  for w in $workloads; do
    echo "| $w | ${T[libunwind,$w]} / ${T[nocosts,$w]} s | ${C[libunwind,$w]} / ${C[nocosts,$w]} | ${P[libunwind,$w]} / ${P[nocosts,$w]} | ${S[libunwind,$w]} / ${S[nocosts,$w]} ($(ratio ${S[libunwind,$w]} ${S[nocosts,$w]})x) | ${M[libunwind,$w]} / ${M[nocosts,$w]} MiB | ${SAVED[libunwind,$w]} |"
  done
  echo
  echo "record's own work, same run: fp against libunwind, libunwind against plain, the costs against"
  echo "--no-costs, the largest wait after the exit of the three Heaplens configurations, record's peak"
  echo "RSS (its own process: threads, buffers, zstd streams), costs saved in fp mode (lag: given up"
  echo "because the costs thread fell behind; report then decodes the events)"
  echo
  echo "| workload | fp / libunwind time | libunwind / plain | costs / no-costs time | after exit max | record RSS libunwind / fp | fp costs saved (runs) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
  for w in $workloads; do
    amax=$(printf '%s\n' ${P[libunwind,$w]} ${P[fp,$w]} ${P[nocosts,$w]} | sort -n | tail -1)
    echo "| $w | $(ratio ${T[fp,$w]} ${T[libunwind,$w]}) | $(ratio ${T[libunwind,$w]} ${T[plain,$w]}) | $(ratio ${T[libunwind,$w]} ${T[nocosts,$w]}) | $amax s | ${M[libunwind,$w]} / ${M[fp,$w]} MiB | ${SAVED[fp,$w]} |"
  done
  echo
  echo "Paired ratios: in each round, a configuration's wall time over the plain run of the same round"
  echo "(libunwind / heaptrack: over heaptrack's of the same round); the median of these $runs ratios, and"
  echo "their range (min–max). A round's runs follow each other closely, so a slow spell of the shared"
  echo "machine tends to fall on both runs of a pair: steadier than the ratios of the separate medians above."
  echo
  echo "| workload | libunwind / plain | fp / plain | nocosts / plain | heaptrack / plain | libunwind / heaptrack |${base:+ base / plain |}"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |${base:+ ---: |}"
  for w in $workloads; do
    echo "| $w | ${R[libunwind,$w]} | ${R[fp,$w]} | ${R[nocosts,$w]} | ${R[heaptrack,$w]} | ${R[lu-ht,$w]} |${base:+ ${R[base,$w]} |}"
  done
} | tee "$out"
echo "written to $out" >&2
