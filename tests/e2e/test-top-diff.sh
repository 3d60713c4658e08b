#!/bin/sh
# `top PID --diff-after D` (issue 30, point 4): what a running program
# allocated during D and still holds at its end, by call site, without a
# restart. t-top-diff keeps 20 blocks of 1000 bytes before the moment,
# then 30 of 500 (kept) and 40 of 300 (freed) during it: the diff holds
# exactly the 30 blocks of new_site.
set -u
CLI="${HL_CLI:?}"
PRELOAD="${HL_PRELOAD:?}"
T="${HL_TOP_DIFF_TARGET:?}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-top-diff.XXXXXX")
uid=$(id -u)
pid=""
cleanup () {
  [ -n "$pid" ] && { kill "$pid" 2> /dev/null; rm -f /dev/shm/heaplens-$uid-$pid-*; }
  rm -rf "$WORK"
}
trap cleanup EXIT
unset MALLOC_CHECK_ MALLOC_PERTURB_ G_DEBUG
n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
eq () { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:      $2" "expected: $3"; fi; }
has () { if grep -Eq "$3" "$2"; then ok "$1"; else not_ok "$1" "no line matches: $3"; sed 's/^/# /' "$2"; fi; }
hasnt () { if grep -Eq "$3" "$2"; then not_ok "$1" "a line matches: $3"; sed 's/^/# /' "$2"; else ok "$1"; fi; }
waitfile () { for i in $(seq 1 400); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }

HEAPLENS_OUTPUT="$WORK/t.hltrace" LD_PRELOAD="$PRELOAD" "$T" "$WORK" > "$WORK/t.out" 2>&1 &
pid=$!
waitfile "$WORK/ready"
"$CLI" top "$pid" --diff-after 3s --top 5 > "$WORK/top.txt" 2> "$WORK/top.err" &
top=$!
# the first moment is taken before top says what it watches
for i in $(seq 1 400); do
  grep -q watching "$WORK/top.err" 2> /dev/null && break
  sleep 0.05
done
sleep 0.05
touch "$WORK/go"
waitfile "$WORK/done"
wait "$top"
eq "top --diff-after exits 0" "$?" "0"
touch "$WORK/release"
wait "$pid"
eq "t-top-diff ended" "$?" "0"
pid=""
has "top --diff-after: said what it watches" "$WORK/top.err" 'watching pid [0-9]+ for 3\.0 s'
has "top --diff-after: the total is new_site's 30 blocks of 500 bytes" "$WORK/top.txt" \
  '^allocated after [0-9.]+ s and still live at [0-9.]+ s: 14\.65 KiB in 30 blocks$'
has "top --diff-after: new_site first, with its 30 blocks" "$WORK/top.txt" '^ +14\.65 KiB +30  .*new_site'
hasnt "top --diff-after: nothing of old_site (allocated before)" "$WORK/top.txt" 'old_site'
hasnt "top --diff-after: nothing of temp_site (freed)" "$WORK/top.txt" 'temp_site'
"$CLI" top 1 --diff-after soon > /dev/null 2> "$WORK/bad.err"
eq "top --diff-after soon: a usage error" "$?" "2"
has "top --diff-after soon: says what a duration is" "$WORK/bad.err" 'not a duration'

echo "1..$n"
exit $failed
