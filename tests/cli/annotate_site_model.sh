#!/usr/bin/env bash
# tests/cli/annotate_site_model.sh — an annotation workspace's export trains a
# per-site model (docs/ANNOTATE.md, "From the export to a model"): a workspace
# made with the default model and -x has the rows pagesift-train --per-site
# takes; its export (each block's row of data/rows.js joined around its label,
# pages and blocks in data/workspace.js's order, as the index page's export
# joins them), labelled for bbc.co.uk's first three pages of the sample, trains
# that site's bundle, and pagesift --models scores the site's pages with it.
# A workspace made without -x, or without the model's block tags, is refused
# with a message that names the option to add.
set -u
for t in pagesift pagesift-annotate pagesift-features pagesift-train; do
  command -v $t >/dev/null || { echo "SKIP: $t not on PATH"; exit 77; }
done
src=${PS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
sample=$src/datasets/sample
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
dm=$src/models/default.model
tags=$(sed -n 's/^block_tags //p;/^libsvm-model-bytes/q' "$dm")

# the "annotator's" labels: the gold's, block by block (same pages, same ids)
pagesift-features -q -x -b "$tags" -o "$t/gold.csv" "$sample" || fail "pagesift-features"
export_ws() { # WORKSPACE OUT.csv: the export of bbc.co.uk's first three pages, labelled
  /usr/bin/python3 - "$1" "$t/gold.csv" "$2" <<'PY'
import csv, json, sys
ws, gold_csv, out = sys.argv[1:]
def js(name):
    t = open(ws + '/data/' + name, encoding='utf-8').read()
    return json.loads(t[t.index('{'):t.rindex('}') + 1])
w, R = js('workspace.js'), js('rows.js')
gold = {r['block_id']: r['label'] for r in csv.DictReader(open(gold_csv, newline='', encoding='utf-8'))}
bbc = sorted(p['page_id'] for p in w['pages'] if p['site'] == 'bbc.co.uk')[:3]
assert len(bbc) == 3, bbc
labelled = 0
with open(out, 'w', newline='', encoding='utf-8') as f:
    f.write(R['header'] + '\r\n')
    for p in w['pages']:
        for b in p['blocks']:
            if b not in R['rows']:
                continue
            v = gold.get(b, '') if p['page_id'] in bbc else ''
            labelled += v != ''
            f.write(R['rows'][b][0] + ',' + v + ',' + R['rows'][b][1] + '\r\n')
assert labelled >= 10, labelled
PY
}

pagesift-annotate -q -x -m "$dm" -o "$t/ws" "$sample" || fail "pagesift-annotate -x -m"
export_ws "$t/ws" "$t/labels.csv" || fail "exporting the workspace"
pagesift-train --per-site --keep-worse "$t/labels.csv" -o "$t/sm" > "$t/train.out" 2> "$t/train.err" \
  || fail "pagesift-train --per-site refused the workspace's export: $(cat "$t/train.err")"
[ -s "$t/sm/bbc.co.uk.model" ] || fail "no bbc.co.uk bundle: $(cat "$t/train.out")"
[ "$(ls "$t/sm" | wc -l)" = 1 ] || fail "bundles of sites nobody labelled: $(ls "$t/sm")"
grep -q '^site bbc.co.uk: 3 pages' "$t/train.out" || fail "the site's line: $(cat "$t/train.out")"
pagesift -q -f jsonl --models "$t/sm" "$sample" > "$t/out.jsonl" || fail "pagesift --models"
/usr/bin/python3 - "$t/out.jsonl" <<'PY' || fail "the site's pages were not scored by its model"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1], encoding='utf-8')]
bbc = [r for r in recs if r['site'] == 'bbc.co.uk']
other = [r for r in recs if r['site'] != 'bbc.co.uk']
assert len(bbc) == 10 and other, (len(bbc), len(other))
used = sum(r['model'] == 'site:bbc.co.uk' for r in bbc)
assert used >= 8, [r['model'] for r in bbc]          # pages of another layout get the default
assert not any(r['model'].startswith('site:') for r in other), {r['model'] for r in other}
PY

# a workspace without -x: the paper's features only
pagesift-annotate -q -m "$dm" -o "$t/ws-paper" "$sample" || fail "pagesift-annotate -m"
export_ws "$t/ws-paper" "$t/paper.csv" || fail "exporting the paper workspace"
pagesift-train --per-site "$t/paper.csv" -o "$t/sm2" > /dev/null 2> "$t/err" \
  && fail "a paper-features export trained a site model"
grep -q "pagesift-annotate -x" "$t/err" || fail "the message does not say -x: $(cat "$t/err")"
# a workspace cut with the default block tags (no -m): refused, told the
# model's tags whole (a block's id is its page's and path's, whatever the
# tags, so the gold's labels find its blocks)
pagesift-annotate -q -x -o "$t/ws-tags" "$sample" || fail "pagesift-annotate -x"
export_ws "$t/ws-tags" "$t/tags.csv" || fail "exporting the default-tags workspace"
pagesift-train --per-site "$t/tags.csv" -o "$t/sm3" > /dev/null 2> "$t/err" \
  && fail "rows of other block tags trained a site model"
grep -qF -- "-b $tags (pagesift-features, pagesift-annotate)" "$t/err" \
  || fail "the message does not give the model's block tags whole: $(cat "$t/err")"
[ ! -e "$t/sm3" ] || [ -z "$(ls "$t/sm3")" ] || fail "a refused training left bundles"
echo "ok: a workspace's export trained bbc.co.uk's site model, used on its pages; -x and the tags asked for"
