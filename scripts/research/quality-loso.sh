#!/usr/bin/env bash
# scripts/research/quality-loso.sh — leave-one-set-out figures of one training recipe
# (issue 9): for every test set, train on the block CSVs of all the other
# sets, classify the test set's blocks, score token-level F1 of the blocks
# kept (scripts/research/quality-score.py, the block-level proxy of the benchmark
# metric, scored by pagesift-eval --pred).
#
# Usage: scripts/research/quality-loso.sh FEATDIR OUTDIR FEATURES [pagesift-train options...]
#   FEATDIR   per-set CSVs of scripts/features-per-set
#   FEATURES  paper, extended or a comma list of columns (pagesift-train -f)
# Environment: TEST_SETS (default: the five sets of issue 9), PS_BINARY_DIR,
# PS_SHARED_DIR, THREADS (pagesift-train -j, default 2), ROWS (rows sampled
# per training set, whole pages, seeded: scripts/sample-pages.py; default
# 4000, so that one training takes seconds on 2 shared cores).
# Writes OUTDIR/<set>.model, <set>.pred.csv, <set>.train.txt and scores.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${PS_SHARED_DIR:-$root/../shared}
bin=${PS_BINARY_DIR:-$root/build}
feat=${1:?usage}; out=${2:?usage}; fset=${3:?usage}; shift 3
tests=${TEST_SETS:-dragnet l3s-gn1 cleaneval cleanportaleval netease}
mkdir -p "$out"
nice=()
[ "$(nice)" -eq 0 ] && nice=(nice -n 10)
: > "$out/scores.txt"
for t in $tests; do
  train=()
  for f in "$feat"/*.csv; do
    [ "$(basename "$f" .csv)" = "$t" ] || train+=("$f")
  done
  start=$(date +%s)
  "${nice[@]}" python3 "$root/scripts/sample-pages.py" --rows "${ROWS:-4000}" --seed 1 \
    -o "$out/$t.train.csv" "${train[@]}" 2> /dev/null
  "${nice[@]}" "$bin/pagesift-train" -q -j "${THREADS:-2}" -f "$fset" "$@" \
    -o "$out/$t.model" "$out/$t.train.csv" > "$out/$t.train.txt"
  rm -f "$out/$t.train.csv"
  "${nice[@]}" "$bin/pagesift-classify" -q -m "$out/$t.model" -o "$out/$t.pred.csv" "$feat/$t.csv"
  secs=$(( $(date +%s) - start ))
  line=$(PS_BINARY_DIR="$bin" "${nice[@]}" python3 "$root/scripts/research/quality-score.py" --shared "$shared" --sets "$t" \
         "$feat/$t.csv" "$out/$t.pred.csv")
  echo "$line  (C=$(grep -m1 '^C ' "$out/$t.model" | cut -d' ' -f2) gamma=$(grep -m1 '^gamma ' "$out/$t.model" | cut -d' ' -f2), ${secs}s)" | tee -a "$out/scores.txt"
done
echo "# $(cat "$feat/VARIANT" 2>/dev/null) features=$fset train: $*" >> "$out/scores.txt"
