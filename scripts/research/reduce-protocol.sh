#!/usr/bin/env bash
# scripts/research/reduce-protocol.sh — the held-out protocol with reduced-set
# models (issue 33, pagesift-train --reduce): the frozen held-out models of
# out/loso, out/traf-folds and out/wcxb-folds (never retrained, never
# written) are reduced, each on the block CSVs of the sets it was trained on
# (a leave-one-set-out model: every set but the held-out one; a fold's
# model: the other sets and its own not-fold CSV; a grid model: the
# wcxb-dev rows it was trained on), and scored as scripts/eval-all --loso,
# scripts/eval-traf-folds and scripts/eval-wcxb-folds score them.  SIZE
# "orig" links the unreduced models instead: the baseline, same build, same
# commands.
#
#   scripts/research/reduce-protocol.sh SIZE OUT [loso] [traf] [wcxb]
#
# Environment: PS_SHARED_DIR (../shared), PS_BINARY_DIR (build/), MAIN_OUT
# (the folder of the frozen models, default ../main/out), JOBS (1), SEED
# (pagesift-train -s: the k-means seeding and the fit sample, default 1),
# GRID_SIZE=orig (the grid models left unreduced, linked).
# Writes OUT/loso/*.json, OUT/traf (eval-traf-folds --out), OUT/wcxb
# (eval-wcxb-folds --out), OUT/reduce-*.txt (pagesift-train's figures) and
# OUT/scores.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
size=${1:?usage: reduce-protocol.sh SIZE OUT [loso] [traf] [wcxb]}
out=${2:?usage}
shift 2
parts=${*:-loso traf wcxb}
shared=${PS_SHARED_DIR:-$root/../shared}
bin=${PS_BINARY_DIR:-$root/build}
main=${MAIN_OUT:-$root/../main/out}
jobs=${JOBS:-1}
data=$shared/datasets
tf=$main/traf-folds/features wf=$main/wcxb-folds/features
sets7="cleaneval cleanportaleval dragnet l3s-gn1 netease readability"
mkdir -p "$out"
out=$(cd "$out" && pwd)
nice=()
[ "$(nice)" -eq 0 ] && nice=(nice -n 10)

# reduce SRC DST CSV...: DST is SRC reduced (or a link to it: SIZE orig)
reduce() {
  local src=$1 dst=$2
  shift 2
  if [ "$size" = orig ] || { [ "${GRID_SIZE:-}" = orig ] && [[ $dst == *.grid.model ]]; }; then
    ln -sfn "$src" "$dst"
  elif [ ! -s "$dst" ]; then
    "${nice[@]}" "$bin/pagesift-train" --reduce "$size" -s "${SEED:-1}" -m "$src" "$@" -o "$dst" \
      > "$out/reduce-$(basename "$(dirname "$dst")")-$(basename "$dst" .model).txt"
  fi
}

if [[ " $parts " == *" loso "* ]]; then
  mkdir -p "$out/loso"
  reduce "$main/loso/wcxb-dev.grid.model" "$out/loso/wcxb-dev.grid.model" "$tf/wcxb-dev.csv"
  for s in $sets7; do
    csvs=()
    for o in $sets7 trafilatura-eval wcxb-dev; do [ "$o" = "$s" ] || csvs+=("$tf/$o.csv"); done
    m=$out/loso/without-$s.model
    reduce "$main/loso/without-$s.model" "$m" "${csvs[@]}"
    ln -sfn wcxb-dev.grid.model "${m%.model}.grid.model"
    case $s in
      cleaneval) pt=$root/models/page-types.model ;;
      *) pt=$main/loso/page-types-without-$s.model ;;
    esac
    PAGESIFT_PAGE_TYPES=$pt "${nice[@]}" "$bin/pagesift-eval" -q -j "$jobs" --icu --json -d "$data/$s" -m svm \
      --model "$m" --tag +loso > "$out/loso/loso-$s.json" 2> "$out/loso/loso-$s.log" || true
    PAGESIFT_PAGE_TYPES=$pt "${nice[@]}" "$bin/pagesift-eval" -q -j "$jobs" --icu --json -d "$data/$s" \
      -m template-svm --per-site 5 --model "$m" --tag +templates+loso \
      > "$out/loso/persite-loso-$s.json" 2> "$out/loso/persite-loso-$s.log" || true
  done
fi

if [[ " $parts " == *" traf "* ]]; then
  mkdir -p "$out/traf/features"
  reduce "$main/traf-folds/wcxb-dev.grid.model" "$out/traf/wcxb-dev.grid.model" "$tf/wcxb-dev.csv"
  for k in 1 2 3 4 5; do
    csvs=()
    for o in $sets7 wcxb-dev; do csvs+=("$tf/$o.csv"); done
    reduce "$main/traf-folds/not-fold-$k-5.model" "$out/traf/not-fold-$k-5.model" "${csvs[@]}" \
      "$tf/trafilatura-eval.not-fold-$k-5.csv"
  done
  PS_SHARED_DIR=$shared PS_BINARY_DIR=$bin "$root/scripts/eval-traf-folds" -j "$jobs" --out "$out/traf" \
    > "$out/traf/summary.out" 2> "$out/traf/summary.err" || true
fi

if [[ " $parts " == *" wcxb "* ]]; then
  mkdir -p "$out/wcxb/features"
  for k in 1 2 3 4 5; do
    csvs=()
    for o in $sets7 trafilatura-eval; do csvs+=("$wf/$o.csv"); done
    reduce "$main/wcxb-folds/not-fold-$k-5.model" "$out/wcxb/not-fold-$k-5.model" "${csvs[@]}" \
      "$wf/wcxb-dev.not-fold-$k-5.csv"
    reduce "$main/wcxb-folds/not-fold-$k-5.grid.model" "$out/wcxb/not-fold-$k-5.grid.model" \
      "$wf/wcxb-dev.not-fold-$k-5.csv"
    ln -sfn "$main/wcxb-folds/page-types-not-fold-$k-5.model" "$out/wcxb/page-types-not-fold-$k-5.model"
  done
  PS_SHARED_DIR=$shared PS_BINARY_DIR=$bin "$root/scripts/eval-wcxb-folds" -j "$jobs" --out "$out/wcxb" \
    > "$out/wcxb/summary.out" 2> "$out/wcxb/summary.err" || true
fi

# the figures: token F1 of every LOSO run, the two CV summaries
python3 - "$out" <<'PY' | tee "$out/scores.txt"
import json, os, sys, glob
out = sys.argv[1]
for f in sorted(glob.glob(os.path.join(out, "loso", "*.json"))):
    try:
        for r in json.load(open(f))["runs"]:
            print(f"{r['set']:16} {r['label']:28} token F1 {r['token']['f1']:.4f}")
    except Exception as e:
        print(f, "unreadable", e)
for name in ("traf", "wcxb"):
    f = os.path.join(out, name, "summary.json")
    if os.path.exists(f):
        for r in json.load(open(f))["runs"]:
            if "snippets" in r:
                print(f"{r['set']:16} {r['label']:28} snippet F1 {r['snippets']['f1']:.4f}")
            else:
                print(f"{r['set']:16} {r['label']:28} F1w {r['words']['f1']:.4f} token F1 {r['token']['f1']:.4f}")
                for t, v in sorted(r.get("by_page_type", {}).items()):
                    if isinstance(v, dict) and "words" in v:
                        print(f"  {t:14} F1w {v['words']['f1']:.4f}")
PY
