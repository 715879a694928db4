#!/usr/bin/env bash
# tests/cli/pagesift_batch.sh — the pagesift command over the bundled sample:
# one record per input (failing ones included) and counts that add up, the
# same records in the same order with -j 1 and -j 2, one file per page with
# --output-dir, marked blocks with --format html, `--method all` giving the
# page model's text, usage and setup errors with their exit codes.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample/html
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n_sample=$(ls "$sample" | wc -l)

# --- --method all is the page model's text (pagesift-dump --text) ---------
for f in "$sample"/dragnet-14.html "$sample"/netease-3.html; do
    pagesift -m all "$f" > "$tmp/a.txt" || fail "pagesift -m all $f"
    pagesift-dump --text "$f" > "$tmp/b.txt" || fail "pagesift-dump $f"
    cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "--method all differs from the page text on $f"
    [[ -s $tmp/a.txt ]] || fail "empty text for $f"
done
pagesift -m all - < "$sample/dragnet-14.html" > "$tmp/stdin.txt" || fail "stdin page"
cmp -s "$tmp/stdin.txt" "$tmp/a.txt" || true
pagesift -m all "$sample/dragnet-14.html" | cmp -s - "$tmp/stdin.txt" || fail "stdin differs from file"

# --- a batch with failing pages: one record each, counts add up, exit 1 ----
mkdir "$tmp/in"
cp "$sample"/dragnet-*.html "$tmp/in/"
head -c 30000 "$(command -v pagesift)" > "$tmp/in/binary.html"
cap=$(( $(wc -c "$sample"/dragnet-*.html | sort -n | tail -2 | head -1 | awk '{print $1}') + 1000 ))
printf '<html><body><p>%*s</p></body></html>' $((cap + 10)) x > "$tmp/in/zz-oversized.html"
printf '<html><body><div></div></body></html>' > "$tmp/in/empty.html"
pagesift -m all -j 2 --max-bytes "$cap" "$tmp/in" "$tmp/missing.html" > "$tmp/out.jsonl" 2> "$tmp/err"
rc=$?
[[ $rc == 1 ]] || fail "exit $rc with failing pages, want 1"
n_in=$(( $(ls "$tmp/in" | wc -l) + 1 ))
[[ $(wc -l < "$tmp/out.jsonl") == "$n_in" ]] || fail "$(wc -l < "$tmp/out.jsonl") records for $n_in inputs"
python3 - "$tmp/out.jsonl" "$tmp/in" "$cap" <<'PY' || fail "jsonl records"
import json, os, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
names = sorted(os.listdir(sys.argv[2]))
want = [os.path.splitext(n)[0] for n in names] + ["missing"]
got = [r["id"] for r in recs]
assert got == want, (got, want)                 # input order, with -j 2
by = {r["id"]: r for r in recs}
for k in ("binary", "zz-oversized", "missing"):
    assert by[k]["status"] == "failed" and by[k]["error"], by[k]
assert "binary" in by["binary"]["error"], by["binary"]["error"]
assert sys.argv[3] in by["zz-oversized"]["error"], by["zz-oversized"]["error"]
assert by["empty"]["status"] == "empty" and by["empty"]["error"] is None
for r in recs:
    assert set(("id", "url", "site", "title", "text", "blocks_kept", "blocks_removed",
                "status", "charset")) <= set(r), r
    if r["status"] == "ok":
        assert r["text"].strip() and r["error"] is None
PY
summary=$(grep 'records read' "$tmp/err") || fail "no summary on stderr"
python3 - "$summary" <<'PY' || fail "counts do not add up: $summary"
import re, sys
m = re.search(r"(\d+) records read: (\d+) extracted, (\d+) empty, (\d+) failed, (\d+) skipped", sys.argv[1])
r, e, em, f, s = map(int, m.groups())
assert r == e + em + f + s and f == 3 and em == 1, m.groups()
PY
grep -q "missing.html" "$tmp/err" || fail "the failing page is not named on stderr"

# --- -j 1 and -j 2 give the same records in the same order -----------------
pagesift -m all -j 1 -q --format jsonl "$sample" > "$tmp/j1" || fail "-j 1"
pagesift -m all -j 2 -q --format jsonl "$sample" > "$tmp/j2" || fail "-j 2"
cmp -s "$tmp/j1" "$tmp/j2" || fail "-j 2 output differs from -j 1"
[[ $(wc -l < "$tmp/j1") == "$n_sample" ]] || fail "one record per sample page"
pagesift -m all -j 2 -q --unordered --format jsonl "$sample" | sort > "$tmp/u"
sort "$tmp/j1" | cmp -s - "$tmp/u" || fail "--unordered has other records"

