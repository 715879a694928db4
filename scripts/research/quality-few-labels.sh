#!/usr/bin/env bash
# scripts/research/quality-few-labels.sh — learning a site from few labelled pages
# (issue 19): what the default recipe's model gains on a site's other pages
# when the blocks of k of its pages, labelled by a person (simulated: labels
# from the gold text, as pagesift-annotate would export them), are added to
# its training rows.
#
# Per set X and site S of X: the base model is the leave-one-set-out model
# (scripts/train-default-model's recipe on every set but X: the shipped model
# saw X).  For k in K (default 1 3 5 10) the same training rows plus every
# labelled block of the first k pages of S (index order) train a model with
# the same settings.  Every model is scored with pagesift-eval (template-svm,
# templates learnt per site from the held-out pages, --per-site 3) on S's
# pages after its 10th, which no model saw.  Per-site models (issue 20) are
# not measured here.
#
# Usage: scripts/research/quality-few-labels.sh [SET:SITE]...
#   default: cleanportaleval:tv.msnbc.com cleanportaleval:washingtonpost.com
#            cleanportaleval:blogs.wsj.com netease:163.com
# Environment: PS_SHARED_DIR, PS_BINARY_DIR, K ("1 3 5 10"), FEATURES_DIR
# (per-set feature CSVs, reused when present).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${PS_SHARED_DIR:-$root/../shared}
bin=$(cd "${PS_BINARY_DIR:-$root/build}" && pwd)
ks=${K:-1 3 5 10}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(cleanportaleval:tv.msnbc.com cleanportaleval:washingtonpost.com
                                     cleanportaleval:blogs.wsj.com netease:163.com)
all_sets="cleaneval cleanportaleval dragnet l3s-gn1 netease readability"
tags=body,section,div,p,td,table
features=extended,-x_tag_,-x_stopwords
nice=()
[ "$(nice)" -eq 0 ] && nice=(nice -n 10)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fdir=${FEATURES_DIR:-$work/features}
mkdir -p "$fdir"
for s in $all_sets; do
  [ -s "$fdir/$s.csv" ] || PS_SHARED_DIR=$shared PS_BINARY_DIR=$bin SETS=$s "$root/scripts/features-per-set" "$fdir" "$tags" learn
done

train() { # train CSV OUT
  "${nice[@]}" "$bin/pagesift-train" -j 2 -q -f "$features" --seed 1 --balance undersample \
    --c-range 3:3:1 --gamma-range -3:-3:1 --folds 5 -g site --block-tags "$tags" "$1" -o "$2" > /dev/null
}
score() { # score MODEL DATASET_DIR -> token F1 (4-gram shingles), P, R
  "${nice[@]}" "$bin/pagesift-eval" -q --json -d "$2" -m template-svm --per-site 3 --model "$1" |
    /usr/bin/python3 -c 'import json, sys; t = json.load(sys.stdin)["runs"][0]["token"]; print("%.3f (%.3f / %.3f)" % (t["f1"], t["p"], t["r"]))'
}

echo "# scripts/research/quality-few-labels.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), k: $ks; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| set | site | held-out pages | k = 0 (leave-one-set-out model) | $(for k in $ks; do printf 'k = %s | ' "$k"; done)"
echo "| --- | --- | ---: | ---: | $(for k in $ks; do printf -- '---: | '; done)"
for t in "${targets[@]}"; do
  set_=${t%%:*} site=${t#*:}
  dir="$shared/datasets/$set_"
  others=""
  for s in $all_sets; do [ "$s" = "$set_" ] || others="$others $fdir/$s.csv"; done
  [ -s "$work/base-$set_.csv" ] ||
    "${nice[@]}" /usr/bin/python3 "$root/scripts/sample-pages.py" --rows 2000 --seed 1 -o "$work/base-$set_.csv" $others
  [ -s "$work/base-$set_.model" ] || train "$work/base-$set_.csv" "$work/base-$set_.model"
  # the site's pages in index order: the first 10 may be labelled, the rest are scored
  awk -F'\t' -v s="$site" 'NR > 1 && $3 == s { print $1 }' "$dir/index.tsv" > "$work/ids"
  held="$work/held-$set_-$site"
  mkdir -p "$held"
  ln -sfn "$dir/html" "$held/html"
  ln -sfn "$dir/gold" "$held/gold"
  { head -1 "$dir/index.tsv"; awk -F'\t' -v s="$site" 'NR > 1 && $3 == s' "$dir/index.tsv" | tail -n +11; } > "$held/index.tsv"
  n_held=$(($(wc -l < "$held/index.tsv") - 1))
  [ "$n_held" -ge 1 ] || { echo "quality-few-labels: $site has no page after its 10th" >&2; continue; }
  row="| $set_ | $site | $n_held | $(score "$work/base-$set_.model" "$held") |"
  for k in $ks; do
    head -n "$k" "$work/ids" > "$work/k-ids"
    /usr/bin/python3 - "$work/base-$set_.csv" "$fdir/$set_.csv" "$work/k-ids" "$work/k.csv" <<'PY'
import csv, sys
csv.field_size_limit(1 << 30)
base, setcsv, ids, out = sys.argv[1:]
want = set(open(ids).read().split())
with open(out, 'w', newline='', encoding='utf-8') as f:
    w = None
    for r in csv.DictReader(open(base, newline='', encoding='utf-8')):
        if w is None:
            w = csv.DictWriter(f, fieldnames=list(r.keys()), lineterminator='\r\n')
            w.writeheader()
        w.writerow(r)
    n = 0
    for r in csv.DictReader(open(setcsv, newline='', encoding='utf-8')):
        if r['page_id'] in want and r['label'] != '':
            w.writerow({k: r.get(k, '') for k in w.fieldnames})
            n += 1
    print(n, file=sys.stderr)
PY
    train "$work/k.csv" "$work/k.model" 2>> "$work/rows.log"
    row="$row $(score "$work/k.model" "$held") |"
  done
  echo "$row"
done
echo
echo "Cells: token F1 (precision / recall), 4-gram shingles averaged over the held-out pages (pagesift-eval)."
