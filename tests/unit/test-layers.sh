#!/bin/sh
# TAP: the dependency rules of ARCHITECTURE.md hold in the sources and in
# what the binaries link (app -> model -> format <- capture; cli -> model),
# and the rooms stay rooms: format's private headers are format's, model's
# public API is hl-model.h, no include circles inside a layer, no source
# file over 1,000 lines.
src="$HL_SOURCE_ROOT/src"
here=$(dirname "$0")
echo "1..16"
n=0
ok() { # $1 hits (empty: ok), $2 rule
	n=$((n + 1))
	if [ -z "$1" ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; echo "$1" | sed 's/^/# /'; fi
}
includes() { # $1 folder: every 'file: header' of its quoted includes
	grep -rHoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' "$1" --include='*.c' --include='*.h' 2>/dev/null |
		sed -E 's|^'"$src"'/||; s|:[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)"$|: \1|'
}
check_includes() { # $1 layer, $2 forbidden include pattern, $3 rule
	ok "$(grep -rlE "#include[[:space:]]*[<\"]($2)" "$src/$1" --include='*.c' --include='*.h' 2>/dev/null)" "$3"
}
check_includes capture 'glib|gio|gtk|adwaita|elfutils|libdw|cairo|zstd' "capture includes libc and format only"
check_includes format 'glib|gio|gtk|adwaita|elfutils|libdw|cairo' "format includes libc only"
check_includes model 'gtk|adwaita' "model never includes GTK"
check_includes cli 'gtk|adwaita' "cli never includes GTK"
needed=$(readelf -d "$HL_BUILD_ROOT/src/cli/heaplens-cli" 2>&1 | grep NEEDED)
if [ -n "$needed" ] && ! echo "$needed" | grep -qE 'libgtk|libadwaita|libgdk|libcairo'; then
	ok "" "heaplens-cli links no GTK, GDK or cairo (runs on a server)"
else
	ok "${needed:-no NEEDED entries}" "heaplens-cli links no GTK, GDK or cairo (runs on a server)"
fi

# Format's headers: the public ones sit in src/format/include, its private
# ones (byte-level helpers of its own files) in src/format/private, which
# only format's own sources and its white-box tests have on their include
# path.
format_all=$(find "$src/format" -name '*.h' -exec basename {} \; | sort -u)
format_private=$( { find "$src/format/private" -name '*.h' 2>/dev/null; find "$src/format" -name '*-private.h'; } |
	xargs -r -n1 basename | sort -u)
in_list() { # $1 header, $2 newline-separated list
	printf '%s\n' "$2" | grep -qxF "$1"
}
hits=""
for f in $(includes "$src/app" | awk '{ print $1 $2 }'); do
	h=${f#*:}
	in_list "$h" "$format_all" && hits="$hits${f%%:*}: $h
"
done
ok "$(printf %s "$hits" | sed '/^$/d')" "app includes no format header (it reaches format through model)"
hits=""
for layer in model cli capture; do
	for f in $(includes "$src/$layer" | awk '{ print $1 $2 }'); do
		h=${f#*:}
		in_list "$h" "$format_private" && hits="$hits${f%%:*}: $h
"
	done
done
ok "$(printf %s "$hits" | sed '/^$/d')" "model, cli and capture include only format's public headers"
hits=""
for h in $(find "$src/format" -name '*.h'); do
	in_list "$(basename "$h")" "$format_private" && continue
	grep -qE 'for tests|For tests' "$h" && hits="$hits${h#"$src"/}
"
done
ok "$(printf %s "$hits" | sed '/^$/d')" \
	"format's public headers declare nothing 'for tests'"

# Model: hl-model.h is the whole public API; app and cli include it, and
# none of model's other headers (what it pulls in is public, the rest is
# model's own).
model_all=$(find "$src/model" -name '*.h' -exec basename {} \; | sort -u)
hits=""
for layer in app cli; do
	for f in $(includes "$src/$layer" | awk '{ print $1 $2 }'); do
		h=${f#*:}
		[ "$h" = hl-model.h ] && continue
		in_list "$h" "$model_all" && hits="$hits${f%%:*}: $h
"
	done
done
ok "$(printf %s "$hits" | sed '/^$/d')" "app and cli include model's hl-model.h only"
model_public=$(python3 "$here/include-closure.py" "$src/model" hl-model.h)
hits=""
for h in $model_public; do
	grep -qE 'for tests|For tests' "$src/model/$h" && hits="$hits$h
"
done
ok "$(printf %s "$hits" | sed '/^$/d')" "model's public headers (hl-model.h and what it includes) declare nothing 'for tests'"

# Inside a layer, no two files depend on each other in a circle.
for layer in app model cli format capture; do
	ok "$(python3 "$here/include-cycles.py" "$src/$layer")" "no include circle among $layer's files"
done

ok "$(find "$src" -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 1000 { sub("'"$src"'/", "", $2); print $2 ": " $1 " lines" }')" \
	"no source file in src/ is over 1,000 lines"
