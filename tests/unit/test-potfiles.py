#!/usr/bin/python3
"""TAP: po/POTFILES.in lists exactly the files with translatable strings."""
import os
import re
import sys

ROOT = os.environ.get("HL_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
MARKERS = {
    ".c": re.compile(r"\b(N?_|C_|NC_|g_dngettext|ngettext)\s*\("),
    ".ui": re.compile(r'translatable="yes"'),
    ".xml": re.compile(r"<(summary|description|name|p|li)\b"),
    ".in": re.compile(r"^(Name|Comment|GenericName|Keywords)=", re.M),
}


def translatable_files():
    found = set()
    for top in ("src", "data"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                path = os.path.relpath(os.path.join(dirpath, name), ROOT)
                ext = os.path.splitext(name)[1]
                if ext not in MARKERS:
                    continue
                if ext == ".xml" and not name.endswith((".metainfo.xml", ".metainfo.xml.in", ".gschema.xml")):
                    continue
                if ext == ".in" and ".desktop" not in name:
                    continue
                if ext == ".xml" and name.endswith(".gschema.xml"):
                    continue  # schema summaries are not shown to users
                if ext == ".c" and "/capture/" in path or ext == ".c" and "/format/" in path:
                    continue  # libc-only layers have no gettext
                with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
                    if MARKERS[ext].search(f.read()):
                        found.add(path)
    return found


def listed_files():
    path = os.path.join(ROOT, "po", "POTFILES.in")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


found = translatable_files()
listed = listed_files()
print("1..3")
print(("ok" if listed is not None else "not ok") + " 1 - po/POTFILES.in exists")
listed = listed or set()
missing = sorted(found - listed)
print(("ok" if not missing else "not ok") + " 2 - every file with translatable strings is listed")
for m in missing:
    print("# not in po/POTFILES.in: " + m)
stale = sorted(p for p in listed if not os.path.exists(os.path.join(ROOT, p)))
print(("ok" if not stale else "not ok") + " 3 - every listed file exists")
for s in stale:
    print("# listed but missing: " + s)
