#!/usr/bin/env bash
# tests/cli/fast_model.sh — models/default.fast.model (issue 33,
# scripts/reduce-default-model): it is a reduction of the shipped model as it
# is now (its `reduced_from` names default.model's checksum and support
# vectors, stage by stage: a retrained default.model without a new fast model
# fails here), the same for the grid and typed companions; and `pagesift --model` reads it
# and extracts the bundled sample as well as the shipped model does (token
# F1 against the gold within 0.01, every page extracted); with site models
# made against default.model (--models), the fast model finds default.model
# by its reduced_from_file beside it: the site's pages get exactly what
# --model default.model --models gives them, every other page the fast
# model's output; without default.model there (missing, or altered) one
# warning, the site models left out, and --site-base names it.
set -u
command -v pagesift >/dev/null || { echo "SKIP: pagesift not on PATH"; exit 77; }
command -v pagesift-eval >/dev/null || { echo "SKIP: pagesift-eval not on PATH"; exit 77; }
src=${PS_SOURCE_DIR:?}
m=$src/models
fail() { echo "FAIL: $*"; exit 1; }
# "<checksum> <support vectors>" of each stage of a bundle, one line each
stages() { awk '/^checksum /{c=$2} /^support_vectors /{s=$2} /^libsvm-model-bytes /{print c, s}' "$1"; }
for base in default default.grid default.typed; do
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
# site models are made against default.model: with the fast model loaded
# they are read against default.model, found beside it by reduced_from_file
command -v pagesift-features >/dev/null && command -v pagesift-train >/dev/null || { echo "PASS (site models: SKIP)"; exit 0; }
[ "$(grep -a -c '^reduced_from_file default.model$' "$m/default.fast.model")" -eq 2 ] \
  || fail "default.fast.model does not name default.model in reduced_from_file (each stage)"
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
run() { # OUT MODEL [ARGS...]: the sample as JSON Lines, stderr in OUT.err
  local out=$1 model=$2; shift 2
  pagesift --model "$model" "$@" -f jsonl "$src/datasets/sample" > "$t/$out.jsonl" 2> "$t/$out.err" \
    || fail "pagesift --model $model $*: $(cat "$t/$out.err")"
}
# same A B C: A's records of pages a site model scored are B's, the others
# C's (prints how many were a site model's)
same() {
  /usr/bin/python3 - "$t/$1.jsonl" "$t/$2.jsonl" "$t/$3.jsonl" <<'PY'
import json, sys
a, b, c = ([json.loads(l) for l in open(p, encoding='utf-8')] for p in sys.argv[1:4])
assert len(a) == len(b) == len(c) == 21, (len(a), len(b), len(c))
site = 0
for x, y, z in zip(a, b, c):
    want = y if x['model'].startswith('site:') else z
    if x != want:
        sys.exit('%s (%s): differs from %s' % (x['id'], x['model'], sys.argv[2] if want is y else sys.argv[3]))
    site += x['model'].startswith('site:')
print(site)
PY
}
run f "$m/default.fast.model"
run d "$m/default.model" --models "$t/sm"
run s "$m/default.fast.model" --models "$t/sm"
grep -q warning "$t/s.err" && fail "a warning with default.model beside the fast model: $(cat "$t/s.err")"
grep -q '"model":"site:bbc.co.uk"' "$t/s.jsonl" || fail "the bbc.co.uk site model was not used with the fast model"
n=$(same s d f) || fail "fast model + site models: $n"
[ "$n" -eq 10 ] || fail "$n pages of the site model, not the sample's 10 bbc.co.uk pages"
echo "fast model + site models: the 10 bbc.co.uk pages as with default.model, the 11 others as the fast model alone"
# without default.model beside it: one warning, the site model left out
mkdir -p "$t/lone" "$t/alt"
for d in lone alt; do # the grid model too: the outputs are compared
  cp "$m/default.fast.model" "$t/$d/"
  [ -s "$m/default.fast.grid.model" ] && cp "$m/default.fast.grid.model" "$t/$d/"
done
# an altered copy: a digit of a support vector changed (its checksum no longer holds)
/usr/bin/python3 - "$m/default.model" "$t/alt/default.model" <<'PY' || fail "altering a copy"
import sys
b = open(sys.argv[1], 'rb').read()
i = b.index(b'\nSV\n') + 4
while not (48 <= b[i] <= 56):
    i += 1
open(sys.argv[2], 'wb').write(b[:i] + bytes([b[i] + 1]) + b[i + 1:])
PY
for dir in lone alt; do
  run "$dir" "$t/$dir/default.fast.model" --models "$t/sm"
  [ "$(grep -c warning "$t/$dir.err")" -eq 1 ] || fail "$dir: not one warning: $(cat "$t/$dir.err")"
  grep -q "bbc.co.uk.model: made against default.model .* was reduced from; a reduced model is no base for site models .* put it beside the one loaded or name it with --site-base, or run with --model default.model ($t/$dir/default.model: " "$t/$dir.err" \
    || fail "$dir: the warning: $(cat "$t/$dir.err")"
  grep -q '"model":"site:' "$t/$dir.jsonl" && fail "$dir: a site model was used without its base"
  cmp -s "$t/$dir.jsonl" "$t/f.jsonl" || fail "$dir: the output is not the fast model's"
done
grep -q "No such file" "$t/lone.err" || fail "lone: $(cat "$t/lone.err")"
grep -q "checksum mismatch" "$t/alt.err" || fail "alt: $(cat "$t/alt.err")"
# --site-base names it
run e "$t/lone/default.fast.model" --models "$t/sm" --site-base "$m/default.model"
grep -q warning "$t/e.err" && fail "--site-base: $(cat "$t/e.err")"
cmp -s "$t/e.jsonl" "$t/s.jsonl" || fail "--site-base: not the output with default.model beside the fast model"
echo "PASS"
