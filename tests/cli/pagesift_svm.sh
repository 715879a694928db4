#!/usr/bin/env bash
# tests/cli/pagesift_svm.sh — the SVM pipelines end to end with a model
# trained here on the bundled sample (pagesift-features + pagesift-train):
# svm keeps a subset of the page's blocks; the same texts from the data set
# folder, a plain WARC, a gzip WARC and JSON Lines on stdin; --templates DIR
# (pagesift-template build) and --learn-templates give the same records, and
# templates remove leaves; a truncated model or template library is a setup
# error (exit 3) before any page is read.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in pagesift-features pagesift-train pagesift-template; do
    command -v $t >/dev/null || { echo "SKIP: $t is not built"; exit 77; }
done
pagesift-features -q "$sample" -o "$tmp/f.csv" || fail "pagesift-features"
pagesift-train -q -k 3 --c-range 0:6:3 --gamma-range -3:3:3 "$tmp/f.csv" -o "$tmp/m.model" >/dev/null ||
    fail "pagesift-train"
export PAGESIFT_MODEL=$tmp/m.model   # the default model of these runs

# --- svm keeps a subset of the page's text, in order ------------------------
page=$sample/html/dragnet-14.html
pagesift "$page" > "$tmp/svm.txt" || fail "pagesift page (svm by default)"
pagesift -m all "$page" > "$tmp/all.txt" || fail "-m all"
[[ -s $tmp/svm.txt ]] || fail "svm kept nothing of $page"
python3 - "$tmp/svm.txt" "$tmp/all.txt" <<'PY' || fail "svm text is not a subsequence of the page text"
import sys
kept = open(sys.argv[1]).read().splitlines(); page = open(sys.argv[2]).read().splitlines()
i = 0
for line in kept:
    while i < len(page) and page[i] != line: i += 1
    assert i < len(page), line
    i += 1
assert len(kept) < len(page)
PY

# --- the same texts from a folder, WARC, WARC.gz and JSON Lines ---------------
"$src/scripts/make-warc" -o "$tmp/s.warc" --jsonl "$tmp/s.jsonl" "$sample" >/dev/null 2>&1 || fail "make-warc"
"$src/scripts/make-warc" -o "$tmp/s.warc.gz" "$sample" >/dev/null 2>&1 || fail "make-warc gz"
pagesift -q -j 2 --format jsonl "$sample" > "$tmp/dir.jsonl" || fail "folder"
pagesift -q -j 2 --format jsonl "$tmp/s.warc" > "$tmp/warc.jsonl" || fail "warc"
pagesift -q -j 2 --format jsonl "$tmp/s.warc.gz" > "$tmp/warcgz.jsonl" || fail "warc.gz"
pagesift -q -j 2 --jsonl < "$tmp/s.jsonl" > "$tmp/stdin.jsonl" || fail "jsonl stdin"
python3 - "$sample" "$tmp"/dir.jsonl "$tmp"/warc.jsonl "$tmp"/warcgz.jsonl "$tmp"/stdin.jsonl <<'PY' || fail "texts differ between input kinds"
import json, sys
runs = [[json.loads(l) for l in open(p)] for p in sys.argv[2:]]
ref = runs[0]
assert len(ref) == 21 and all(r["status"] == "ok" for r in ref)
def utf8(id):   # JSON Lines carry text, not bytes: only pages that are UTF-8 survive as is
    try: open(f"{sys.argv[1]}/html/{id}.html", "rb").read().decode("utf-8"); return True
    except UnicodeDecodeError: return False
for name, run in zip(sys.argv[3:], runs[1:]):
    assert [r["url"] for r in run] == [r["url"] for r in ref], name
    for a, b in zip(ref, run):
        if name.endswith("stdin.jsonl") and not utf8(a["id"]): continue
        assert a["text"] == b["text"], (name, a["id"], b["id"])
PY

