#!/usr/bin/env bash
# The block tags travel from the block CSV to the bundle (issue 31): rows
# cut with non-default block tags (pagesift-features -b; pagesift-annotate
# writes its rows the same way) record them in their block_tags column,
# pagesift-train writes them as the bundle's block_tags key, and pagesift
# parses pages with them -- no hand-edited bundle.  Checked:
#  - every row records the tags; the bundle's key is them;
#  - no train/serve skew: on every sample page pagesift with the bundle
#    keeps exactly the characters of the blocks pagesift-classify scores
#    content from the CSV; the same bundle set to body,section,div keeps
#    other text (what a bundle without the key did before);
#  - a CSV without the column (written before it) still trains, with a note
#    of what is assumed; --block-tags says otherwise;
#  - labelled rows cut with different block tags in one run are refused,
#    naming both sets, unless --block-tags is given; bad --block-tags is a
#    usage error; --per-site refuses rows cut with other tags than the
#    base model's (a site model keeps the base's).
set -uo pipefail
src=${PS_SOURCE_DIR:?}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tags=body,section,div,p,td,table
loud=(-j 1 --c-range 3:3:1 --gamma-range -3:-3:1 -k 2)
grid=(-q "${loud[@]}")

pagesift-features -q -b "$tags" -n 100000 -o "$t/rows.csv" "$src/datasets/sample" || fail "pagesift-features -b"
pagesift-features -q -n 100000 -o "$t/default.csv" "$src/datasets/sample" || fail "pagesift-features"
/usr/bin/python3 - "$t/rows.csv" "$t/default.csv" "$tags" <<'EOF' || fail "the block_tags column"
import csv, sys
for path, want in ((sys.argv[1], sys.argv[3]), (sys.argv[2], "body,section,div")):
    rows = list(csv.DictReader(open(path, newline="", encoding="utf-8")))
    assert rows and list(rows[0].keys())[-1] == "block_tags", list(rows[0].keys())[-3:]
    bad = [r["block_id"] for r in rows if r["block_tags"] != want]
    assert not bad, "%s: %d rows do not record %s" % (path, len(bad), want)
EOF

# train: the bundle records the rows' block tags
pagesift-train "${grid[@]}" "$t/rows.csv" -o "$t/m.model" > /dev/null 2> "$t/err" || fail "pagesift-train: $(cat "$t/err")"
[ "$(grep -c '^block_tags ' "$t/m.model")" = 1 ] || fail "not one block_tags key: $(grep '^block_tags' "$t/m.model")"
grep -qx "block_tags $tags" "$t/m.model" || fail "bundle key: $(grep '^block_tags' "$t/m.model")"
grep -q "note" "$t/err" && fail "a note for a CSV that records its tags: $(cat "$t/err")"

# pagesift with the bundle parses pages with those tags: what it keeps is
# what pagesift-classify keeps of the CSV's blocks
keep() { # keep BUNDLE OUTDIR
  rm -rf "$2"; mkdir -p "$2"
  pagesift -q -M "$1" -m svm --options focus=0,fill=0,headline=0,fallback=0,comments=0 \
    -o "$2" "$src/datasets/sample/html" || fail "pagesift -M $1"
}
pagesift-classify -q -m "$t/m.model" -o "$t/pred.csv" "$t/rows.csv" || fail "pagesift-classify"
keep "$t/m.model" "$t/out"
awk '/^block_tags / { print "block_tags body,section,div"; next } { print }' "$t/m.model" > "$t/default-tags.model"
keep "$t/default-tags.model" "$t/out-default"
/usr/bin/python3 - "$t" <<'EOF' || fail "pagesift with the trained bundle does not use the CSV's block tags"
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
def chars(d, pid):
    return collections.Counter("".join(open(os.path.join(t, d, pid + ".txt"), encoding="utf-8").read().split()))
pages = sorted({r["page_id"] for r in rows})
bad = [pid for pid in pages if chars("out", pid) != kept[pid]]
assert not bad, "pages whose kept characters differ from the CSV's content blocks: %s" % bad
skew = [pid for pid in pages if chars("out-default", pid) != kept[pid]]
assert skew, "body,section,div blocks keep the same text: the test cannot tell the tags apart"
print("ok: %d pages as the CSV's blocks; with body,section,div %d of them differ" % (len(pages), len(skew)))
EOF