# every method that runs without a model: -j 2 gives -j 1's records (stateful
# methods such as punct-lines run in input order on one worker)
for m in $(pagesift --method help | awk 'NR > 1 {print $1}'); do
    pagesift -m "$m" -j 1 -q --format jsonl "$src/datasets/sample" > "$tmp/m1" 2>/dev/null || continue
    pagesift -m "$m" -j 2 -q --format jsonl "$src/datasets/sample" > "$tmp/m2" || fail "$m -j 2"
    cmp -s "$tmp/m1" "$tmp/m2" || fail "$m: -j 2 differs from -j 1"
done

# --- --output-dir: one file per page ----------------------------------------
pagesift -m all -q -o "$tmp/od" "$sample" || fail "--output-dir"
[[ $(ls "$tmp/od" | grep -vxc manifest.tsv) == "$n_sample" ]] || fail "$(ls "$tmp/od" | wc -l) files for $n_sample pages"
[[ -f $tmp/od/manifest.tsv ]] || fail "no manifest.tsv in the output folder (tests/cli/manifest.sh tests it)"
pagesift -m all "$sample/netease-4.html" | cmp -s - "$tmp/od/netease-4.txt" || fail "output-dir text differs"
# same file name in two folders: made unique, in input order
mkdir -p "$tmp/d1" "$tmp/d2"; cp "$sample/dragnet-14.html" "$tmp/d1/page.html"; cp "$sample/netease-3.html" "$tmp/d2/page.html"
pagesift -m all -q -o "$tmp/od2" "$tmp/d1" "$tmp/d2" || fail "collision run"
[[ -f $tmp/od2/page.txt && -f $tmp/od2/page-2.txt ]] || fail "colliding ids not made unique: $(ls "$tmp/od2")"
pagesift -m all "$sample/netease-3.html" | cmp -s - "$tmp/od2/page-2.txt" || fail "page-2 is not the second input"

# --- html view marks blocks -------------------------------------------------
pagesift -m all --format html "$sample/dragnet-R121.html" > "$tmp/v.html" || fail "html format"
grep -q 'data-pagesift="content"' "$tmp/v.html" || fail "no block marked in the html view"
grep -q 'data-pagesift-legend' "$tmp/v.html" || fail "no legend"
python3 -c "import html.parser,sys; html.parser.HTMLParser().feed(open(sys.argv[1]).read())" "$tmp/v.html" || fail "html view unreadable"

# --- the same texts from the data set folder, a WARC, a gzip WARC ---------
"$src/scripts/make-warc" -o "$tmp/s.warc" --jsonl "$tmp/s.jsonl" "$src/datasets/sample" >/dev/null 2>&1 || fail "make-warc"
"$src/scripts/make-warc" -o "$tmp/s.warc.gz" "$src/datasets/sample" >/dev/null 2>&1 || fail "make-warc gz"
pagesift -m all -j 2 --format jsonl "$src/datasets/sample" > "$tmp/ds.jsonl" 2>/dev/null || fail "data set folder"
pagesift -m all -j 2 --format jsonl "$tmp/s.warc" > "$tmp/w.jsonl" 2> "$tmp/werr" || fail "warc"
pagesift -m all -j 2 --format jsonl < "$tmp/s.warc.gz" > "$tmp/wgz.jsonl" 2>/dev/null || fail "warc.gz on stdin"
python3 - "$tmp/ds.jsonl" "$tmp/w.jsonl" "$tmp/wgz.jsonl" <<'PY' || fail "texts differ between folder and WARC"
import json, sys
runs = [[json.loads(l) for l in open(p)] for p in sys.argv[1:]]
assert len(runs[0]) == 21
for run in runs[1:]:
    assert [(r["url"], r["text"]) for r in run] == [(r["url"], r["text"]) for r in runs[0]]
PY
# JSON Lines on stdin (a streaming filter): one record per line; JSON carries
# text, not bytes, so only pages whose bytes are UTF-8 must give the same text
pagesift -m all -j 2 --jsonl < "$tmp/s.jsonl" > "$tmp/jl.jsonl" 2>/dev/null || fail "--jsonl"
python3 - "$sample" "$tmp/ds.jsonl" "$tmp/jl.jsonl" <<'PY' || fail "JSON Lines texts differ"
import json, sys
a = [json.loads(l) for l in open(sys.argv[2])]; b = [json.loads(l) for l in open(sys.argv[3])]
assert len(a) == len(b) == 21
def utf8(id):
    try: open(f"{sys.argv[1]}/{id}.html", "rb").read().decode("utf-8"); return True
    except UnicodeDecodeError: return False
n = 0
for x, y in zip(a, b):
    assert x["url"] == y["url"]
    if utf8(x["id"]):
        assert x["text"] == y["text"], x["id"]; n += 1
