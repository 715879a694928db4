#!/usr/bin/env bash
# scripts/research/quality-protocol.sh — the issue-9 figures on the real pipeline:
# for every test set, the model of scripts/train-default-model trained on all
# the other sets (leave-one-set-out), then pagesift-eval of "svm" and
# "template-svm" (templates learnt per site from the set's own pages,
# --per-site 5), with the second passes (default) and without them
# (focus=0,fill=0,headline=0,fallback=0,comments=0); for the extended recipe and the
# paper's R1-R5.
#
# Usage: scripts/research/quality-protocol.sh WORKDIR [FEATURES_DIR]
#   FEATURES_DIR: per-set CSVs of the recipe's blocks (scripts/features-per-set
#   DIR "" learn), reused instead of recomputed.
# Writes WORKDIR/<variant>-<set>.json (pagesift-eval --json) and prints the
# table (scripts/research/quality-protocol-table.py WORKDIR prints it again).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${PS_SHARED_DIR:-$root/../shared}
w=${1:?usage: quality-protocol.sh WORKDIR [FEATURES_DIR]}
fdir=${2:-$w/features}
mkdir -p "$w" "$fdir"
all="dragnet l3s-gn1 cleaneval cleanportaleval netease readability"
tests=${TEST_SETS:-dragnet l3s-gn1 cleaneval cleanportaleval netease}
for fs in extended paper; do
  for t in $tests; do
    others=$(for o in $all; do [ "$o" = "$t" ] || printf '%s ' "$o"; done)
    m="$w/$fs-without-$t.model"
    if [ ! -s "$m" ]; then
      # extended = the recipe's own feature list (train-default-model's
      # default); paper = R1..R5 at the first round's grid point
      if [ "$fs" = paper ]; then pt=(FEATURES=paper LOG2C=7 LOG2G=5); else pt=(); fi
      env "${pt[@]}" SETS="$others" FEATURES_DIR="$fdir" \
        "$root/scripts/train-default-model" "$m" > "$w/$fs-without-$t.log" 2>&1
    fi
    for meth in svm template-svm; do
      for passes in on off; do
        j="$w/$fs-$meth-$passes-$t.json"
        [ -s "$j" ] && continue
        opt=(); [ "$passes" = off ] && opt=(--options focus=0,fill=0,headline=0,fallback=0,comments=0)
        ps=(); [ "$meth" = template-svm ] && ps=(--per-site 5)
        nice -n 10 "$root/build/pagesift-eval" -q -j 2 --json -d "$shared/datasets/$t" -m "$meth" \
          --model "$m" "${ps[@]}" "${opt[@]}" > "$j" || { echo "failed: $j" >&2; rm -f "$j"; }
      done
    done
  done
done
python3 "$root/scripts/research/quality-protocol-table.py" "$w"
