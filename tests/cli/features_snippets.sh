#!/usr/bin/env bash
# pagesift-features on a snippet set: partial labels (1 for blocks holding a
# 'with' snippet, 0 for blocks holding a 'without' snippet, empty for the
# rest), checked against the snippets with an independent Python reading;
# pagesift-train on a CSV mixing them with a gold set's CSV skips exactly the
# unlabelled rows; scripts/sample-pages.py counts labelled rows toward
# --rows; --fold/--not-fold K/N split a set into site folds (a partition, the
# complement) and bad folds are usage errors.
set -euo pipefail
src=$PS_SOURCE_DIR
sample="$src/datasets/sample"
[ -f "$sample/index.tsv" ] || { echo "SKIP: $sample missing"; exit 77; }
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set1="$tmp/snipset"
mkdir -p "$set1/html"
"$py" "$src/tests/cli/make-snippet-set.py" "$sample" "$set1"

# ---- labels from snippets ---------------------------------------------------
set +e
pagesift-features -x -n 1000000 -o "$tmp/snip.csv" "$set1" 2> "$tmp/summary.txt"
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$tmp/summary.txt"; echo "exit $rc, want 1 (the page without HTML)"; exit 1; }
grep -q "missing-page" "$tmp/summary.txt"
grep -q "^snippet set" "$tmp/summary.txt" || { cat "$tmp/summary.txt"; exit 1; }
"$py" - "$set1" "$tmp/snip.csv" <<'PY'
import csv, json, os, sys
setdir, path = sys.argv[1:3]
ev = json.load(open(os.path.join(setdir, "evaldata.json"), encoding="utf-8"))
squeeze = lambda s: "".join(s.split())  # the text column joins leaves by spaces: compare without any
rows = list(csv.DictReader(open(path, encoding="utf-8", newline="")))
count = {"1": 0, "0": 0, "": 0}
def overlaps(text, snips):
    """the block's text and a snippet share enough: one holds the other, or
    they overlap by >= 5 characters at an end (a snippet across blocks)"""
    for s in snips:
        s = squeeze(s)
        if not s or not text:
            continue
        if s in text or text in s:
            return True
        for k in range(min(len(s), len(text)) - 1, 4, -1):
            if text.endswith(s[:k]) or text.startswith(s[-k:]):
                return True
    return False
for r in rows:
    count[r["label"]] += 1
    e = ev[r["page_id"]]
    t = squeeze(r["text"])
    assert r["gold_share"] == "", r
    if r["label"] == "1":
        assert overlaps(t, e["with"]), ("content without a with snippet", r["page_id"], r["text"][:200])
    elif r["label"] == "0":
        assert overlaps(t, e["without"]), ("noise without a without snippet", r["page_id"], r["text"][:200])
    else:
        # unlabelled: holding a with snippet whole means it also holds a without one
        w = any(squeeze(s) in t for s in e["with"] if squeeze(s))
        o = any(squeeze(s) in t for s in e["without"] if squeeze(s))
        assert not (w and not o) and not (o and not w), ("unlabelled block holding snippets", r["page_id"], r["text"][:200])
assert count["1"] >= 8 and count["0"] >= 8, count
assert count[""] > count["1"] + count["0"], count
print("labels", count)
PY

# ---- mixed with a gold set: the unlabelled rows are skipped ---------------
pagesift-features -q -x -o "$tmp/gold.csv" "$sample"
pagesift-features -q -x -o "$tmp/snip2.csv" "$set1" || true
read -r lab unlab < <("$py" - "$tmp/gold.csv" "$tmp/snip2.csv" <<'PY'
import csv, sys
lab = unlab = 0
for p in sys.argv[1:]:
    for r in csv.DictReader(open(p, encoding="utf-8", newline="")):
        if r["label"]:
            lab += 1
        else:
            unlab += 1
print(lab, unlab)
PY
)
pagesift-train -q -f extended --c-range 0:0:1 --gamma-range -3:-3:1 --folds 2 -g site \
  "$tmp/gold.csv" "$tmp/snip2.csv" -o "$tmp/m.model" > "$tmp/train.txt"
