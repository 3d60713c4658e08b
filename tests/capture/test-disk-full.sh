#!/bin/sh
# A full disk for the trace (issue 26, point 12): the output directory is a
# 256 KiB tmpfs (in a private mount namespace: unshare -m as root, else
# unshare -rm; skipped where neither is allowed). t-diskfull makes 101,000
# allocations and leaves 1,000 blocks (515,000 bytes) not freed; its trace
# needs about 700 KB. The program runs as without the preload, one line
# says where and why the trace stopped, the trace ends at its last whole
# packet with the record of the cut, and the report says so: its numbers
# are up to the cut, never called leaks, and with record the session's
# exact totals. Then the same with the file-size limit (EFBIG): no SIGXFSZ.
. "$(dirname "$0")/tap-lib.sh"

if [ "${1:-}" != inside ]; then
  for how in "unshare -m" "unshare -rm"; do
    if $how sh -c 'mount -t tmpfs -o size=1m tmpfs /mnt' > /dev/null 2>&1; then
      exec $how sh "$0" inside
    fi
  done
  echo "1..0 # SKIP no private mount namespace here (unshare -m and unshare -rm refused)"
  exit 0
fi

DISK=$WORK/disk
mkdir -p "$DISK"
mount -t tmpfs -o size=256k tmpfs "$DISK" || { echo "1..0 # SKIP cannot mount a tmpfs"; exit 0; }
"$D/t-diskfull" > "$WORK/plain.out" 2>&1
plain_rc=$?

# report_of TRACE NAME: the text and JSON reports, and their status
report_of () {
  "$HL_CLI" report "$1" > "$WORK/$2.rep" 2> "$WORK/$2.rep.err"
  echo $? > "$WORK/$2.rep.rc"
  "$HL_CLI" report --json "$1" > "$WORK/$2.json" 2> /dev/null
}

# cut_reason NAME: summary.trace_cut.reason of the JSON report
cut_reason () {
  python3 -c 'import json,sys; c = json.load(open(sys.argv[1]))["summary"]["trace_cut"]; print(c["reason"] if c and c["at_ns"] > 0 else "none")' "$WORK/$1.json"
}

# The bare preload
HEAPLENS_OUTPUT=$DISK/p.hltrace LD_PRELOAD=$HL_PRELOAD "$D/t-diskfull" > "$WORK/p.out" 2> "$WORK/p.err"
eq "bare preload: the program's status and output" "$?/$(cat "$WORK/p.out")" "$plain_rc/$(cat "$WORK/plain.out")"
eq "bare preload: one line on stderr" "$(wc -l < "$WORK/p.err")" 1
check "bare preload: it says where and why ($(cat "$WORK/p.err"))" \
  grep -q "^heaplens: the trace $DISK/p.hltrace stopped at [0-9]*\.[0-9]* s: No space left on device (ENOSPC): the events after it are dropped, the program goes on$" "$WORK/p.err"
"$SUMMARY" "$DISK/p.hltrace" > "$WORK/p.sum" 2>&1
eq "bare preload: the trace is whole packets" "$(field "$WORK/p.sum" bad_events)/$(field "$WORK/p.sum" bad_checksum)/$(field "$WORK/p.sum" bytes_ignored)" "0/0/0"
check "bare preload: the trace holds its start ($(field "$WORK/p.sum" allocs) allocations)" test "$(field "$WORK/p.sum" allocs)" -ge 10000
report_of "$DISK/p.hltrace" p
eq "bare preload: report exits 0" "$(cat "$WORK/p.rep.rc")" 0
check "bare preload: report says cut by a full disk" grep -q "^  trace cut: *at [0-9.]* s by a full disk (ENOSPC): numbers up to [0-9.]* s$" "$WORK/p.rep"
check "bare preload: what is live at the cut is not freed by it" grep -q "^  not freed: .* blocks by [0-9.]* s (the trace was cut)$" "$WORK/p.rep"
check "bare preload: nothing called leaked" sh -c "! grep -q '^  leaked:\|most memory leaked' '$WORK/p.rep'"
eq "bare preload: report --json trace_cut.reason" "$(cut_reason p)" ENOSPC
rm -f "$DISK"/*

# record
"$HL_CLI" record -o "$DISK/r.hltrace" -- "$D/t-diskfull" > "$WORK/r.out" 2> "$WORK/r.err"
eq "record: the program's status and output" "$?/$(cat "$WORK/r.out")" "$plain_rc/$(cat "$WORK/plain.out")"
eq "record: the preload's line, once" "$(grep -c "^heaplens: the trace $DISK/r.hltrace stopped at .* (ENOSPC)" "$WORK/r.err")" 1
check "record: the end line has the session's exact totals and the cut" \
  grep -q "^heaplens: $DISK/r.hltrace: 101000 allocations, 100000 frees, .*; trace cut at [0-9.]* s by a full disk (ENOSPC): numbers up to [0-9.]* s in it, these are the whole run's" "$WORK/r.err"
"$SUMMARY" "$DISK/r.hltrace" > "$WORK/r.sum" 2>&1
eq "record: the trace left plain is whole packets" "$(field "$WORK/r.sum" bad_events)/$(field "$WORK/r.sum" bad_checksum)" "0/0"
report_of "$DISK/r.hltrace" r
eq "record: report exits 0" "$(cat "$WORK/r.rep.rc")" 0
check "record: report says cut" grep -q "^  trace cut: *at [0-9.]* s by a full disk (ENOSPC): numbers up to [0-9.]* s$" "$WORK/r.rep"
check "record: report gives the whole run's totals" \
  grep -q "^  whole run: *101000 allocations, 100000 frees, .*, 502.93 KiB in 1000 blocks not freed at exit, .* (the session's counters)$" "$WORK/r.rep"
check "record: nothing called leaked" sh -c "! grep -q '^  leaked:\|most memory leaked' '$WORK/r.rep'"
eq "record: report --json trace_cut.reason" "$(cut_reason r)" ENOSPC
eq "record: report --json the session's allocations and blocks" \
  "$(python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))["summary"]["trace_cut"]["session"]; print(s["allocations"], s["not_freed_blocks"], s["not_freed_bytes"])' "$WORK/r.json")" \
  "101000 1000 515000"
rm -f "$DISK"/*
umount "$DISK"

# The file-size limit (8,192,000 bytes; the trace of 2 M rounds is larger):
# the preload stops before it, the program never gets SIGXFSZ
"$D/t-diskfull" 2000000 > "$WORK/fplain.out" 2>&1
prlimit --fsize=8192000 env HEAPLENS_OUTPUT="$WORK/f.hltrace" LD_PRELOAD="$HL_PRELOAD" "$D/t-diskfull" 2000000 \
  > "$WORK/f.out" 2> "$WORK/f.err"
eq "file-size limit: the program's status (153 is SIGXFSZ) and output" "$?/$(cat "$WORK/f.out")" "0/$(cat "$WORK/fplain.out")"
eq "file-size limit: the trace stopped, said once" \
  "$(grep -c "^heaplens: the trace reached the file size limit (ulimit -f): the events after it are dropped, the program goes on$" "$WORK/f.err")" 1
report_of "$WORK/f.hltrace" f
check "file-size limit: report says cut by it" grep -q "^  trace cut: *at [0-9.]* s by the file size limit (EFBIG)" "$WORK/f.rep"
eq "file-size limit: report --json trace_cut.reason" "$(cut_reason f)" EFBIG
finish
