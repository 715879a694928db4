#!/usr/bin/env bash
# --with-metadata (issue 31): text and Markdown get a YAML front matter
# block before the text: between "---" lines, one "key: value" a line, each
# value a JSON string, number or array (a YAML 1.2 scalar), so a title with
# quotes, a colon, "---" or a backslash cannot break it; the fields are the
# JSON Lines record's (absent ones left out); without the flag the output
# is the same as before; other formats are unchanged by it.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/page.html" <<'HTML'
<html lang="en"><head><title>Plan "B": --- the river\bank</title>
<meta name="author" content="Ann O'Neil">
<meta property="article:published_time" content="2026-03-04T10:00:00Z">
<meta property="article:tag" content="river"><meta property="article:tag" content="city: plans">
</head><body><article><h1>Plan "B": --- the river\bank</h1>
<p>The city council presented the new plan for the riverside promenade on Monday. According to the
mayor, the work should begin in the spring and take about two years.</p>
<p>Residents had long campaigned for more green space and safe cycle lanes, and many of them
welcomed the decision of the council after years of debate.</p></article></body></html>
HTML
printf '%s\thttps://news.example/2026/03/04/plan-b\n' "$tmp/page.html" > "$tmp/list"

for fmt in text markdown; do
  pagesift -q -f "$fmt" --with-metadata -l "$tmp/list" -o "$tmp/fm-$fmt"
  pagesift -q -f "$fmt" -l "$tmp/list" -o "$tmp/plain-$fmt"
  ext=txt; [ "$fmt" = markdown ] && ext=md
  cp "$tmp/fm-$fmt/page.$ext" "$tmp/$fmt.fm"
  cp "$tmp/plain-$fmt/page.$ext" "$tmp/$fmt.plain"
  pagesift -q -f jsonl -l "$tmp/list" > "$tmp/rec.jsonl"
  /usr/bin/python3 - "$tmp/$fmt.fm" "$tmp/$fmt.plain" "$tmp/rec.jsonl" <<'PY'
import json, sys
fm, plain, rec = open(sys.argv[1]).read(), open(sys.argv[2]).read(), json.loads(open(sys.argv[3]).read())
lines = fm.split("\n")
assert lines[0] == "---", lines[:3]
end = lines.index("---", 1)
front = {}
for l in lines[1:end]:
    k, v = l.split(": ", 1)
    front[k] = json.loads(v)
body = "\n".join(lines[end + 1:])
assert body == plain, "the text after the front matter is the output without it"
assert front["url"] == rec["url"] and front["id"] == rec["id"]
for k in ("title", "author", "date", "lang", "tags", "page_type"):
    assert front[k] == rec[k], (k, front.get(k), rec[k])
assert '"B"' in front["title"] and "---" in front["title"] and "\\" in front["title"], front["title"]
assert "site_name" not in front and "image" not in front  # absent fields left out
print(sys.argv[1].rsplit("/", 1)[1], "front matter:", sorted(front))
PY
done
# the records of JSON Lines and XML do not change with it
pagesift -q -f jsonl --with-metadata -l "$tmp/list" | cmp - "$tmp/rec.jsonl"
pagesift -q -f xml -l "$tmp/list" > "$tmp/a.xml"
pagesift -q -f xml --with-metadata -l "$tmp/list" | cmp - "$tmp/a.xml"
echo "OK"
