#!/bin/sh
# Exactly one side removes each session segment, whatever the timing
# (docs/shm-layout.md §1, the hand-over; issue 26, point 10): a child that
# ends 0, 5, 20, 50 or 500 ms after the program, while `record` is
# finishing or after it is gone, leaves no segment of the run in /dev/shm.
. "$(dirname "$0")/tap-lib.sh"

# segments_of DIR: the session segments of this user whose trace is in DIR
segments_of () {
  n=0
  for f in /dev/shm/heaplens-"$(id -u)"-*; do
    [ -f "$f" ] || continue
    head -c 4096 "$f" 2> /dev/null | grep -qa "$1/" && n=$((n + 1))
  done
  echo $n
}

# wait_for FILE: until the children's last line is in FILE (at most 5 s)
wait_for () {
  for i in $(seq 50); do
    grep -q done "$1" 2> /dev/null && return
    sleep 0.1
  done
}

for ms in 0 5 20 50 500; do
  s=$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')
  for run in 1 2 3; do
    dir=$WORK/h$ms-$run
    mkdir "$dir"
    "$HL_CLI" record --no-costs -o "$dir/t.hltrace" -- bash -c "(sleep $s; echo done >> '$dir/log') & echo x" \
      > "$dir/out" 2> "$dir/err"
    eq "child ending $ms ms after the program (run $run): record exits 0" "$?" 0
    wait_for "$dir/log"
    # the child ends just after its line (a loaded machine may hold it off
    # its core a while): up to 3 s for its segment to go
    for i in $(seq 30); do
      [ "$(segments_of "$dir")" = 0 ] && break
      sleep 0.1
    done
    left=$(segments_of "$dir")
    [ "$left" = 0 ] || for f in /dev/shm/heaplens-"$(id -u)"-*; do
      head -c 4096 "$f" 2> /dev/null | grep -qa "$dir/" && echo "# left: $f, $(head -c 4096 "$f" | strings | grep -m 1 /)"
    done
    eq "child ending $ms ms after the program (run $run): no segment left" "$left" 0
  done
done

# the same when the program's children end before it does (the common case)
dir=$WORK/before
mkdir "$dir"
"$HL_CLI" record --no-costs -o "$dir/t.hltrace" -- bash -c "(echo done >> '$dir/log') & wait; echo x" \
  > "$dir/out" 2> "$dir/err"
sleep 0.3
eq "children ending first: no segment left" "$(segments_of "$dir")" 0
finish
