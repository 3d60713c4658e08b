#!/bin/sh
# Real programs behave identically under the preload (output, exit status)
# and leave a trace that decodes cleanly: python3, sqlite3, gcc, git, and a
# multithreaded C++ program.
. "$(dirname "$0")/tap-lib.sh"

# real NAME COMMAND...: same output and status, and a clean trace
real () {
  name=$1
  shift
  "$@" > "$WORK/plain.out" 2> "$WORK/plain.err"
  want=$?
  under_preload "$WORK/$name.hltrace" "$@" > "$WORK/pre.out" 2> "$WORK/pre.err"
  eq "$name: same exit status" "$?" "$want"
  cmp -s "$WORK/plain.out" "$WORK/pre.out"
  ok $? "$name: same output"
  summarize "$WORK/$name.hltrace" "$WORK/$name.sum"
  check "$name: allocations recorded ($(field "$WORK/$name.sum" allocs))" test "$(field "$WORK/$name.sum" allocs)" -ge 10
  eq "$name: trace decodes cleanly" "$(field "$WORK/$name.sum" bad_events)/$(field "$WORK/$name.sum" bad_checksum)/$(field "$WORK/$name.sum" bytes_ignored)" "0/0/0"
}

cat > "$WORK/script.py" << 'PY'
import json
d = {str(i): [i] * (i % 7) for i in range(20000)}
s = json.dumps(d)
print(len(s), sum(len(v) for v in json.loads(s).values()))
PY
if [ -x /usr/bin/python3 ]; then
  PYTHONMALLOC=malloc real python3 /usr/bin/python3 "$WORK/script.py"
  # Debian's python3 has no frame pointers: fp mode notices and switches
  PYTHONMALLOC=malloc HEAPLENS_UNWIND=fp HEAPLENS_OUTPUT=$WORK/pf.hltrace LD_PRELOAD=$HL_PRELOAD /usr/bin/python3 "$WORK/script.py" > "$WORK/pf.out" 2> "$WORK/pf.err"
  check "python3 fp: missing frame pointers detected, switched to DWARF" grep -q "frame pointers are missing on .* switching to the DWARF unwinder" "$WORK/pf.err"
  summarize "$WORK/pf.hltrace" "$WORK/pf.sum"
  check "python3 fp: full stacks after the switch ($(field "$WORK/pf.sum" max_frames) frames)" test "$(field "$WORK/pf.sum" max_frames)" -ge 10
  # no stack remembered in fp mode is used after the switch (a loop: the
  # same stacks before and after it)
  printf 'x = []\nfor i in range(60000):\n    x.append(str(i) * 3)\n    if len(x) > 100:\n        x = []\n' > "$WORK/loop.py"
  # (three runs: whether a stack is kept at the switch depends on the
  # address layout; the bug this guards against showed in 2 runs of 3)
  for _ in 1 2 3; do
    PYTHONMALLOC=malloc HEAPLENS_UNWIND=fp HEAPLENS_UNWIND_CHECK=1 HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD /usr/bin/python3 "$WORK/loop.py" > /dev/null 2>> "$WORK/ps.err"
  done
  check "python3 fp, switched: recent stacks = fresh unwinds ($(grep 'unwind check' "$WORK/ps.err" | sed 's/heaplens: unwind check: //' | tr '\n' ';'))" test "$(grep -c 'unwind check: [1-9][0-9]* stacks compared, 0 differ' "$WORK/ps.err")" = 3
  PYTHONMALLOC=malloc HEAPLENS_UNWIND=fp HEAPLENS_FP_CHECK=warn HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD /usr/bin/python3 "$WORK/script.py" > /dev/null 2> "$WORK/pw.err"
  check "python3 fp with HEAPLENS_FP_CHECK=warn: warned, kept fp" grep -q "frame pointers are missing on .* stacks are incomplete" "$WORK/pw.err"
  PYTHONMALLOC=malloc HEAPLENS_UNWIND_CHECK=1 HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD /usr/bin/python3 "$WORK/script.py" > /dev/null 2> "$WORK/u.err"
  check "python3: cached CFI stacks = unw_backtrace's ($(grep 'unwind check' "$WORK/u.err"))" grep -q "unwind check: [1-9][0-9]* stacks compared, 0 differ" "$WORK/u.err"
else
  ok 1 "/usr/bin/python3 is installed"
fi

cat > "$WORK/work.sql" << 'SQL'
CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, value REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
INSERT INTO t SELECT x, 'name' || x, x * 1.5 FROM c;
CREATE INDEX t_name ON t (name);
SELECT count(*), sum(value) FROM t WHERE name LIKE 'name1%';
SQL
if command -v sqlite3 > /dev/null; then
  real sqlite3 sqlite3 ":memory:" ".read $WORK/work.sql"
  HEAPLENS_UNWIND_CHECK=1 HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD sqlite3 ":memory:" ".read $WORK/work.sql" > /dev/null 2> "$WORK/u.err"
  check "sqlite3: cached CFI stacks = unw_backtrace's" grep -q "unwind check: [1-9][0-9]* stacks compared, 0 differ" "$WORK/u.err"
else
  ok 1 "sqlite3 is installed"
fi

cat > "$WORK/hello.c" << 'C'
#include <stdio.h>
int main (void) { puts ("hello"); return 0; }
C
real gcc gcc -O2 -c "$WORK/hello.c" -o "$WORK/hello.o"

git init -q "$WORK/repo" && (cd "$WORK/repo" && echo a > a && git add a && git -c user.email=t@t -c user.name=t commit -qm a && echo b > b)
real git git -C "$WORK/repo" status --porcelain

if [ -x "$D/t-gtk" ] && command -v xvfb-run > /dev/null; then
  # one X server for both runs; GTK without accessibility bus or settings
  cat > "$WORK/gtk.sh" << SH
#!/bin/sh
export GDK_BACKEND=x11 GTK_A11Y=none GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
unset WAYLAND_DISPLAY
"$D/t-gtk" > "$WORK/gtk-plain.out" 2> /dev/null
echo \$? > "$WORK/gtk-plain.rc"
HEAPLENS_OUTPUT="$WORK/gtk.hltrace" LD_PRELOAD="$HL_PRELOAD" "$D/t-gtk" > "$WORK/gtk-pre.out" 2> /dev/null
echo \$? > "$WORK/gtk-pre.rc"
SH
  chmod +x "$WORK/gtk.sh"
  xvfb-run -a -s "-screen 0 1024x768x24" "$WORK/gtk.sh" > /dev/null 2>&1
  eq "GTK4 application under Xvfb: same exit status" "$(cat "$WORK/gtk-pre.rc" 2> /dev/null)" "$(cat "$WORK/gtk-plain.rc" 2> /dev/null)"
  eq "GTK4 application under Xvfb: same output" "$(cat "$WORK/gtk-pre.out" 2> /dev/null)" "t-gtk: done"
  summarize "$WORK/gtk.hltrace" "$WORK/gtk.sum"
  check "GTK4 application: allocations recorded ($(field "$WORK/gtk.sum" allocs))" test "$(field "$WORK/gtk.sum" allocs)" -ge 10000
  check "GTK4 application: several threads ($(field "$WORK/gtk.sum" threads))" test "$(field "$WORK/gtk.sum" threads)" -ge 2
  eq "GTK4 application: trace decodes cleanly" "$(field "$WORK/gtk.sum" bad_events)/$(field "$WORK/gtk.sum" bad_checksum)" "0/0"
fi

if [ -x "$D/t-cxx-threads" ]; then
  real cxx-threads "$D/t-cxx-threads"
fi
finish
