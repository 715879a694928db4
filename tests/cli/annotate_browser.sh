#!/usr/bin/env bash
# Browser test 1 of pagesift-annotate (issue 19): Debian's Chromium driven
# by playwright-core (tests/browser/annotate_roundtrip.js) labels two sample
# pages of a file:// workspace pre-labelled by the shipped model by clicks
# and keys, reloads, exports; then
# here: the exported CSV is pagesift-features' CSV with the clicked blocks'
# labels filled, pagesift-train accepts it and pagesift extracts with the
# model (the README's walk-through).  The served workspace's saved CSV is
# checked the same way.
# SKIP (77) only when npm cannot install playwright-core or Chromium cannot
# start.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
here="$src/tests/browser"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$here/npm-setup.sh"   # playwright-core in tests/browser/node_modules, or SKIP

p1="$src/datasets/sample/html/cleanportaleval-bbc.co.uk_news_01.html"
p2="$src/datasets/sample/html/cleanportaleval-bbc.co.uk_news_02.html"
tags=$(sed -n "s/^block_tags //p" "$src/models/default.model" | head -1)   # the shipped model's block tags
pagesift-annotate -q -x -m "$src/models/default.model" -o "$tmp/ws" "$p1" "$p2" || fail "pagesift-annotate"
mkdir "$tmp/out"
rc=0
(cd "$here" && node annotate_roundtrip.js "$tmp/ws" "$tmp/out") || rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "browser session (exit $rc)"

pagesift-features -q -x -b "$tags" --for-annotation "$p1" "$p2" > "$tmp/blank.csv"
/usr/bin/python3 - "$tmp/blank.csv" "$tmp/out/labels.csv" "$tmp/out/clicked.json" "$tmp/out/served.csv" <<'PY' || fail "exported CSV"
import csv, json, sys
blank = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))
got = list(csv.reader(open(sys.argv[2], newline='', encoding='utf-8')))
clicked = json.load(open(sys.argv[3]))
assert got[0] == blank[0], "header differs from pagesift-features'"
assert len(got) == len(blank), f"{len(got)} rows, pagesift-features writes {len(blank)}"
li = blank[0].index('label'); bi = blank[0].index('block_id')
for g, b in zip(got[1:], blank[1:]):
    assert g[:li] + g[li+1:] == b[:li] + b[li+1:], f"row of {b[bi]} differs outside the label"
labels = {r[bi]: r[li] for r in got[1:]}
for bid, want in clicked['labels'].items():
    assert labels[bid] == str(want), f"clicked block {bid} carries {labels[bid]!r}, clicked {want}"
assert all(v in ('0', '1') for v in labels.values()), "a block left unlabelled (key n labels the rest)"
n1 = sum(1 for v in labels.values() if v == '1')
want1 = sum(1 for v in clicked['labels'].values() if v == 1)
assert n1 == want1, f"{n1} content rows, {want1} clicked content"
assert n1 >= 1 and n1 < len(labels), "one class only"
# the raw bytes: CRLF rows like pagesift-features'
raw = open(sys.argv[2], 'rb').read()
assert raw.count(b'\r\n') == len(blank), "rows do not end with CRLF"
served = list(csv.reader(open(sys.argv[4], newline='', encoding='utf-8')))
assert served[0] == blank[0] and len(served) == len(blank), "served CSV malformed"
print(f"ok: {len(got)-1} rows, {n1} content")
PY
# the README's walk-through: train (the bundle records the workspace's
# block tags, which the CSV's rows carry), extract
pagesift-train -q -f extended -k 2 --c-range 1:3:2 --gamma-range -3:-1:2 "$tmp/out/labels.csv" \
  -o "$tmp/m.model" > "$tmp/train.out" || fail "pagesift-train refused the exported CSV"
[ "$(sed -n 's/^block_tags //p' "$tmp/m.model")" = "$tags" ] \
  || fail "the bundle's block tags are not the workspace's: $(grep '^block_tags' "$tmp/m.model")"
pagesift --model "$tmp/m.model" "$p1" > "$tmp/text" || fail "pagesift with the annotated model"
[ -s "$tmp/text" ] || fail "empty extraction with the annotated model"
# the labels JSON resumes: a new workspace starts with the same labels
pagesift-annotate -q -x -b "$tags" --resume "$tmp/out/labels.json" -o "$tmp/ws2" "$p1" "$p2" 2> "$tmp/resume.err" \
  || fail "pagesift-annotate --resume"
/usr/bin/python3 - "$tmp/out/labels.json" "$tmp/ws2/data/blocks.json" <<'PY' || fail "resume"
import json, sys
lab = {}
for p in json.load(open(sys.argv[1]))['pages']:
    lab.update(p['labels'])
got = {b['id']: b.get('label') for p in json.load(open(sys.argv[2])) for b in p['blocks']}
assert lab and all(got.get(k) == v for k, v in lab.items()), "resumed labels differ"
PY
echo "ok: annotated in Chromium, CSV = pagesift-features' + labels, trained, extracted, resumed"