# --- templates: from a folder of libraries = learnt in a first pass -----------
# (exit 1: one sample page has no URL, so no site; the others get libraries)
pagesift-template build -q -o "$tmp/tpl" "$sample" >/dev/null 2>&1
[[ -f $tmp/tpl/bbc.co.uk.tpl ]] || fail "pagesift-template build"
pagesift -q -T "$tmp/tpl" --options min_pages=1 --format jsonl "$sample" > "$tmp/t1.jsonl" || fail "--templates"
pagesift -q --learn-templates --options min_pages=1 --format jsonl "$sample" > "$tmp/t2.jsonl" || fail "--learn-templates"
cmp -s "$tmp/t1.jsonl" "$tmp/t2.jsonl" || fail "--learn-templates differs from --templates built from the same pages"
cmp -s "$tmp/t1.jsonl" "$tmp/dir.jsonl" && fail "templates changed nothing"
pagesift -T "$tmp/tpl" --options min_pages=1 --format html "$sample/html/cleanportaleval-bbc.co.uk_news_03.html" > "$tmp/v.html"
# a file page has no URL: no template step; through the data set it has one
pagesift -q -T "$tmp/tpl" --options min_pages=1 --format html -o "$tmp/views" "$sample" || fail "html views"
grep -q 'data-pagesift-leaf="template"' "$tmp/views/cleanportaleval-bbc.co.uk_news_03.html" ||
    fail "no template leaf marked in the html view"
# a site with fewer pages than min_pages (default 5: netease's 3) keeps the SVM alone
pagesift -q -T "$tmp/tpl" --format jsonl "$sample" > "$tmp/t3.jsonl" || fail "--templates default"
python3 - "$tmp/t3.jsonl" "$tmp/dir.jsonl" <<'PY' || fail "min_pages default"
import json, sys
t = [json.loads(l) for l in open(sys.argv[1])]; s = [json.loads(l) for l in open(sys.argv[2])]
for a, b in zip(t, s):
    if not a["id"].startswith("cleanportaleval"):   # the only site with >= 5 pages
        assert a["text"] == b["text"], a["id"]
PY

# --- setup errors before any page is read (a FIFO nobody writes) ------------
mkfifo "$tmp/fifo"
head -c 1000 "$tmp/m.model" > "$tmp/trunc.model"
timeout 10 pagesift --model "$tmp/trunc.model" "$tmp/fifo" >/dev/null 2>"$tmp/err"; rc=$?
[[ $rc == 3 ]] || fail "truncated model: exit $rc, want 3"
grep -q trunc.model "$tmp/err" || fail "truncated model not named: $(cat "$tmp/err")"
# --learn-templates reads its inputs twice: a pipe is refused before the model
# is loaded (a usage error), and a truncated model is a setup error
timeout 10 pagesift --learn-templates --model "$tmp/trunc.model" "$tmp/fifo" >/dev/null 2>"$tmp/err"; rc=$?
[[ $rc == 2 ]] || fail "--learn-templates with a named pipe: exit $rc, want 2"
grep -q "read once" "$tmp/err" || fail "--learn-templates with a named pipe: $(cat "$tmp/err")"
timeout 10 pagesift --learn-templates --model "$tmp/trunc.model" "$sample" >/dev/null 2>&1; rc=$?
[[ $rc == 3 ]] || fail "--learn-templates with a truncated model: exit $rc, want 3"
cp -r "$tmp/tpl" "$tmp/tpl-bad"
f=$(ls "$tmp/tpl-bad"/*.tpl | head -1)
head -c $(( $(wc -c < "$f") / 2 )) "$f" > "$f.cut" && mv "$f.cut" "$f"
timeout 10 pagesift -T "$tmp/tpl-bad" "$tmp/fifo" >/dev/null 2>"$tmp/err"; rc=$?
[[ $rc == 3 ]] || fail "truncated template library: exit $rc, want 3"
grep -q "$(basename "$f")" "$tmp/err" || fail "library not named: $(cat "$tmp/err")"
timeout 10 pagesift -T "$tmp/no-such-dir" "$tmp/fifo" >/dev/null 2>&1; rc=$?
[[ $rc == 3 ]] || fail "missing template folder: exit $rc, want 3"
echo "pagesift_svm: ok"
