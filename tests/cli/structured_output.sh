#!/usr/bin/env bash
# tests/cli/structured_output.sh — --format markdown / xml / clean-html and
# the metadata of the JSON Lines record, on hand-written pages
# (tests/data/structure/) with the shipped model: headings, nested lists, a
# table, a quote, code, links; the navigation, the footer and the figure's
# caption must go.  The Markdown passes CommonMark (cmark) and renders with
# GitHub tables (cmark-gfm -e table) to the expected HTML, checked by hand.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
data=$src/tests/data/structure
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in cmark cmark-gfm; do
    command -v $t >/dev/null || { echo "SKIP: $t is not installed (scripts/install-deps)"; exit 77; }
done
page=$data/article.html
pagesift --format markdown "$page" > "$tmp/a.md" || fail "--format markdown"
cmark "$tmp/a.md" > "$tmp/a.cm.html" || fail "cmark rejects the Markdown"
cmark-gfm -e table "$tmp/a.md" > "$tmp/a.html" || fail "cmark-gfm rejects the Markdown"
diff -u "$data/article.expected.html" "$tmp/a.html" || fail "Markdown renders to other HTML than expected"
# (the shipped model of issue 34's early rounds dropped the nested list's two short items and the
# two-line code block; the one retrained in its twelfth round keeps them, as the expected HTML does)
for s in "<h1>Rivers" "<h2>Measured flows</h2>" "<blockquote>" "<ol>"; do
    grep -qF "$s" "$tmp/a.cm.html" || fail "CommonMark rendering lacks $s"
done
for bad in "About us" "Copyright" "Privacy" "Photo: Archive"; do
    ! grep -qF "$bad" "$tmp/a.md" || fail "markdown keeps '$bad'"
done
# links and images only when asked; the caption comes with its image
grep -qF "](" "$tmp/a.md" && fail "links or images without --links/--images"
pagesift --format markdown --links --images "$page" > "$tmp/li.md" || fail "--links --images"
grep -qF "[glaciers](</glaciers>)" "$tmp/li.md" || fail "--links: no link"
grep -qF "![The Rhone glacier in 2020](</img/rhone.jpg>)" "$tmp/li.md" || fail "--images: no image with alt"
cmark-gfm -e table "$tmp/li.md" | grep -qF '<a href="/glaciers">glaciers</a>' || fail "link does not render"

# XML: well-formed, trafilatura's <doc>/<main>/<comments>, metadata attributes
pagesift --format xml --links "$page" > "$tmp/a.xml" || fail "--format xml"
/usr/bin/python3 - "$tmp/a.xml" <<'PY' || fail "XML"
import sys, xml.etree.ElementTree as ET
doc = ET.parse(sys.argv[1]).getroot()
assert doc.tag == "doc", doc.tag
a = doc.attrib
assert a["title"] == "Rivers of the Alps: how glaciers feed them", a
assert a["author"] == "Anna Berg; Luc Favre" and a["date"] == "2021-08-14", a
assert a["sitename"] == "Mountain Weekly" and a["tags"] == "glaciers,rivers", a
main = doc.find("main"); assert main is not None and doc.find("comments") is not None
assert [h.get("rend") for h in main.iter("head")] == ["h1", "h2", "h2"]
rows = main.find("table").findall("row")
assert [[c.text for c in r] for r in rows][:2] == [["River", "June", "August"], ["Rhone", "180", "240"]], rows
assert rows[0][0].get("role") == "head"
lists = main.findall("list")
assert [l.get("rend") for l in lists] == ["ul", "ol"], lists
assert [i.text for i in lists[0].findall("item")][0].startswith("Snow melt, which peaks in"), lists[0]
assert "summer brooks" in "".join(main.find("quote").itertext())
assert main.find(".//ref").get("target") == "/glaciers"
text = "".join(doc.itertext())
for bad in ("About us", "Copyright", "Photo: Archive"):
    assert bad not in text, bad
