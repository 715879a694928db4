#!/usr/bin/env bash
# tests/cli/page_node_bounds.sh — the per-page bound holds for every kind of
# node, not for elements only (issue 32, defect 1): generated pages of
# elements, text between elements, comments, processing instructions,
# CDATA sections, doctypes and other <!...>, entities and attributes, at
# 1, 4 and 16 MB, each through `pagesift -j 1`: either refused with the
# bound named, or extracted, and in both cases within PEAK_MB of peak RSS
# and MAX_S seconds.  Before, the guard counted start tags only: 16 MB of
# "<?x?>" took 1.2 GB and 2.9 s, 64 MB 4.8 GB (docs/EXTRACTION.md, "Bounds").
# A sanitizer build (ASan's shadow memory and quarantine) checks the outcome
# and the time only.
set -u
command -v pagesift >/dev/null || { echo "SKIP: pagesift not on PATH"; exit 77; }
[[ -x /usr/bin/time ]] || { echo "SKIP: /usr/bin/time (GNU time) not installed"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
asan=0
[[ $(ldd "$(command -v pagesift)" 2>/dev/null) == *libasan* ]] && asan=1
PEAK_MB=${PEAK_MB:-300}   # 500 000 nodes of ~400 bytes + the page and its text
MAX_S=${MAX_S:-10}
(( asan )) && MAX_S=60

/usr/bin/python3 - "$t" <<'PY' || fail "generating the pages"
import sys
out = sys.argv[1]
units = {                      # one node kind each (and the text around it)
    "elements": "<span>x</span>",
    "void": "<br>",
    "text": "a<br>",
    "comments": "<!---->",
    "text-comments": "a<!---->",
    "pis": "<?x?>",
    "cdata": "<![CDATA[x]]>",
    "doctypes": "<!DOCTYPE html>",
    "bogus": "<!x>",
    "entities": "&amp;&lt;&#233;&eacute; ",
    "attributes": '<i a="1" b=2 c d=\'4\'>x</i>',
    "lt-text": "a < b ",
}
for mb in (1, 4, 16):
    for name, u in units.items():
        n = (mb << 20) // len(u)
        with open("%s/%s-%d.html" % (out, name, mb), "w") as f:
            f.write("<html><body><p>start</p>" + u * n + "<p>end</p></body></html>")
PY

for f in "$t"/*.html; do
    b=$(basename "$f" .html)
    /usr/bin/time -f "%M %e" -o "$t/time" pagesift -j 1 -q --format jsonl "$f" > "$t/out" 2> "$t/err"
    rc=$?
    read -r kb secs < <(tail -1 "$t/time")
    status=$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"], r.get("error") or "")' "$t/out" 2>/dev/null)
    [[ -n $status ]] || fail "$b: no record (exit $rc): $(head -c 300 "$t/err")"
    case $status in
        ok*|empty*) ;;
        failed*"refused before parsing"*|failed*"larger than the limit"*) ;;
        *) fail "$b: $status" ;;
    esac
    echo "$b: ${status%% *}, $((kb / 1024)) MB, $secs s"
    awk -v s="$secs" -v m="$MAX_S" 'BEGIN { exit !(s <= m) }' || fail "$b: $secs s (at most $MAX_S)"
    (( asan || kb / 1024 <= PEAK_MB )) || fail "$b: peak RSS $((kb / 1024)) MB (at most $PEAK_MB)"
done
echo "page_node_bounds: ok"