# a CSV without the column (written before it): trains, says what it assumes
/usr/bin/python3 - "$t/rows.csv" "$t/old.csv" <<'EOF' || fail "writing an old CSV"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
names = [k for k in rows[0] if k != "block_tags"]
with open(sys.argv[2], "w", newline="", encoding="utf-8") as f:
    w = csv.DictWriter(f, fieldnames=names, extrasaction="ignore", lineterminator="\r\n")
    w.writeheader(); w.writerows(rows)
EOF
pagesift-train "${loud[@]}" "$t/old.csv" -o "$t/old.model" > /dev/null 2> "$t/err" || fail "an old CSV: $(cat "$t/err")"
grep -q "note: [0-9]* labelled rows (old.csv) record no block tags.*taken as cut with body,section,div" "$t/err" \
  || fail "no note of the assumed tags: $(cat "$t/err")"
grep -qx "block_tags body,section,div" "$t/old.model" || fail "old CSV: $(grep '^block_tags' "$t/old.model")"
pagesift-train "${loud[@]}" --block-tags "$tags" "$t/old.csv" -o "$t/old2.model" > /dev/null 2> "$t/err" \
  || fail "an old CSV with --block-tags: $(cat "$t/err")"
grep -q "taken as cut with $tags (--block-tags)" "$t/err" || fail "note with --block-tags: $(cat "$t/err")"
grep -qx "block_tags $tags" "$t/old2.model" || fail "--block-tags: $(grep '^block_tags' "$t/old2.model")"

# rows of two block-tag sets in one run: refused, unless --block-tags
pagesift-train "${grid[@]}" "$t/rows.csv" "$t/default.csv" -o "$t/mix.model" > /dev/null 2> "$t/err"
rc=$?
[ $rc = 1 ] || fail "mixed block tags: exit $rc, want 1 ($(cat "$t/err"))"
grep -q "default.csv:[0-9]*: the row was cut with block tags 'body,section,div', the rows before with '$tags' (first at .*rows.csv:2).*--block-tags" "$t/err" \
  || fail "mixed block tags: message $(cat "$t/err")"
[ -e "$t/mix.model" ] && fail "a bundle written for mixed block tags"
pagesift-train "${grid[@]}" "$t/rows.csv" "$t/old.csv" -o "$t/mix.model" > /dev/null 2> "$t/err"
[ $? = 1 ] && grep -q "(assumed: it records none)" "$t/err" || fail "rows without a record beside others: $(cat "$t/err")"
pagesift-train "${grid[@]}" --block-tags "$tags" "$t/rows.csv" "$t/default.csv" -o "$t/mix.model" > /dev/null 2> "$t/err" \
  || fail "--block-tags over mixed rows: $(cat "$t/err")"
grep -qx "block_tags $tags" "$t/mix.model" || fail "--block-tags over mixed rows: $(grep '^block_tags' "$t/mix.model")"
# the same set in another order or with a repeat is the same set
sed '1!s/"body,section,div,p,td,table"/"table,td,p,div,section,body,p"/' "$t/rows.csv" > "$t/reordered.csv"
grep -q '"table,td,p,div,section,body,p"' "$t/reordered.csv" || fail "reordering the tags"
pagesift-train "${grid[@]}" "$t/rows.csv" "$t/reordered.csv" -o "$t/re.model" > /dev/null 2> "$t/err" \
  || fail "the same tags reordered refused: $(cat "$t/err")"
for bad in "p,td" "Body,div" "body,<x>"; do
  pagesift-train "${grid[@]}" --block-tags "$bad" "$t/rows.csv" -o "$t/bad.model" > /dev/null 2> "$t/err"
  rc=$?
  [ $rc = 2 ] && grep -q "block tags '$bad'" "$t/err" || fail "--block-tags $bad: exit $rc, $(cat "$t/err")"
done
# site models keep the base's block tags: rows cut with others are refused
pagesift-train -q --per-site -m "$t/m.model" "$t/default.csv" -o "$t/sites" > /dev/null 2> "$t/err"
rc=$?
[ $rc = 1 ] && grep -qF "the row was cut with block tags 'body,section,div', not the base model's (a site model keeps them): cut the rows with -b $tags (" "$t/err" \
  && grep -q "default.csv:[0-9]*: " "$t/err" \
  || fail "--per-site with rows of other block tags than the base's: exit $rc, $(cat "$t/err")"
echo "ok: block tags carried from the CSV into the bundle, mixed sets refused, old CSVs assumed default"
