#!/bin/sh
# Out of memory (issue 26, point 1): under `prlimit --as` t-hog allocates
# until malloc fails, then aborts; the preload, whose own mappings fail too,
# neither crashes nor hangs it, and under record the trace keeps every
# allocation and names the signal. The OOM killer itself sends SIGKILL,
# which test-killed covers; a memory cgroup to provoke it is not made here
# (the one mounted on this kind of machine is the host's, not the test's).
. "$(dirname "$0")/tap-lib.sh"

command -v prlimit > /dev/null || { echo "1..0 # SKIP no prlimit"; exit 0; }

limit=$((768 << 20))
prlimit --as=$limit "$D/t-hog" > "$WORK/plain.out" 2> /dev/null
eq "t-hog without the preload: aborts" "$?" 134
"$HL_CLI" record --no-costs -o "$WORK/o.hltrace" -- prlimit --as=$limit "$D/t-hog" > "$WORK/o.out" 2> "$WORK/o.err"
eq "record, out of memory: status 134" "$?" 134
n=$(cat "$WORK/o.out")
check "record, out of memory: t-hog got blocks ($n)" test "${n:-0}" -gt 100
# prlimit execs t-hog: -o names the last image's trace (docs/capture.md)
tr=$WORK/o.hltrace
summarize "${tr:-$WORK/none}" "$WORK/o.sum"
got=$(field "$WORK/o.sum" allocs)
check "record, out of memory: every allocation in the trace ($got, $n made)" test "${got:-0}" -ge "${n:-1}"
eq "record, out of memory: the trace ends with END 134" "$(field "$WORK/o.sum" end_status)" 134
"$HL_CLI" report "${tr:-$WORK/none}" > "$WORK/o.report" 2>&1
check "record, out of memory: report names SIGABRT" grep -q "ended by: *SIGABRT (signal 6)" "$WORK/o.report"
finish
