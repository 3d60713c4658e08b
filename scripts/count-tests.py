#!/usr/bin/python3
"""Counts the individual test cases of a meson test run.

Reads meson-logs/testlog.json (one JSON object per test binary), counts the
TAP cases each binary printed ("ok", "not ok", "# SKIP"), counts the cases a
binary planned but never reached (it crashed) as failed, and prints one line:

    tests: N passed, N failed, N skipped

With --skip-is-failure SUITE (repeatable), a skipped case of that suite
counts as failed: in CI a GUI test that skipped tested nothing.
Before that line, each failing binary's last lines of output (the failed
case and its assertion) and a "failed:" line naming it.
Exit status: 0 when nothing failed, 1 otherwise.
"""
import json
import re
import sys

PLAN = re.compile(r"^1\.\.(\d+)")
CASE = re.compile(r"^(not ok|ok)\b(.*)$")
SKIP = re.compile(r"#\s*skip", re.IGNORECASE)
TODO = re.compile(r"#\s*todo", re.IGNORECASE)
TAIL_LINES = 15


def count_one(test, skip_is_failure):
    passed = failed = skipped = 0
    planned = None
    seen = 0
    for line in (test.get("stdout") or "").splitlines():
        m = PLAN.match(line)
        if m and planned is None:
            planned = int(m.group(1))
            if planned == 0 and SKIP.search(line):
                skipped += 1
            continue
        m = CASE.match(line)
        if not m:
            continue
        seen += 1
        ok = m.group(1) == "ok"
        rest = m.group(2)
        if SKIP.search(rest):
            skipped += 1
        elif TODO.search(rest):
            passed += 1 if ok else 0
            skipped += 0 if ok else 1
        elif ok:
            passed += 1
        else:
            failed += 1
    if planned is not None and seen < planned:
        failed += planned - seen  # the binary stopped before these
    result = test.get("result", "")
    if seen == 0 and planned is None:
        # Not a TAP test: the binary is one case.
        if result == "OK":
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
    elif result not in ("OK", "SKIP", "EXPECTEDFAIL") and failed == 0:
        failed += 1  # crashed, timed out or exited non-zero after its cases
    suites = test.get("suite") or []
    if skipped and any(s.split(":")[-1] in skip_is_failure for s in suites):
        failed += skipped
        skipped = 0
    return passed, failed, skipped


def log_tail(test, n_lines=TAIL_LINES):
    """The last lines of a failing binary's output, stdout then stderr, so
    that a CI log names the case and the assertion that failed."""
    lines = []
    for stream in ("stdout", "stderr"):
        text = test.get(stream) or ""
        lines += text.splitlines()[-n_lines:]
    return lines


def main(argv):
    skip_is_failure = set()
    paths = []
    i = 1
    while i < len(argv):
        if argv[i] == "--skip-is-failure" and i + 1 < len(argv):
            skip_is_failure.add(argv[i + 1])
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    if not paths:
        print("usage: count-tests.py [--skip-is-failure SUITE] testlog.json", file=sys.stderr)
        return 2
    totals = [0, 0, 0]
    failing = []
    tails = []
    try:
        with open(paths[0], encoding="utf-8") as log:
            for line in log:
                line = line.strip()
                if not line:
                    continue
                test = json.loads(line)
                counts = count_one(test, skip_is_failure)
                for k in range(3):
                    totals[k] += counts[k]
                if counts[1]:
                    failing.append("%s (%d failed)" % (test.get("name"), counts[1]))
                    tails.append((test.get("name"), log_tail(test)))
    except (OSError, ValueError) as e:
        print("count-tests: cannot read %s: %s" % (paths[0], e), file=sys.stderr)
        totals[1] += 1
    for name, tail in tails:
        print("--- the end of %s's output:" % name)
        for line in tail:
            print("  | " + line)
    for name in failing:
        print("failed: " + name)
    print("tests: %d passed, %d failed, %d skipped" % tuple(totals))
    return 1 if totals[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
