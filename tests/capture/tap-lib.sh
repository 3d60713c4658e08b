# tap-lib.sh — TAP helpers for the capture test scripts (sourced).
# Environment from meson: HL_CAPTURE_DIR (targets), HL_PRELOAD, HL_CLI.
set -u
T=0
FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-capture.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
D=$HL_CAPTURE_DIR
SUMMARY=$D/hl-trace-summary
# The targets and tools run without the test environment's allocator
# checks, which would change what the allocator does.
unset MALLOC_CHECK_ MALLOC_PERTURB_ G_DEBUG

ok () {
  T=$((T + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $T - $2"
  else
    echo "not ok $T - $2"
    FAILED=$((FAILED + 1))
  fi
}

# eq DESCRIPTION GOT WANT
eq () {
  if [ "$2" = "$3" ]; then
    ok 0 "$1"
  else
    echo "# $1: got '$2', want '$3'"
    ok 1 "$1"
  fi
}

# check DESCRIPTION COMMAND...
check () {
  d=$1
  shift
  if "$@"; then ok 0 "$d"; else ok 1 "$d"; fi
}

finish () {
  echo "1..$T"
  [ "$FAILED" -eq 0 ]
  exit $?
}

# field FILE KEY: the value of KEY=VALUE in FILE
field () {
  sed -n "s/^$2=//p" "$1" | head -n 1
}

# under_preload TRACE COMMAND...: runs COMMAND with the preload writing TRACE
under_preload () {
  tr=$1
  shift
  rm -f "$tr"
  HEAPLENS_OUTPUT=$tr LD_PRELOAD=$HL_PRELOAD "$@"
}

# summarize TRACE OUT
summarize () {
  "$SUMMARY" "$1" > "$2" 2>&1
}
