#!/bin/sh
# The desktop file and the metainfo are made again when a translation
# changes: ninja lists every po file of po/LINGUAS among their inputs.
#   test-data-deps.sh BUILD_DIR SOURCE_DIR
build=$1
src=$2
n=0
fail=0
langs=$(grep -v '^#' "$src/po/LINGUAS" | tr -s ' \n' ' ')
echo "1..2"
for out in org.heaplens.Heaplens.desktop org.heaplens.Heaplens.metainfo.xml; do
	n=$((n + 1))
	inputs=$(ninja -C "$build" -t query "data/$out" 2>&1)
	ok=yes
	[ -n "$langs" ] || ok=no
	for lang in $langs; do
		echo "$inputs" | grep -q "po/$lang.po\$" || ok=no
	done
	if [ $ok = yes ]; then
		echo "ok $n - $out depends on the po files ($langs)"
	else
		echo "not ok $n - $out depends on the po files ($langs)"
		echo "$inputs" | sed 's/^/# /'
		fail=1
	fi
done
exit $fail
