#!/bin/sh
# Oracles no one here wrote: for deterministic programs, the allocations,
# frees, bytes allocated and leaked bytes/blocks decoded from our trace
# equal Valgrind memcheck's "total heap usage" line and its leak summary
# (definitely + indirectly + possibly lost + still reachable), exactly.
# Valgrind runs with --run-libc-freeres=no --run-cxx-freeres=no: at exit it
# would otherwise free libc's and libstdc++'s own buffers (libstdc++'s
# 72704-byte emergency exception pool), frees the program never makes.
# heaptrack_print is a second oracle; it differs by a fixed amount
# explained below.
. "$(dirname "$0")/tap-lib.sh"
# heaptrack opens heaptrack_gui at the end of a recording when it is
# installed, and under Xvfb that window never closes
if command -v heaptrack > /dev/null 2>&1; then
  heaptrack () { "${HL_SOURCE_ROOT:?}/scripts/heaptrack-nogui.sh" "$@"; }
fi

num () { tr -d ',' ; }

# vg_field FILE REGEX: the first number after REGEX
vg_counts () {
  vg=$1
  line=$(grep 'total heap usage' "$vg" | num)
  VG_ALLOCS=$(echo "$line" | sed -n 's/.*usage: \([0-9]*\) allocs.*/\1/p')
  VG_FREES=$(echo "$line" | sed -n 's/.* \([0-9]*\) frees.*/\1/p')
  VG_BYTES=$(echo "$line" | sed -n 's/.* \([0-9]*\) bytes allocated.*/\1/p')
  VG_LEAK_BYTES=0
  VG_LEAK_BLOCKS=0
  for kind in "definitely lost" "indirectly lost" "possibly lost" "still reachable"; do
    l=$(grep "$kind:" "$vg" | head -n 1 | num)
    b=$(echo "$l" | sed -n 's/.*: \([0-9]*\) bytes in \([0-9]*\) blocks.*/\1/p')
    n=$(echo "$l" | sed -n 's/.*: \([0-9]*\) bytes in \([0-9]*\) blocks.*/\2/p')
    VG_LEAK_BYTES=$((VG_LEAK_BYTES + ${b:-0}))
    VG_LEAK_BLOCKS=$((VG_LEAK_BLOCKS + ${n:-0}))
  done
}

programs="t-entry:--no-pvalloc t-churn:20000 t-tree: t-strings:"
if [ "${HL_HAVE_CXX:-0}" = 1 ]; then
  programs="$programs t-cxx:"
fi

for spec in $programs; do
  name=${spec%%:*}
  arg=${spec#*:}
  under_preload "$WORK/$name.hltrace" "$D/$name" $arg > /dev/null 2>&1
  summarize "$WORK/$name.hltrace" "$WORK/$name.sum"
  valgrind --leak-check=full --show-leak-kinds=all --run-libc-freeres=no --run-cxx-freeres=no \
    "$D/$name" $arg > /dev/null 2> "$WORK/$name.vg"
  vg_counts "$WORK/$name.vg"
  eq "$name: allocations = Valgrind's" "$(field "$WORK/$name.sum" allocs)" "$VG_ALLOCS"
  eq "$name: frees = Valgrind's" "$(field "$WORK/$name.sum" frees)" "$VG_FREES"
  eq "$name: bytes allocated = Valgrind's" "$(field "$WORK/$name.sum" bytes)" "$VG_BYTES"
  eq "$name: leaked bytes = Valgrind's lost + reachable" "$(field "$WORK/$name.sum" leaked_bytes)" "$VG_LEAK_BYTES"
  eq "$name: leaked blocks = Valgrind's lost + reachable" "$(field "$WORK/$name.sum" leaked_blocks)" "$VG_LEAK_BLOCKS"
done

# heaptrack: its own preload links libstdc++, whose 72704-byte emergency
# exception pool is allocated at start-up (before main) and freed at exit
# inside the profiled process: heaptrack counts exactly one more call and a
# peak 72704 bytes higher. Its figures are printed rounded ("58.65K",
# 1000-based), so compare within the rounding.
# ht_value TEXT: bytes from "58.65K" / "10B" / "1.20M"
ht_value () {
  echo "$1" | awk '{ v = $1; u = substr(v, length(v)); n = substr(v, 1, length(v) - 1);
    m = 1; if (u == "K") m = 1000; else if (u == "M") m = 1000000; else if (u == "G") m = 1e9;
    printf "%.0f %.0f\n", n * m, m / 100 }'
}
close_to () { # close_to GOT WANT TOLERANCE
  d=$(($1 - $2)); [ "$d" -lt 0 ] && d=$((-d)); [ "$d" -le "$3" ]
}
if command -v heaptrack > /dev/null && command -v heaptrack_print > /dev/null; then
  for spec in t-churn:20000 t-tree: t-strings:; do
    name=${spec%%:*}
    arg=${spec#*:}
    rm -f "$WORK/ht".*
    heaptrack -o "$WORK/ht" "$D/$name" $arg > /dev/null 2>&1
    heaptrack_print "$WORK/ht.zst" > "$WORK/ht.txt" 2> /dev/null
    calls=$(sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p' "$WORK/ht.txt")
    eq "$name: heaptrack's calls = ours + 1 (its libstdc++ pool)" "$calls" "$(( $(field "$WORK/$name.sum" allocs) + 1 ))"
    set -- $(ht_value "$(sed -n 's/^total memory leaked: //p' "$WORK/ht.txt")")
    check "$name: heaptrack's leaked ($1) = ours within rounding" close_to "$1" "$(field "$WORK/$name.sum" leaked_bytes)" "$2"
    set -- $(ht_value "$(sed -n 's/^peak heap memory consumption: //p' "$WORK/ht.txt")")
    check "$name: heaptrack's peak ($1) = ours + 72704 within rounding" close_to "$1" "$(( $(field "$WORK/$name.sum" peak_bytes) + 72704 ))" "$2"
  done
else
  ok 1 "heaptrack and heaptrack_print are installed"
fi
finish
