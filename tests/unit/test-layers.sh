#!/bin/sh
# TAP: the dependency rules of ARCHITECTURE.md hold in the sources and in
# what the binaries link (app -> model -> format <- capture; cli -> model).
src="$HL_SOURCE_ROOT/src"
echo "1..5"
n=0
check_includes() { # $1 layer, $2 forbidden include pattern, $3 rule
	n=$((n + 1))
	hits=$(grep -rlE "#include[[:space:]]*[<\"]($2)" "$src/$1" --include='*.c' --include='*.h' 2>/dev/null)
	if [ -z "$hits" ]; then echo "ok $n - $3"; else echo "not ok $n - $3"; echo "$hits" | sed 's/^/# /'; fi
}
check_includes capture 'glib|gio|gtk|adwaita|elfutils|libdw|cairo|zstd' "capture includes libc and format only"
check_includes format 'glib|gio|gtk|adwaita|elfutils|libdw|cairo' "format includes libc only"
check_includes model 'gtk|adwaita' "model never includes GTK"
check_includes cli 'gtk|adwaita' "cli never includes GTK"
n=$((n + 1))
needed=$(readelf -d "$HL_BUILD_ROOT/src/cli/heaplens-cli" 2>&1 | grep NEEDED)
if [ -n "$needed" ] && ! echo "$needed" | grep -qE 'libgtk|libadwaita|libgdk|libcairo'; then
	echo "ok $n - heaplens-cli links no GTK, GDK or cairo (runs on a server)"
else
	echo "not ok $n - heaplens-cli links no GTK, GDK or cairo (runs on a server)"; echo "$needed" | sed 's/^/# /'
fi
