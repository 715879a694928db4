#!/usr/bin/env bash
# The annotator's round trip (issue 4): pagesift-features --for-annotation
# writes a CSV with an empty label column; an annotator fills it in a
# spreadsheet and saves it (here: labels filled from another export, saved
# the way spreadsheets do, with a byte-order mark and CRLF line ends); the
# filled CSV trains a model with pagesift-train as it is, and pagesift
# extracts with that model.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

pagesift-features -q --for-annotation "$src/datasets/sample" > "$tmp/blank.csv"
pagesift-features -q "$src/datasets/sample" > "$tmp/gold.csv"   # the "annotator's" judgement
python3 - "$tmp/blank.csv" "$tmp/gold.csv" "$tmp/filled.csv" <<'PY' || fail "filling the labels"
import csv, sys
gold = {r['block_id']: r['label'] for r in csv.DictReader(open(sys.argv[2], newline='', encoding='utf-8'))}
rows = list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))
assert rows and all(r['label'] == '' for r in rows), "labels not empty"
filled = 0
for r in rows:
    if r['block_id'] in gold:
        r['label'] = gold[r['block_id']]
        filled += 1
assert filled > 100, filled
# a spreadsheet's "save as CSV (UTF-8)": BOM, CRLF, every field quoted
with open(sys.argv[3], 'w', newline='', encoding='utf-8-sig') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), quoting=csv.QUOTE_ALL, lineterminator='\r\n')
    w.writeheader()
    w.writerows(rows)
PY
pagesift-train -q -k 3 --c-range 1:3:2 --gamma-range -1:1:2 "$tmp/filled.csv" -o "$tmp/m.model" > "$tmp/train.out" \
  || fail "pagesift-train refused the annotator-filled CSV"
[ -s "$tmp/m.model" ] || fail "no model written"
page=$(ls "$src"/datasets/sample/html/*.html | head -1)
pagesift --model "$tmp/m.model" "$page" > "$tmp/text" || fail "pagesift with the annotators' model"
[ -s "$tmp/text" ] || fail "empty extraction with the annotators' model"
echo "ok: annotation CSV filled, saved with BOM+CRLF, trained, used"
