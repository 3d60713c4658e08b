#!/bin/sh
# `heaplens-cli top`, `compress` and `dump` parse their options with
# GOptionContext: a bad value (`top --interval abc`) is a usage error, one
# line on stderr naming the option, and exit status 2 (docs/cli.md), never
# a silent 0; --help still prints the options and exits 0.
set -u
T=0
FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-cli-options.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CLI=$HL_CLI

ok () {
  T=$((T + 1))
  if [ "$1" -eq 0 ]; then echo "ok $T - $2"; else echo "not ok $T - $2"; FAILED=$((FAILED + 1)); fi
}
# usage_error DESCRIPTION REGEX ARGS...: status 2, one stderr line matching REGEX
usage_error () {
  desc=$1 re=$2
  shift 2
  "$CLI" "$@" > "$WORK/out" 2> "$WORK/err" < /dev/null
  rc=$?
  if [ "$rc" -eq 2 ] && grep -Eq "$re" "$WORK/err" && [ "$(wc -l < "$WORK/err")" -eq 1 ] && [ ! -s "$WORK/out" ]; then
    ok 0 "$desc"
  else
    echo "# status $rc"; sed 's/^/# err: /' "$WORK/err"; sed 's/^/# out: /' "$WORK/out"
    ok 1 "$desc"
  fi
}
helps () { # helps DESCRIPTION REGEX ARGS...: status 0, the help on stdout
  desc=$1 re=$2
  shift 2
  "$CLI" "$@" > "$WORK/out" 2> "$WORK/err" < /dev/null
  rc=$?
  if [ "$rc" -eq 0 ] && grep -Eq -- "$re" "$WORK/out"; then ok 0 "$desc"; else echo "# status $rc"; ok 1 "$desc"; fi
}

usage_error "top --interval abc: a usage error" '^heaplens-cli top: .*abc.* --interval$' top 1 --interval abc
usage_error "top --interval 12abc: a usage error" '^heaplens-cli top: .*interval' top 1 --interval 12abc
usage_error "top --top x: a usage error" '^heaplens-cli top: .*x.* --top$' top 1 --top x
usage_error "top --interval without a value" '^heaplens-cli top: .*interval' top 1 --interval
usage_error "top --bogus: an unknown option" '^heaplens-cli top: .*bogus' top 1 --bogus
usage_error "top without PID|SESSION" '^heaplens-cli top: expected one PID or SESSION' top
usage_error "top with two targets" '^heaplens-cli top: expected one PID or SESSION' top 1 2
helps "top --help lists --interval" '--interval(=MS)? +refresh period \(default 1000\)' top --help

usage_error "compress --level abc: a usage error" "^heaplens-cli compress: --level takes 1\.\.19, not 'abc'" \
  compress --level abc "$WORK/none.hltrace"
usage_error "compress --level 25: out of range" "^heaplens-cli compress: --level takes 1\.\.19, not '25'" \
  compress --level 25 "$WORK/none.hltrace"
usage_error "compress --frame-mib 0: out of range" "^heaplens-cli compress: --frame-mib takes 1\.\.64, not '0'" \
  compress --frame-mib 0 "$WORK/none.hltrace"
usage_error "compress without FILE" '^heaplens-cli compress: expected one trace FILE' compress
usage_error "compress --bogus" '^heaplens-cli compress: .*bogus' compress --bogus "$WORK/none.hltrace"
helps "compress --help lists --level" '--level(=N)? +zstd level 1\.\.19 \(default 3\)' compress --help

usage_error "dump --bogus: an unknown option" '^heaplens-cli dump: .*bogus' dump --bogus "$WORK/none.hltrace"
usage_error "dump without FILE" '^heaplens-cli dump: expected one trace FILE' dump
usage_error "dump with two files" '^heaplens-cli dump: expected one trace FILE' dump a b
helps "dump --help lists --offsets and the exit statuses" '--offsets +prefix each event' dump --help
"$CLI" dump --help | grep -q '^Exit status: 0 when the trace decoded cleanly'
ok $? "dump --help says the exit statuses"
# a file that is not there is not a usage error: dump says why, status 2 as before
"$CLI" dump -- "$WORK/none.hltrace" > /dev/null 2> "$WORK/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "none.hltrace" "$WORK/err"
ok $? "dump -- FILE: FILE read after --"
echo "1..$T"
[ "$FAILED" -eq 0 ]