grep -q "# data: $lab labelled rows (.*), $unlab unlabelled skipped" "$tmp/train.txt" \
  || { head -3 "$tmp/train.txt"; echo "want $lab labelled, $unlab unlabelled"; exit 1; }
[ -s "$tmp/m.model" ]

# ---- the sampler counts labelled rows toward --rows -------------------------
"$py" "$src/scripts/sample-pages.py" --rows 6 --seed 1 -o "$tmp/sample.csv" "$tmp/snip2.csv" 2> "$tmp/sample.log"
"$py" - "$tmp/sample.csv" "$tmp/snip2.csv" <<'PY'
import csv, sys
out = list(csv.DictReader(open(sys.argv[1], encoding="utf-8", newline="")))
full = list(csv.DictReader(open(sys.argv[2], encoding="utf-8", newline="")))
pages = []
for r in out:
    if r["page_id"] not in pages:
        pages.append(r["page_id"])
lab = lambda rows: sum(1 for r in rows if r["label"])
assert lab(out) >= 6, lab(out)
# whole pages, and it stopped at the first page that reached 6 labelled rows
for p in pages:
    assert sum(r["page_id"] == p for r in out) == sum(r["page_id"] == p for r in full), p
before = [r for r in out if r["page_id"] != pages[-1]]
assert lab(before) < 6, (lab(before), pages)
assert any(not r["label"] for r in out), "the unlabelled rows are kept"
PY
grep -q "labelled rows" "$tmp/sample.log"

# ---- site folds --------------------------------------------------------------
for k in 1 2 3; do
  pagesift-features -q --fold "$k/3" -o "$tmp/f$k.csv" "$sample"
  pagesift-features -q --not-fold "$k/3" -o "$tmp/n$k.csv" "$sample"
done
"$py" - "$tmp" "$sample/index.tsv" <<'PY'
import csv, os, sys
tmp, index = sys.argv[1:3]
rows = [l.split("\t") for l in open(index, encoding="utf-8").read().splitlines()[1:]]
ids = {r[0] for r in rows}
site = {r[0]: (r[2] or r[0]) for r in rows}
def fnv(s):
    h = 14695981039346656037
    for b in s.encode("utf-8"):
        h = ((h ^ b) * 1099511628211) % (1 << 64)
    return h
pages = lambda p: {r["page_id"] for r in csv.DictReader(open(p, encoding="utf-8", newline=""))}
seen = set()
for k in (1, 2, 3):
    f, n = pages(os.path.join(tmp, "f%d.csv" % k)), pages(os.path.join(tmp, "n%d.csv" % k))
    assert f and not (f & seen), k
    assert f | n == ids and not (f & n), k
    for p in f:
        assert fnv(site[p]) % 3 + 1 == k, (p, site[p])  # the documented hash
    seen |= f
assert seen == ids
sites = {}
for k in (1, 2, 3):
    for p in pages(os.path.join(tmp, "f%d.csv" % k)):
        assert sites.setdefault(site[p], k) == k, site[p]
PY
set +e
for bad in 0/3 4/3 3 x/3 1/0; do
  pagesift-features -q --fold "$bad" "$sample" > /dev/null 2> "$tmp/err"; rc=$?
  [ "$rc" -eq 2 ] || { echo "--fold $bad: exit $rc"; exit 1; }
  grep -q "fold K/N" "$tmp/err" || exit 1
done
pagesift-features -q --fold 1/3 --not-fold 2/3 "$sample" > /dev/null 2>&1; [ $? -eq 2 ] || exit 1
pagesift-eval -q -d "$sample" -m all --fold 3/2 > /dev/null 2>&1; [ $? -eq 2 ] || exit 1
set -e
exit 0
