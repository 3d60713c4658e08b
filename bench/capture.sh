#!/bin/bash
# bench/capture.sh [BUILD_DIR] — overhead of the preload, side by side in
# one run: uninstrumented, Heaplens (libunwind), Heaplens (fp), heaptrack,
# each as a user runs it (`heaplens-cli record`, which compresses the trace
# after the program exits; `heaptrack`, which compresses while it runs),
# on three workloads: an allocation churn at depth 5-25, python3
# (PYTHONMALLOC=malloc) on a dict/list/string workload, and sqlite3 running
# a generated SQL script. Median wall time of RUNS (default 5) runs; trace
# sizes of the last run. Also `record` without the saved costs it computes
# while the program runs (--no-costs, docs/trace-format.md 7e): median wall
# and CPU time and time spent after the program exited, with and without,
# and what the costs add to the trace. Writes a Markdown table to
# bench/results/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
runs=${RUNS:-5}
preload=$build/src/capture/libheaplens-preload.so
cli=$build/src/cli/heaplens-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$preload" ] || { echo "no preload in $build" >&2; exit 1; }
# every configuration runs python3 with the C allocator (not pymalloc)
export PYTHONMALLOC=malloc

gcc -O2 -g -fno-omit-frame-pointer "$here/churn.c" -o "$tmp/churn"
python3 - > "$tmp/work.sql" << 'PY'
import random
random.seed(7)
print("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, value REAL);")
print("BEGIN;")
for i in range(60000):
    print("INSERT INTO t VALUES (%d, 'name-%d-%s', %d, %f);" % (i, i, "x" * random.randint(1, 40), i % 97, random.random()))
print("COMMIT;")
print("CREATE INDEX t_name ON t (name);")
print("CREATE INDEX t_grp ON t (grp, value);")
for g in range(0, 97, 7):
    print("SELECT grp, count(*), avg(value), max(name) FROM t WHERE grp = %d GROUP BY grp;" % g)
print("SELECT count(*) FROM t a JOIN t b ON a.id = b.id + 1 WHERE a.grp < 10;")
print("UPDATE t SET name = name || '-u' WHERE grp % 3 = 0;")
print("DELETE FROM t WHERE grp % 5 = 0;")
print("SELECT count(*), sum(length(name)) FROM t;")
PY

workloads="churn python sqlite"
cmd_of () {
  case $1 in
    churn) echo "$tmp/churn 2000000" ;;
    python) echo "/usr/bin/python3 $here/workload.py" ;;
    sqlite) echo "sqlite3 $tmp/db.sqlite -init $tmp/work.sql .quit" ;;
  esac
}
prepare () { rm -f "$tmp/db.sqlite" "$tmp"/trace* "$tmp"/ht.*; }

# run_one CONFIG WORKLOAD: prints wall seconds
run_one () {
  local cfg=$1 w=$2 cmd
  cmd=$(cmd_of "$w")
  prepare
  local t0 t1
  t0=$(date +%s%N)
  case $cfg in
    plain) $cmd > /dev/null 2>&1 ;;
    # fp: the sampled check would switch fp-less programs (python3) to the
    # DWARF unwinder; keep fp to measure it
    libunwind|fp) HEAPLENS_FP_CHECK=warn /usr/bin/time -f "%U %S" -o "$tmp/cpu" env HEAPLENS_DEBUG=timing \
                    "$cli" record --unwind "$cfg" -o "$tmp/trace.hltrace" -- $cmd > /dev/null 2> "$tmp/err" ;;
    nocosts) HEAPLENS_FP_CHECK=warn /usr/bin/time -f "%U %S" -o "$tmp/cpu" env HEAPLENS_DEBUG=timing \
               "$cli" record --unwind libunwind --no-costs -o "$tmp/trace.hltrace" -- $cmd > /dev/null 2> "$tmp/err" ;;
    heaptrack) heaptrack -o "$tmp/ht" $cmd > /dev/null 2>&1 ;;
  esac
  t1=$(date +%s%N)
  echo "scale=3; ($t1 - $t0) / 1000000000" | bc
}

median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
size_of () { local s=0; for f in "$@"; do [ -f "$f" ] && s=$((s + $(stat -c %s "$f"))); done; echo $s; }

declare -A T S CPU AFTER SAVED
for w in $workloads; do
  for cfg in plain libunwind fp heaptrack nocosts; do
    vals="" cpus="" afters=""
    for r in $(seq "$runs"); do
      vals="$vals $(run_one "$cfg" "$w")"
      case $cfg in
        libunwind|nocosts)
          cpus="$cpus $(awk '{ print $1 + $2 }' "$tmp/cpu" | tail -n 1)"
          afters="$afters $(sed -n 's/^heaplens: timing: \([0-9.]*\) s after the program exited.*/\1/p' "$tmp/err")" ;;
      esac
    done
    T[$cfg,$w]=$(echo $vals | tr ' ' '\n' | median)
    case $cfg in
      libunwind|fp|nocosts) S[$cfg,$w]=$(size_of "$tmp"/trace.hltrace*) ;;
      heaptrack) S[$cfg,$w]=$(size_of "$tmp"/ht.*) ;;
    esac
    case $cfg in
      libunwind|nocosts)
        CPU[$cfg,$w]=$(echo $cpus | tr ' ' '\n' | median)
        AFTER[$cfg,$w]=$(echo $afters | tr ' ' '\n' | median)
        SAVED[$cfg,$w]=no
        [ "$(tail -c 8 "$tmp/trace.hltrace" | tr -d '\0')" = HLCOSTS ] && SAVED[$cfg,$w]=yes ;;
    esac
    echo "# $w $cfg: ${T[$cfg,$w]} s (runs:$vals)" >&2
  done
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
  echo "Saved costs (libunwind, the default, against --no-costs; medians): wall, CPU (user+sys) and time after the program exited; trace sizes"
  echo
  echo "| workload | wall with / without | CPU with / without | after exit with / without | trace with / without | costs saved |"
  echo "| --- | ---: | ---: | ---: | ---: | --- |"
  for w in $workloads; do
    echo "| $w | ${T[libunwind,$w]} / ${T[nocosts,$w]} s | ${CPU[libunwind,$w]} / ${CPU[nocosts,$w]} s | ${AFTER[libunwind,$w]} / ${AFTER[nocosts,$w]} s | ${S[libunwind,$w]} / ${S[nocosts,$w]} ($(ratio ${S[libunwind,$w]} ${S[nocosts,$w]})x) | ${SAVED[libunwind,$w]} |"
  done
} | tee "$out"
echo "written to $out" >&2
