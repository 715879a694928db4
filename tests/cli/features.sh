#!/usr/bin/env bash
# pagesift-features on datasets/sample: the CSV header, rows per block with
# labels from the gold, the per-set summary, --for-annotation, --list, the
# exit codes of bad input, a bad option and an unwritable output.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

pagesift-features --version | grep -q '^pagesift-features ' || fail "--version"
grep -q -- '--for-annotation' <<< "$(pagesift-features --help)" || fail "--help"

pagesift-features "$src/datasets/sample" -o "$tmp/s.csv" 2> "$tmp/err" || fail "exit $? on the sample"
head -1 "$tmp/s.csv" | tr -d '\r' > "$tmp/hdr"
[ "$(cat "$tmp/hdr")" = "dataset,page_id,url,site,block_id,block_path,tag,inner_len,inner_link_len,inner_link_num,inner_pic_num,outer_len,outer_link_len,outer_link_num,outer_pic_num,R1,R2,R3,R4,R5,label,gold_share,text,block_tags" ] \
  || fail "header: $(cat "$tmp/hdr")"
# the summary names the set, 21 pages, none failed, both classes present
grep -Eq '^sample +21 +0 +[1-9][0-9]* +[1-9][0-9]* +0 ' "$tmp/err" || { cat "$tmp/err"; fail "summary"; }
# labels: content rows have a gold share >= 0.5 (python's csv module reads it back)
python3 - "$tmp/s.csv" <<'PY' || fail "CSV content"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))
assert len(rows) > 100, len(rows)
assert {r['dataset'] for r in rows} == {'sample'}
ids = [r['block_id'] for r in rows]
assert len(set(ids)) == len(ids), "block ids are not unique"
for r in rows:
    assert r['label'] in ('0', '1'), r
    share = float(r['gold_share'])
    assert (r['label'] == '1') == (share >= 0.5), r
    assert int(r['inner_len']) >= 1   # blocks without text are skipped
    assert len(r['text']) <= 200
    assert abs(float(r['R1']) - int(r['inner_len']) / (int(r['outer_len']) + 1)) < 1e-5
zh = [r for r in rows if r['page_id'].startswith('netease') and r['label'] == '1']
assert zh and any('\u4e00' <= c <= '\u9fff' for c in zh[0]['text']), "no Chinese content row"
PY

# block ids are stable across runs and options
pagesift-features -q -x -b body,section,div,p "$src/datasets/sample" > "$tmp/x.csv"
python3 - "$tmp/s.csv" "$tmp/x.csv" <<'PY' || fail "stable ids / extended"
import csv, sys
a = {(r['page_id'], r['block_path']): r['block_id'] for r in csv.DictReader(open(sys.argv[1], newline=''))}
xs = list(csv.DictReader(open(sys.argv[2], newline='')))
assert 'x_punct' in xs[0] and 'x_tag_div' in xs[0]
common = 0
for r in xs:
    k = (r['page_id'], r['block_path'])
    if k in a:
        assert a[k] == r['block_id'], k
        common += 1
assert common > 100, common
PY

# --for-annotation: empty labels
pagesift-features -q --for-annotation "$src/datasets/sample" > "$tmp/a.csv"
python3 - "$tmp/a.csv" <<'PY' || fail "--for-annotation"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
assert rows and all(r['label'] == '' for r in rows)
PY

# --list with a gold column; a missing page is reported, the others written
f=$(ls "$src"/datasets/sample/html/*.html | head -1); id=$(basename "$f" .html)
printf '%s\thttp://example.com/x\t%s\n/no/such/page.html\t\n' "$f" "$src/datasets/sample/gold/$id.txt" > "$tmp/list"
set +e
pagesift-features --list "$tmp/list" > "$tmp/l.csv" 2> "$tmp/lerr"; rc=$?
set -e
[ $rc = 1 ] || fail "--list with a missing page: exit $rc, want 1"
grep -q '/no/such/page.html' "$tmp/lerr" || fail "the missing page is not named"
grep -q 'example.com' "$tmp/l.csv" || fail "--list URL not used"

# a WARC of the sample: one page per response record, same blocks and counts
python3 "$src/scripts/make-warc" -o "$tmp/s.warc.gz" "$src/datasets/sample" >/dev/null
pagesift-features -q "$tmp/s.warc.gz" > "$tmp/w.csv" || fail "WARC input"
python3 - "$tmp/s.csv" "$tmp/w.csv" <<'PY' || fail "WARC rows differ from the data set rows"
import csv, sys
key = lambda r: (r['url'], r['block_path'], r['inner_len'], r['R1'])
a = sorted(key(r) for r in csv.DictReader(open(sys.argv[1], newline='')))
w = list(csv.DictReader(open(sys.argv[2], newline='')))
assert w and all(r['label'] == '' for r in w)   # no gold in a WARC
assert sorted(key(r) for r in w) == a
PY

# templates learnt from the input itself: fewer noise blocks, the same pages
pagesift-features -L "$src/datasets/sample" > "$tmp/t.csv" 2> "$tmp/terr" || fail "--learn-templates"
grep -q 'learnt template libraries of [1-9]' "$tmp/terr" || fail "--learn-templates: no libraries"
grep -Eq 'templates: [1-9][0-9]* pages had a library, [1-9][0-9]* leaves removed' "$tmp/terr" || { cat "$tmp/terr"; fail "--learn-templates: nothing removed"; }
[ "$(wc -l < "$tmp/t.csv")" -lt "$(wc -l < "$tmp/s.csv")" ] || fail "--learn-templates removed no block"
# libraries built by pagesift-template give the same rows as learning them here
# (exit 1: one sample page has no URL, hence no site; it is skipped there and here)
pagesift-template build -o "$tmp/tpl" "$src/datasets/sample" 2>/dev/null || [ $? = 1 ] || fail "pagesift-template build"
ls "$tmp"/tpl/*.tpl >/dev/null || fail "pagesift-template wrote no library"
pagesift-features -q -T "$tmp/tpl" "$src/datasets/sample" > "$tmp/t2.csv" || fail "--templates"
cmp -s "$tmp/t.csv" "$tmp/t2.csv" || fail "--templates DIR and --learn-templates differ"

set +e
pagesift-features -T "$tmp/none" "$f" >/dev/null 2>&1; rc=$?
[ $rc = 3 ] || fail "missing template folder: exit $rc, want 3"
pagesift-features -T "$tmp" -L "$f" >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "-T with -L: exit $rc, want 2"
pagesift-features --no-such-option x 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "bad option: exit $rc, want 2"
pagesift-features 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "no input: exit $rc, want 2"
pagesift-features -o /no/such/dir/out.csv "$f" 2>/dev/null; rc=$?
[ $rc = 3 ] || fail "unwritable output: exit $rc, want 3"
set -e
echo "ok"
