#!/usr/bin/env bash
# tests/cli/stack_model.sh — a stacked model (issue 14) made as
# scripts/train-default-model makes one, on the bundled sample: a first
# stage, its context features (pagesift-classify --context), a second stage
# over them, the two bundles in one file.  Then:
#  - no train/serve skew: on every sample page, pagesift with the stacked
#    bundle (passes off, so the kept blocks are the classifier's) keeps
#    exactly the characters (whitespace aside: the CSV joins a block's
#    leaves with spaces) of the blocks pagesift-classify scores content from
#    the CSV (context from block_path there, from the page tree here);
#  - the same with a gate (pagesift-classify --gate): the rows below it are
#    no training rows, and those blocks keep their first-stage score;
#  - readers of one stage see the first: pagesift-classify --context on
#    the stacked bundle gives the first stage's scores as c_self;
#  - a damaged second stage is refused, naming it, before any page is read.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tags=body,section,div,p,td,table,article,main,aside,nav,header,footer,figure,ul,ol,form,blockquote,h1,h2,h3,h4,h5,h6
feat="extended,-x_tag_,-x_stopwords,-x_anc_"
pagesift-features -q -x -b "$tags" -n 100000 -o "$t/rows.csv" "$src/datasets/sample" || fail "pagesift-features"
pagesift-train -q -j 1 -f "$feat" --c-range 3:3:1 --gamma-range -3:-3:1 -k 2 "$t/rows.csv" -o "$t/first.model" \
  > /dev/null || fail "first stage"
pagesift-classify -q --context -m "$t/first.model" -o "$t/ctx.csv" "$t/rows.csv" || fail "classify --context"
head -1 "$t/ctx.csv" | tr -d '\r' | grep -q ',c_self,c_parent,c_siblings,.*,c_sub_pos$' || fail "no c_* columns: $(head -1 "$t/ctx.csv")"
[ "$(wc -l < "$t/ctx.csv")" = "$(wc -l < "$t/rows.csv")" ] || fail "--context changed the row count"
pagesift-train -q -j 1 -f "$feat,context" --c-range 3:3:1 --gamma-range -3:-3:1 -k 2 "$t/ctx.csv" \
  -o "$t/second.model" > /dev/null || fail "second stage"
grep -q '^features .*c_self' "$t/second.model" || fail "the second stage lacks the context features"
{ grep -qx "block_tags $tags" "$t/first.model" && cp "$t/first.model" "$t/stack.model"; } || fail "the first stage lacks block_tags $tags"
cat "$t/second.model" >> "$t/stack.model"

# the CSV's view and the page's view agree, page by page
agree() { # agree BUNDLE NAME
  pagesift-classify -q -m "$1" -o "$t/pred.csv" "$t/rows.csv" || fail "$2: classify with the stack"
  rm -rf "$t/out"; mkdir -p "$t/out"
  pagesift -q -M "$1" -m svm --options focus=0,fill=0,headline=0,fallback=0,comments=0 \
    -o "$t/out" "$src/datasets/sample/html" || fail "$2: pagesift with the stacked bundle"
  /usr/bin/python3 - "$t" <<'EOF' || fail "$2: pagesift and pagesift-classify disagree (train/serve skew)"
import collections, csv, os, sys
t = sys.argv[1]
rows = list(csv.DictReader(open(t + "/rows.csv", newline="", encoding="utf-8")))
pred = list(csv.DictReader(open(t + "/pred.csv", newline="", encoding="utf-8")))
assert len(rows) == len(pred)
kept = collections.defaultdict(collections.Counter)
for r, p in zip(rows, pred):
    assert r["block_id"] == p["block_id"]
    if p["pred"] == "1":
        kept[r["page_id"]].update("".join(r["text"].split()))
pages = sorted({r["page_id"] for r in rows})
bad = [pid for pid in pages
       if collections.Counter("".join(open(os.path.join(t, "out", pid + ".txt"), encoding="utf-8").read().split()))
       != kept[pid]]
assert not bad, "pages whose kept words differ: %s" % bad
EOF
}
agree "$t/stack.model" "stack"
pagesift-classify -q -m "$t/first.model" -o "$t/pred1.csv" "$t/rows.csv" || fail "classify with the first stage"
cmp -s "$t/pred.csv" "$t/pred1.csv" && fail "the stacked bundle scored as its first stage alone"

