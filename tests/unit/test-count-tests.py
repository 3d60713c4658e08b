#!/usr/bin/python3
"""TAP test of scripts/count-tests.py, the counter CI trusts."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.environ.get("HL_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
COUNTER = os.path.join(ROOT, "scripts", "count-tests.py")

CASES = [
    # (name, tests in the log, extra args, expected line, expected status)
    ("tap cases are counted one by one",
     [{"name": "a", "suite": ["heaplens:format"], "result": "OK",
       "stdout": "1..3\nok 1 - x\nok 2 - y\nok 3 - z # SKIP no file\n"}],
     [], "tests: 2 passed, 0 failed, 1 skipped", 0),
    ("a failed case fails the run",
     [{"name": "a", "suite": ["heaplens:format"], "result": "FAIL",
       "stdout": "1..2\nok 1 - x\nnot ok 2 - y\n"}],
     [], "tests: 1 passed, 1 failed, 0 skipped", 1),
    ("cases a crashed binary never reached count as failed",
     [{"name": "a", "suite": ["heaplens:model"], "result": "FAIL",
       "stdout": "1..5\nok 1 - x\nok 2 - y\n"}],
     [], "tests: 2 passed, 3 failed, 0 skipped", 1),
    ("a crash after all cases still fails",
     [{"name": "a", "suite": ["heaplens:model"], "result": "FAIL",
       "stdout": "1..1\nok 1 - x\n"}],
     [], "tests: 1 passed, 1 failed, 0 skipped", 1),
    ("a non-TAP binary is one case",
     [{"name": "a", "suite": ["heaplens:unit"], "result": "OK", "stdout": "hello\n"},
      {"name": "b", "suite": ["heaplens:unit"], "result": "TIMEOUT", "stdout": ""}],
     [], "tests: 1 passed, 1 failed, 0 skipped", 1),
    ("a skipped GUI test is a failure in CI",
     [{"name": "a", "suite": ["heaplens:app"], "result": "SKIP",
       "stdout": "1..0 # SKIP no display\n"}],
     ["--skip-is-failure", "app"], "tests: 0 passed, 1 failed, 0 skipped", 1),
    ("indented subtest lines are not counted twice",
     [{"name": "a", "suite": ["heaplens:model"], "result": "OK",
       "stdout": "1..1\n    1..1\n    ok 1 - inner\nok 1 - outer\n"}],
     [], "tests: 1 passed, 0 failed, 0 skipped", 0),
]


def run(tests, extra):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        for t in tests:
            f.write(json.dumps(t) + "\n")
        path = f.name
    try:
        p = subprocess.run([sys.executable, COUNTER] + extra + [path],
                           capture_output=True, text=True, check=False)
    finally:
        os.unlink(path)
    return p.stdout.strip().splitlines()[-1], p.returncode, p.stdout


print("1..%d" % (len(CASES) + 2))
n = 0
for name, tests, extra, line, status in CASES:
    n += 1
    got_line, got_status, _ = run(tests, extra)
    ok = got_line == line and got_status == status
    print("%s %d - %s" % ("ok" if ok else "not ok", n, name))
    if not ok:
        print("# expected %r (exit %d), got %r (exit %d)" % (line, status, got_line, got_status))
n += 1
p = subprocess.run([sys.executable, COUNTER, "/nonexistent/testlog.json"],
                   capture_output=True, text=True, check=False)
ok = p.returncode == 1 and p.stdout.strip().endswith("tests: 0 passed, 1 failed, 0 skipped")
print("%s %d - a missing log is a failure, not a pass" % ("ok" if ok else "not ok", n))
n += 1
# a failing binary's last lines (the assertion) are shown, a passing one's not
_, _, out = run([{"name": "crashed", "suite": ["heaplens:model"], "result": "FAIL",
                  "stdout": "1..2\nok 1 - x\n",
                  "stderr": "\n".join("line %d" % i for i in range(40)) + "\nERROR: assertion failed (a > b)\n"},
                 {"name": "fine", "suite": ["heaplens:model"], "result": "OK",
                  "stdout": "1..1\nok 1 - quiet\n"}], [])
ok = ("  | ERROR: assertion failed (a > b)" in out and "  | line 39" in out
      and "  | line 0\n" not in out and "quiet" not in out
      and "failed: crashed (1 failed)" in out)
print("%s %d - a failing binary's last lines of output are printed" % ("ok" if ok else "not ok", n))
if not ok:
    print("# got " + repr(out))
