#!/bin/sh
# TAP: the demo program is deterministic and behaves as documented.
demo="$HL_BUILD_ROOT/examples/heaplens-demo"
echo "1..4"
a=$("$demo" --seconds 0 --seed 3)
b=$("$demo" --seconds 0 --seed 3)
c=$("$demo" --seconds 0 --seed 4)
[ -n "$a" ] && [ "$a" = "$b" ] && echo "ok 1 - same seed, same output" || echo "not ok 1 - same seed, same output ($a / $b)"
[ "$a" != "$c" ] && echo "ok 2 - another seed, another run" || echo "not ok 2 - another seed, another run"
"$demo" --bogus >/dev/null 2>&1; st=$?
[ "$st" = 2 ] && echo "ok 3 - a bad option exits 2" || echo "not ok 3 - a bad option exits 2 (got $st)"
start=$(date +%s%N)
"$demo" --seconds 0.5 >/dev/null; st=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$st" = 0 ] && [ "$elapsed" -ge 400 ] && echo "ok 4 - --seconds paces the run (${elapsed} ms for 0.5 s)" || echo "not ok 4 - --seconds paces the run (status $st, ${elapsed} ms)"
