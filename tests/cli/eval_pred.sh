#!/usr/bin/env bash
# pagesift-eval --pred: a folder of the gold texts scores F1 = 1.0; a folder
# of empty outputs scores 0 with every page counted as empty; missing files
# count as failures; usage errors exit 2; the JSON and the chart are written.
set -euo pipefail
sample="$PS_SOURCE_DIR/datasets/sample"
[ -f "$sample/index.tsv" ] || { echo "SKIP: $sample missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$(($(wc -l < "$sample/index.tsv") - 1))

pagesift-eval --json -d "$sample" -p "gold=$sample/gold" > "$tmp/gold.json"
python3 - "$tmp/gold.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
n = int(sys.argv[2])
assert r["pages"] == n, r["pages"]
for k in ("token", "token1", "chars", "token_benchmark_rule"):
    assert r[k]["f1"] == 1.0, (k, r[k])
assert r["qualified"] == n and r["excellent"] == n
assert r["empty_outputs"] == 0 and r["failed"] == 0
PY

mkdir "$tmp/empty"
for f in "$sample"/gold/*.txt; do : > "$tmp/empty/$(basename "$f")"; done
pagesift-eval --json -d "$sample" -p "$tmp/empty" > "$tmp/empty.json"
python3 - "$tmp/empty.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
n = int(sys.argv[2])
assert r["label"] == "empty"
assert r["token"]["f1"] == 0.0 and r["token"]["p"] == 0.0 and r["token"]["r"] == 0.0
assert r["empty_outputs"] == n, r["empty_outputs"]
assert r["failed"] == 0 and r["qualified"] == 0
PY

# two files missing: empty outputs that count as failures
rm "$tmp/empty"/cleaneval-dev-4.txt "$tmp/empty"/netease-3.txt
pagesift-eval -d "$sample" -p "$tmp/empty" > "$tmp/table.txt"
grep -E '^sample +empty +21 .* 21 +2 ' "$tmp/table.txt" >/dev/null || { cat "$tmp/table.txt"; exit 1; }

# the whole page text ("all") and a chart; its outputs written with --write
# and scored again with --pred give the same figures
pagesift-eval -q -d "$sample" -m all --chart "$tmp/c.svg" --write "$tmp/w" --json > "$tmp/all.json"
grep -q '<svg' "$tmp/c.svg"
grep -q '>all<' "$tmp/c.svg"
[ "$(ls "$tmp/w/sample/all" | wc -l)" -eq "$n" ]
pagesift-eval -q -d "$sample" -p "again=$tmp/w/sample/all" --json > "$tmp/again.json"
python3 - "$tmp/all.json" "$tmp/again.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["runs"][0]
b = json.load(open(sys.argv[2]))["runs"][0]
assert 0.3 < a["token"]["f1"] < 1.0, a["token"]
for k in ("token", "token1", "chars"):
    assert a[k] == b[k], (k, a[k], b[k])
assert a["pages_per_s"] > 0
# leaf level: "all" keeps every leaf, so every gold leaf is found, and the
# noise leaves make its precision low; an output folder has no leaves
assert a["leaves"]["r"] == 1.0 and a["leaves"]["p"] < 0.5, a["leaves"]
assert a["leaf_pages"] == a["pages"]
assert "leaves" not in b
PY

# --per-site: templates are learnt from the 10 bbc pages of the sample
pagesift-eval -q -d "$sample" -m all --per-site 5 --tag +templates --json > "$tmp/ps.json"
python3 - "$tmp/ps.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["label"] == "all+templates", r["label"]
assert "(1 sites" in r["protocol"], r["protocol"]
PY
set +e
pagesift-eval -d "$sample" -m all --per-site 0 2>/dev/null; [ $? -eq 2 ] || exit 1
set -e

# --merge-json: the runs of two outputs in one document and one chart
pagesift-eval --merge-json "$tmp/all.json" --merge-json "$tmp/gold.json" --chart "$tmp/m.svg" > "$tmp/m.json"
python3 - "$tmp/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["label"] for r in d["runs"]] == ["all", "gold"], d["runs"]
PY
grep -q '>gold<' "$tmp/m.svg"

# usage errors and setup errors
set +e
pagesift-eval -d "$sample" -m no-such-method 2>/dev/null; [ $? -eq 2 ] || exit 1
pagesift-eval -d "$sample" 2>/dev/null; [ $? -eq 2 ] || exit 1
pagesift-eval -d "$tmp/nowhere" -m all 2>"$tmp/err"; [ $? -eq 3 ] || exit 1
grep -q nowhere "$tmp/err" || exit 1
pagesift-eval -d "$sample" -p "$tmp/nowhere" 2>/dev/null; [ $? -eq 3 ] || exit 1
pagesift-eval --merge-json "$tmp/table.txt" >/dev/null 2>&1; [ $? -eq 3 ] || exit 1
exit 0
