#!/usr/bin/env bash
# tests/cli/fast_model.sh — models/default.fast.model (issue 33,
# scripts/reduce-default-model): it is a reduction of the shipped model as it
# is now (its `reduced_from` names default.model's checksum and support
# vectors, stage by stage: a retrained default.model without a new fast model
# fails here), the same for the grid models; and `pagesift --model` reads it
# and extracts the bundled sample as well as the shipped model does (token
# F1 against the gold within 0.01, every page extracted).
set -u
command -v pagesift >/dev/null || { echo "SKIP: pagesift not on PATH"; exit 77; }
command -v pagesift-eval >/dev/null || { echo "SKIP: pagesift-eval not on PATH"; exit 77; }
src=${PS_SOURCE_DIR:?}
m=$src/models
fail() { echo "FAIL: $*"; exit 1; }
# "<checksum> <support vectors>" of each stage of a bundle, one line each
stages() { awk '/^checksum /{c=$2} /^support_vectors /{s=$2} /^libsvm-model-bytes /{print c, s}' "$1"; }
for base in default default.grid; do
  [ -s "$m/$base.model" ] || continue
  fast=$m/${base/default/default.fast}.model
  [ -s "$fast" ] || fail "$base.model has no reduced $fast (scripts/reduce-default-model)"
  want=$(stages "$m/$base.model")
  got=$(grep -a '^reduced_from ' "$fast" | cut -d' ' -f2-)
  [ "$want" = "$got" ] || fail "$fast is not a reduction of $base.model as it is now (reduced_from: $got; the model: $want): run scripts/reduce-default-model"
done
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
f1() { awk '$1 == "sample" && $2 == "x" { print $4, $(NF-2), $(NF-1) }' "$1"; }
pagesift-eval -q -d "$src/datasets/sample" -m template-svm --per-site 3 --model "$m/default.model" --write "$t/d" >/dev/null 2>&1 \
  || fail "the shipped model on the sample"
pagesift-eval -q -d "$src/datasets/sample" -m template-svm --per-site 3 --model "$m/default.fast.model" --write "$t/f" >/dev/null 2>&1 \
  || fail "the fast model on the sample"
pagesift-eval -d "$src/datasets/sample" -p "x=$t/d/sample/template-svm" > "$t/d.txt" 2>&1
pagesift-eval -d "$src/datasets/sample" -p "x=$t/f/sample/template-svm" > "$t/f.txt" 2>&1
read -r fd ed xd <<< "$(f1 "$t/d.txt")"
read -r ff ef xf <<< "$(f1 "$t/f.txt")"
[ -n "${fd:-}" ] && [ -n "${ff:-}" ] || fail "no F1 in pagesift-eval's table: $(cat "$t/f.txt" | head -5)"
echo "sample, template-svm: F1 $fd (default.model), $ff (default.fast.model)"
awk -v a="$fd" -v b="$ff" 'BEGIN { exit !(b >= a - 0.01) }' || fail "the fast model's F1 $ff is more than 0.01 under the shipped model's $fd"
[ "$ef" = 0 ] && [ "$xf" = 0 ] || fail "the fast model left $ef pages empty and failed $xf"
# site models are made against default.model; with the fast model loaded
# their bundles are not used, and the warning says why and what to run
command -v pagesift-features >/dev/null && command -v pagesift-train >/dev/null || { echo "PASS (site models: SKIP)"; exit 0; }
pagesift-features -x -b "$(sed -n 's/^block_tags //p;/^libsvm-model-bytes/q' "$m/default.model")" -L -o "$t/l.csv" \
  "$src/datasets/sample" > /dev/null 2>&1 || fail "pagesift-features on the sample"
/usr/bin/python3 - "$t/l.csv" "$t/bbc.csv" <<'PY' || fail "the bbc.co.uk rows"
import csv, sys
csv.field_size_limit(1 << 30)
r = csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8'))
w = csv.DictWriter(open(sys.argv[2], 'w', newline='', encoding='utf-8'), fieldnames=r.fieldnames, lineterminator='\r\n')
w.writeheader()
for row in r:
    if row['site'] == 'bbc.co.uk':
        w.writerow(row)
PY
pagesift-train -q --keep-worse --per-site -m "$m/default.model" "$t/bbc.csv" -o "$t/sm" \
  > /dev/null 2>&1 || fail "a site model on the sample's bbc.co.uk pages"
[ -s "$t/sm/bbc.co.uk.model" ] || fail "no site model for bbc.co.uk: $(ls "$t/sm")"
pagesift --model "$m/default.fast.model" --models "$t/sm" -f jsonl "$src/datasets/sample" > "$t/s.jsonl" 2> "$t/s.err" \
  || fail "pagesift --model default.fast.model --models: $(cat "$t/s.err")"
grep -q "bbc.co.uk.model: made against default.model .* was reduced from; a reduced model is no base for site models" "$t/s.err" \
  || fail "the warning: $(cat "$t/s.err")"
grep -q '"model":"site:' "$t/s.jsonl" && fail "a site model was used on the fast model"
pagesift --models "$t/sm" -f jsonl "$src/datasets/sample" 2>/dev/null | grep -q '"model":"site:bbc.co.uk"' \
  || fail "the same site models with default.model are not used"
echo "PASS"