# a gate: rows the first stage scores below -1 are no training rows of the
# second stage (empty label), which then leaves such blocks alone
pagesift-classify -q --context --gate -1 -m "$t/first.model" -o "$t/ctxg.csv" "$t/rows.csv" || fail "--gate"
/usr/bin/python3 - "$t" <<'EOF' || fail "--gate: labels not emptied below the gate alone"
import csv, sys
t = sys.argv[1]
a = list(csv.DictReader(open(t + "/ctx.csv", newline="", encoding="utf-8")))
b = list(csv.DictReader(open(t + "/ctxg.csv", newline="", encoding="utf-8")))
assert len(a) == len(b)
emptied = 0
for x, y in zip(a, b):
    if abs(float(x["c_self"]) + 1) < 1e-5:
        continue  # printed to 6 digits: "-1" may be just below the gate or at it
    low = float(x["c_self"]) < -1
    assert y["label"] == ("" if low else x["label"]), (x["block_id"], x["c_self"], x["label"], y["label"])
    assert {k: v for k, v in x.items() if k != "label"} == {k: v for k, v in y.items() if k != "label"}
    emptied += low and x["label"] != ""
assert emptied > 0, "no row below the gate"
EOF
pagesift-train -q -j 1 -f "$feat,context" --c-range 3:3:1 --gamma-range -3:-3:1 -k 2 "$t/ctxg.csv" \
  -o "$t/second-g.model" > /dev/null || fail "gated second stage"
{ grep -qx "block_tags $tags" "$t/first.model" && cp "$t/first.model" "$t/stack-g.model"; } || fail "the first stage lacks block_tags $tags"
cat "$t/second-g.model" >> "$t/stack-g.model"
agree "$t/stack-g.model" "gated stack"
pagesift-classify -q -m "$t/stack-g.model" -o "$t/predg.csv" "$t/rows.csv"
/usr/bin/python3 - "$t" <<'EOF' || fail "the gate: a block below it did not keep its first-stage score"
import csv, sys
t = sys.argv[1]
one = list(csv.DictReader(open(t + "/pred1.csv", newline="", encoding="utf-8")))
g = list(csv.DictReader(open(t + "/predg.csv", newline="", encoding="utf-8")))
low = [(x, y) for x, y in zip(one, g) if float(x["score"]) < -1.01]
assert low and all(x["score"] == y["score"] for x, y in low)
assert any(x["score"] != y["score"] for x, y in zip(one, g) if float(x["score"]) > -0.99)
EOF

# a reader of one stage reads the first: c_self is the first stage's score
pagesift-classify -q --context -m "$t/stack.model" -o "$t/ctx2.csv" "$t/rows.csv" || fail "--context on the stack"
cmp -s "$t/ctx.csv" "$t/ctx2.csv" || fail "--context on the stacked bundle differs from its first stage's"
# a changed digit in the second stage: refused, named, exit 3
n1=$(wc -l < "$t/first.model")
awk -v n="$((n1 + 5))" 'NR == n + 1 { sub(/[0-9]/, ($0 ~ /^[^0-9]*1/) ? "2" : "1") } { print }' "$t/stack.model" \
  > "$t/bad.model"
cmp -s "$t/bad.model" "$t/stack.model" && fail "the test did not change the second stage"
pagesift -q -M "$t/bad.model" "$src/datasets/sample/html/dragnet-14.html" > /dev/null 2> "$t/err"
rc=$?
[ $rc = 3 ] || fail "a damaged second stage: exit $rc, not 3"
grep -q "second stage" "$t/err" || fail "the error does not name the second stage: $(cat "$t/err")"
echo "ok"
