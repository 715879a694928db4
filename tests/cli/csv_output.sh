#!/usr/bin/env bash
# tests/cli/csv_output.sh — --format csv (output/csv.c, docs/CSV.md): a
# header row, then one row per page, RFC 4180.  Read back with Python's csv
# module, every row equals the page's JSON Lines record field by field (null
# = empty field, lists joined with ',', text last), on pages whose title and
# text hold commas, quotes, line breaks and non-ASCII, on a failed page, on
# the sample data set, one page alone and with --output-dir; the completion
# and --format help offer csv (both read the format table).
set -uo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$tmp/pages"
cat > "$tmp/pages/quotes.html" <<'HTML'
<html lang="fr"><head><meta charset="utf-8">
<title>Café, "crème" et 日本語 — a test</title>
<meta name="author" content="Zoë O'Brien, &quot;Ed&quot; Smith">
<meta property="article:tag" content="café, thé"><meta property="article:tag" content="résumé">
</head><body><nav><a href="/">Home</a> | <a href="/a">About, us</a></nav>
<article><h1>Café, "crème" et 日本語</h1>
<p>Le café, dit-il, "est bon" — et le thé aussi; a line with a comma, a "quote" and ""two"" quotes.</p>
<p>Second paragraph: naïve façade, Ærøskøbing, Ελληνικά, русский, 中文, emoji 🙂, and a backslash \ too.</p>
<p>Third paragraph, with "quotes at the end"</p>
<p>"Quotes at the start", then a comma, and the rest of a long enough sentence to be kept here.</p>
</article><footer>Copyright, 2024 "Example"</footer></body></html>
HTML
cat > "$tmp/pages/plain.html" <<'HTML'
<html><head><title>Plain page</title></head><body><article><h1>Plain</h1>
<p>A plain page with a paragraph long enough to be the main text of the page, without anything odd in it at all.</p>
<p>And a second paragraph, so that the text has a line break between its two paragraphs here.</p>
</article></body></html>
HTML
head -c 300000 /dev/zero | tr '\0' 'x' > "$tmp/pages/zbig.html"  # fails: over --max-bytes

run() { pagesift -q -j 2 --max-bytes 200k "$@"; }
run -f csv "$tmp/pages" > "$tmp/out.csv"; [[ $? == 1 ]] || fail "csv: exit status (one page fails: 1)"
run -f jsonl "$tmp/pages" > "$tmp/out.jsonl"
pagesift -q -j 2 -f csv "$src/datasets/sample" > "$tmp/sample.csv" || fail "csv on the sample"
pagesift -q -j 2 -f jsonl "$src/datasets/sample" > "$tmp/sample.jsonl" || fail "jsonl on the sample"

/usr/bin/python3 - "$tmp" <<'PY' || fail "the CSV does not read back as the JSON Lines records"
import csv, json, sys
tmp = sys.argv[1]

def as_field(v):
    if v is None:
        return ""
    if isinstance(v, list):
        return ",".join(v)
    if isinstance(v, float):
        raise AssertionError("float %r: compare the raw JSON" % v)
    return str(v)

def check(csv_path, jsonl_path, n_expected):
    raw = open(csv_path, "rb").read()
    assert raw.endswith(b"\r\n"), "the last row does not end with CRLF"
    rows = list(csv.reader(open(csv_path, newline="", encoding="utf-8"), strict=True))
    recs_raw = [l for l in open(jsonl_path, encoding="utf-8")]
    recs = [json.loads(l, parse_float=str) for l in recs_raw]  # numbers as JSON wrote them
    header = rows[0]
    keys = list(recs[0].keys())
    assert header == [k for k in keys if k != "text"] + ["text"], header
    assert len(rows) - 1 == len(recs) == n_expected, (len(rows) - 1, len(recs))
    for row, rec in zip(rows[1:], recs):
        assert len(row) == len(header), (rec["id"], len(row))
        for k, v in zip(header, row):
            assert v == as_field(rec[k]), (rec["id"], k, v, rec[k])
    return {r["id"]: r for r in csv.DictReader(open(csv_path, newline="", encoding="utf-8"))}

rows = check(tmp + "/out.csv", tmp + "/out.jsonl", 3)
q = rows["quotes"]
assert q["title"].startswith('Café, "crème" et 日本語'), q["title"]
assert q["status"] == "ok", q["status"]
assert q["author"] == 'Zoë O\'Brien, "Ed" Smith', q["author"]
for s in ['"est bon"', '""two""', "Ærøskøbing", "🙂", "\\", '"Quotes at the start", then a comma']:
    assert s in q["text"], s
assert q["text"].count("\n") >= 2, "the paragraphs' line breaks are lost"
assert "Home" not in q["text"] and "Copyright" not in q["text"]
assert rows["zbig"]["status"] == "failed" and "larger than the limit" in rows["zbig"]["error"]
assert rows["zbig"]["text"] == "" and rows["plain"]["status"] == "ok"
check(tmp + "/sample.csv", tmp + "/sample.jsonl", 21)
PY

# one page alone: the header row and its row
pagesift -f csv "$tmp/pages/quotes.html" > "$tmp/one.csv" || fail "csv of one page"
/usr/bin/python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
assert len(rows) == 1 and rows[0]["id"] == "quotes" and rows[0]["status"] == "ok", rows
' "$tmp/one.csv" || fail "one page: not a header and one row"

# --output-dir: ID.csv per page, a failed page too (its row says so; no ID.error)
run -f csv -o "$tmp/dir" "$tmp/pages"
[[ -f $tmp/dir/quotes.csv && -f $tmp/dir/plain.csv && -f $tmp/dir/zbig.csv ]] || fail "--output-dir: files $(ls "$tmp/dir")"
[[ ! -e $tmp/dir/zbig.error ]] || fail "--output-dir: a failed page's ID.error in csv"
/usr/bin/python3 - "$tmp" <<'PY' || fail "--output-dir: a file is not the header and the page's row"
import csv, sys
tmp = sys.argv[1]
stream = {r["id"]: r for r in csv.DictReader(open(tmp + "/out.csv", newline="", encoding="utf-8"))}
for name in ("quotes", "plain", "zbig"):
    rows = list(csv.DictReader(open(tmp + "/dir/" + name + ".csv", newline="", encoding="utf-8")))
    assert rows == [stream[name]], (name, rows)
PY

# the format table reaches --format help and the completion
pagesift --format help > "$tmp/formats"
grep -qE '^  csv ' "$tmp/formats" && grep -qF '(ID.csv)' "$tmp/formats" || fail "--format help does not list csv"
out=$(bash -c "source '$src/completion/pagesift.bash'
    COMP_WORDS=(pagesift --format c); COMP_CWORD=2; _pagesift_tools
    printf '%s\n' \"\${COMPREPLY[@]}\"")
[[ $out == *csv* && $out == *clean-html* ]] || fail "completion of --format c gives '$out'"
echo ok