PY
# clean HTML: parses, holds the structure, not the noise
pagesift --format clean-html "$page" > "$tmp/c.html" || fail "--format clean-html"
/usr/bin/python3 - "$tmp/c.html" <<'PY' || fail "clean-html"
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s): super().__init__(); s.tags = []; s.text = []
    def handle_starttag(s, t, a): s.tags.append(t)
    def handle_data(s, d): s.text.append(d)
p = P(); p.feed(open(sys.argv[1]).read())
for t in ("article", "h1", "h2", "ul", "ol", "table", "th", "blockquote", "title"):
    assert t in p.tags, t
assert p.tags.count("li") == 7, p.tags.count("li")  # 3 + 2 nested in the ul, 2 in the ol
text = "".join(p.text)
for bad in ("About us", "Copyright", "Photo: Archive"):
    assert bad not in text, bad
PY

# JSON Lines: the metadata, absent values null; malformed JSON-LD ignored
pagesift --format jsonl "$page" "$data/bad-jsonld.html" > "$tmp/r.jsonl" || fail "--format jsonl"
/usr/bin/python3 - "$tmp/r.jsonl" <<'PY' || fail "JSON Lines metadata"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
a, b = r
want = {"title": "Rivers of the Alps: how glaciers feed them",
        "page_title": "Rivers of the Alps: how glaciers feed them | Mountain Weekly",
        "author": "Anna Berg; Luc Favre", "date": "2021-08-14", "date_modified": "2021-08-16",
        "site_name": "Mountain Weekly", "description": "Why alpine rivers run high in August.",
        "lang": "en", "lang_declared": "en",
        "canonical_url": "https://mountain.example.com/2021/08/rivers-of-the-alps",
        "image": "/img/rhone.jpg", "categories": ["Science"], "tags": ["glaciers", "rivers"],
        "url": None, "error": None}
for k, v in want.items():
    assert a[k] == v, (k, a[k], v)
assert 0.5 < a["lang_confidence"] <= 1, a["lang_confidence"]
assert b["status"] == "ok", b
assert b["title"] == "Notes from the harbour" and b["date"] == "2019-03-03", b
assert b["author"] is None, b["author"]          # a URL is not an author
assert b["site_name"] == "Harbour Diary", b["site_name"]  # the <title>'s other part
for k in ("date_modified", "description", "canonical_url", "image", "categories", "tags", "lang_declared"):
    assert b[k] is None, (k, b[k])
assert b["lang"] == "en", b["lang"]
assert set(a) == set(b), set(a) ^ set(b)          # one schema
PY
# A page whose text a script renders: from its JSON-LD articleBody, or from its description when
# the markup holds no text; every format gives that text, not the blocks' ("Loading", the menu)
for f in script-article script-shell; do
    pagesift --format text "$data/$f.html" > "$tmp/$f.txt" || fail "$f: --format text"
    grep -q '[a-z]' "$tmp/$f.txt" || fail "$f: empty text"
    for fmt in markdown xml clean-html jsonl; do
        pagesift --format $fmt "$data/$f.html" > "$tmp/$f.$fmt" || fail "$f: --format $fmt"
        while IFS= read -r line; do
            grep -qF "${line:0:60}" "$tmp/$f.$fmt" || fail "$f: --format $fmt lacks '$line'"
        done < "$tmp/$f.txt"
        ! grep -q "Loading\|HomeNews" "$tmp/$f.$fmt" || fail "$f: --format $fmt keeps the blocks' text"
    done
done
grep -qx "Hello everyone, I am new to astronomy .*shows the planets." "$tmp/script-shell.txt" ||
    fail "the shell page's text is not its description"
[ "$(wc -l < "$tmp/script-article.txt")" = 2 ] || fail "the articleBody: not a paragraph a line"
pagesift --format text --options description=0 "$data/script-shell.html" > "$tmp/off.txt" 2>/dev/null
[ ! -s "$tmp/off.txt" ] || fail "description=0 still gives the description"
echo "PASS"