assert n >= 15, n
PY
# JSON Lines files as arguments (.jsonl, .ndjson, gzipped): the same records
# as on stdin, in argument order; a record without an id is named after its
# file and line, so two files' lines never share an id (an -o folder would
# overwrite one with the other); a bad line is one failed record
without_ids() { python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l); del r["id"]; print(json.dumps(r))'; }
head -n 5 "$tmp/s.jsonl" | without_ids > "$tmp/part1.jsonl"
{ tail -n +6 "$tmp/s.jsonl"; echo "{not json"; } > "$tmp/rest.ndjson"
gzip -k "$tmp/rest.ndjson"
head -n 5 "$tmp/s.jsonl" | without_ids | gzip > "$tmp/part2.jsonl.gz"
pagesift -m all -j 2 -f jsonl "$tmp/part1.jsonl" "$tmp/rest.ndjson.gz" "$tmp/part2.jsonl.gz" \
    > "$tmp/jf.jsonl" 2> "$tmp/jferr"
rc=$?
[[ $rc == 1 ]] || fail "JSON Lines files with a bad line: exit $rc, want 1"
grep -q "27 records read: 26 extracted, 0 empty, 1 failed, 0 skipped" "$tmp/jferr" ||
    fail "JSON Lines files: $(cat "$tmp/jferr")"
grep -q "rest.ndjson.gz line 17: invalid JSON" "$tmp/jferr" || fail "the bad line is not named: $(cat "$tmp/jferr")"
# a file's whole path names its bad line, however long (it was cut at 64 bytes)
long="$tmp/a-folder-name-long-enough-that-path-and-line-pass-64-bytes-of-any-buffer"
mkdir -p "$long"
cp "$tmp/rest.ndjson" "$long/crawl-part-0001.ndjson"
pagesift -f jsonl "$long/crawl-part-0001.ndjson" > "$tmp/jlong.jsonl" 2> "$tmp/jlongerr"
grep -qF "$long/crawl-part-0001.ndjson line 17: invalid JSON" "$tmp/jlongerr" ||
    fail "a long path's bad line is not named whole: $(cat "$tmp/jlongerr")"
grep -qF "\"origin\":\"$long/crawl-part-0001.ndjson line 17\"" "$tmp/jlong.jsonl" ||
    fail "a long path's record origin is cut: $(grep -o '"origin":"[^"]*"' "$tmp/jlong.jsonl" | tail -1)"
python3 - "$tmp/jl.jsonl" "$tmp/jf.jsonl" <<'PY' || fail "JSON Lines files differ from stdin"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]; b = [json.loads(l) for l in open(sys.argv[2])]
ids = [r["id"] for r in b]
assert ids[:5] == ["part1-line-%d" % i for i in range(1, 6)], ids[:5]
assert ids[21] == "rest-line-17" and b[21]["status"] == "failed", ids[21]
assert ids[22:] == ["part2-line-%d" % i for i in range(1, 6)], ids[22:]
assert len(set(ids)) == len(ids) == 27
texts = [r["text"] for r in b if r["status"] == "ok"]
assert texts[:21] == [r["text"] for r in a] and texts[21:] == [r["text"] for r in a[:5]]
PY
grep -q "22 records read: 21 extracted, 0 empty, 0 failed, 1 skipped" "$tmp/werr" ||
    fail "warcinfo record not counted as skipped: $(cat "$tmp/werr")"
# a WARC cut in the middle of a record: the records before are extracted, the cut one fails
size=$(wc -c < "$tmp/s.warc")
head -c $((size - 3000)) "$tmp/s.warc" > "$tmp/cut.warc"
pagesift -m all --format jsonl "$tmp/cut.warc" > "$tmp/cut.jsonl" 2>/dev/null; rc=$?
[[ $rc == 1 ]] || fail "truncated WARC: exit $rc, want 1"
python3 - "$tmp/cut.jsonl" "$tmp/w.jsonl" <<'PY' || fail "truncated WARC records"
import json, sys
cut = [json.loads(l) for l in open(sys.argv[1])]; full = [json.loads(l) for l in open(sys.argv[2])]
assert len(cut) == len(full), (len(cut), len(full))
assert all(a["text"] == b["text"] for a, b in zip(cut[:-1], full[:-1]))
assert cut[-1]["status"] == "failed" and cut[-1]["error"], cut[-1]
PY

# --- usage and setup errors -------------------------------------------------
pagesift --format pdf "$sample/dragnet-14.html" >/dev/null 2>&1; [[ $? == 2 ]] || fail "bad --format: want exit 2"
pagesift -m no-such "$sample/dragnet-14.html" >/dev/null 2>&1; [[ $? == 2 ]] || fail "unknown method: want exit 2"
pagesift -j 0 "$sample/dragnet-14.html" >/dev/null 2>&1; [[ $? == 2 ]] || fail "-j 0: want exit 2"
pagesift --method help | grep -q '^  all ' || fail "--method help does not list all"
pagesift --version | grep -q '^pagesift ' || fail "--version"
touch "$tmp/file"
pagesift -m all -o "$tmp/file/sub" "$sample/dragnet-14.html" >/dev/null 2>&1; [[ $? == 3 ]] || fail "unwritable output dir: want exit 3"
echo "pagesift_batch: ok"
