#!/usr/bin/env bash
# scripts/research/quality-search.sh — the recipe search of issue 9, end to end and
# reproducible (figures in docs/research/QUALITY.md section 1): block CSVs for four
# block variants, leave-one-set-out training and scoring of each feature set
# and balance (the second passes are measured on the real pipeline:
# scripts/research/quality-protocol.sh).
#
#   A: blocks body,section,div (the paper's)        B: + p, td, table
#   C: B with templates learnt per site (-L)         D: A with templates
#
# Usage: scripts/research/quality-search.sh WORKDIR     (about 25 minutes on 2 cores)
# Then: scripts/research/quality-table.py WORKDIR > table.md
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
w=${1:?usage: quality-search.sh WORKDIR}
mkdir -p "$w"
T=body,section,div,p,td,table
[ -s "$w/fA/dragnet.csv" ] || "$root/scripts/features-per-set" "$w/fA"
[ -s "$w/fB/dragnet.csv" ] || "$root/scripts/features-per-set" "$w/fB" "$T"
[ -s "$w/fC/dragnet.csv" ] || "$root/scripts/features-per-set" "$w/fC" "$T" learn
[ -s "$w/fD/dragnet.csv" ] || "$root/scripts/features-per-set" "$w/fD" "" learn
# C and gamma: one 5-fold site-grouped CV grid per feature set on a sample of
# every set (B blocks); the chosen point is then used for every variant
mkdir -p "$w/g"
python3 "$root/scripts/sample-pages.py" --rows 4000 -o "$w/g/B.csv" "$w"/fB/*.csv 2>/dev/null
nice -n 10 "$root/build/pagesift-train" -q -f extended -g site --folds 5 --cv-rows 8000 \
  --c-range -1:11:4 --gamma-range -9:1:2 -o "$w/g/ext.model" "$w/g/B.csv" > "$w/g/ext.txt"
nice -n 10 "$root/build/pagesift-train" -q -f paper -g site --folds 5 --cv-rows 8000 \
  --c-range -1:11:4 --gamma-range -5:5:2 -o "$w/g/paper.model" "$w/g/B.csv" > "$w/g/paper.txt"
point() { # the chosen log2 C and log2 gamma of a grid report
  sed -n 's/^chosen: log2 C=\([-0-9]*\), log2 gamma=\([-0-9]*\) .*/\1 \2/p' "$1"
}
for fs in paper ext; do
  read -r c g < <(point "$w/g/$fs.txt")
  F=(--c-range "$c:$c:1" --gamma-range "$g:$g:1" --folds 2 --cv-rows 2000)
  f=$fs; [ "$fs" = ext ] && f=extended
  for v in C B A D; do
    for bal in undersample none; do
      d="$w/r-$v-$fs"; [ "$bal" = none ] && d="$d-none"
      [ -s "$d/scores.txt" ] && grep -q '^#' "$d/scores.txt" && continue
      "$root/scripts/research/quality-loso.sh" "$w/f$v" "$d" "$f" "${F[@]}" --balance "$bal"
    done
  done
done
