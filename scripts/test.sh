#!/bin/sh
# Installs the test dependencies, builds Heaplens with ASan/UBSan in
# build-test/, runs the whole test suite under one Xvfb and prints one
# closing line: "tests: N passed, N failed, N skipped" (individual cases).
#   scripts/test.sh [meson test arguments, e.g. --suite format]
set -eu
cd "$(dirname "$0")/.."
builddir=${HL_TEST_BUILDDIR:-build-test}

scripts/deps.sh --test

if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dapp=enabled -Dtests=true >"$builddir.setup.log" 2>&1 || {
		cat "$builddir.setup.log"
		echo "tests: 0 passed, 1 failed, 0 skipped"
		exit 1
	}
fi
if ! ninja -C "$builddir" >"$builddir.build.log" 2>&1; then
	tail -n 60 "$builddir.build.log"
	echo "tests: 0 passed, 1 failed, 0 skipped"
	exit 1
fi

# Everything runs in one X server; GUI tests must not skip.
unset WAYLAND_DISPLAY DEBUGINFOD_URLS
export GDK_BACKEND=x11 GTK_A11Y=none GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
rm -f "$builddir/meson-logs/testlog.json"
status=0
xvfb-run -a -s "-screen 0 1280x1024x24" \
	meson test -C "$builddir" --num-processes 2 --timeout-multiplier 3 \
	--print-errorlogs "$@" >"$builddir.test.log" 2>&1 || status=$?
grep -E '^ *[0-9]+/[0-9]+ ' "$builddir.test.log" | grep -vE ' OK ' || true
if [ ! -s "$builddir/meson-logs/testlog.json" ]; then
	tail -n 40 "$builddir.test.log"
	echo "tests: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
python3 scripts/count-tests.py --skip-is-failure app "$builddir/meson-logs/testlog.json" || status=1
[ "$status" = 0 ]
