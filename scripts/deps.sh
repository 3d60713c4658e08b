#!/bin/sh
# Installs the Debian 12 packages Heaplens needs.
#   scripts/deps.sh          build + run dependencies
#   scripts/deps.sh --test   also what the test suite, fuzzing and benchmarks use
# Quiet and quick when everything is already installed.
set -eu

BUILD_PKGS="meson ninja-build pkg-config gcc g++ gettext
  libglib2.0-dev libglib2.0-bin libgtk-4-dev libadwaita-1-dev
  libdw-dev libelf-dev libiberty-dev libzstd-dev libunwind8 libjson-glib-dev
  libprotobuf-c-dev protobuf-c-compiler
  desktop-file-utils appstream"
TEST_PKGS="valgrind heaptrack xvfb xauth openbox imagemagick clang libclang-rt-14-dev
  llvm sqlite3 python3 xdotool dbus-x11 at-spi2-core fonts-cantarell
  adwaita-icon-theme hicolor-icon-theme golang-go python3-jsonschema strace"

pkgs="$BUILD_PKGS"
if [ "${1:-}" = "--test" ]; then
	pkgs="$pkgs $TEST_PKGS"
fi

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

SUDO=""
if [ "$(id -u)" != 0 ]; then
	SUDO="sudo"
fi
echo "heaplens: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
