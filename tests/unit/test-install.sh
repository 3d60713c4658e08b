#!/bin/sh
# TAP: `meson install` into a temporary DESTDIR produces a working installation.
# Arguments: the install prefix, then the expected files relative to it.
prefix=$1; shift
destdir=$(mktemp -d "${TMPDIR:-/tmp}/hl-install-XXXXXX")
trap 'rm -rf "$destdir"' EXIT
echo "1..$(( $# + 2 ))"
if meson install -C "$HL_BUILD_ROOT" --no-rebuild --quiet --destdir "$destdir" >"$destdir.log" 2>&1; then
	echo "ok 1 - meson install succeeds"
else
	echo "not ok 1 - meson install succeeds"; sed 's/^/# /' "$destdir.log" | tail -20
fi
rm -f "$destdir.log"
n=1
for f in "$@"; do
	n=$((n + 1))
	if [ -e "$destdir$prefix/$f" ]; then echo "ok $n - installs $f"; else echo "not ok $n - installs $f"; fi
done
n=$((n + 1))
version=$("$destdir$prefix/bin/heaplens-cli" --version 2>&1)
case "$version" in
	"heaplens-cli "[0-9]*) echo "ok $n - the installed heaplens-cli runs ($version)" ;;
	*) echo "not ok $n - the installed heaplens-cli runs ($version)" ;;
esac
