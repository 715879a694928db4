#!/usr/bin/env bash
# scripts/research/quality-stack.sh — one configuration of the recipe under
# issue 14's protocol, for choosing between configurations (docs/research/QUALITY.md):
# leave-one-set-out over the seven sets (each set scored by
# scripts/train-default-model on the other six) and trafilatura-eval by
# 5-fold site-grouped cross-validation (scripts/eval-traf-folds), every
# figure from models that never saw the pages scored; template-svm with
# templates per site from >= 5 pages, as eval-all reports.
#
#   scripts/research/quality-stack.sh NAME      (environment: the recipe's
#                                                variables, e.g. STACK=5;
#                                                EVAL_OPTIONS: method options;
#                                                MODELS_FROM: reuse a run's models;
#                                                LAB_FEATURES: another folder
#                                                of feature CSVs)
#
# Writes out/lab/NAME/ (models, pagesift-eval JSON, logs) and prints one
# table row: per set token F1 (trafilatura-eval: the snippet rule's F1 with
# P and R), the traf CV figure and the mean over the seven LOSO figures.
# The per-set feature CSVs are made once in out/lab/features (shared by
# every configuration: delete it after changing the feature code), or in
# LAB_FEATURES (a labelling change: link the unchanged sets' CSVs there).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
name=${1:?usage: quality-stack.sh NAME}
shared=${PS_SHARED_DIR:-$root/../shared}
sets="cleaneval cleanportaleval dragnet l3s-gn1 netease readability trafilatura-eval"
out=out/lab/$name
feat=${LAB_FEATURES:-$root/out/lab/features}
mkdir -p "$out" "$feat"
export PS_SHARED_DIR=$shared PS_BINARY_DIR=$root/build FEATURES_DIR=$feat THREADS=2
# MODELS_FROM=NAME: the models of out/lab/NAME (another EVAL_OPTIONS only)
if [ -n "${MODELS_FROM:-}" ]; then
  mkdir -p "$out/traf"
  for f in "$root/out/lab/$MODELS_FROM"/without-*.model; do ln -sf "$f" "$out/"; done
  for f in "$root/out/lab/$MODELS_FROM"/traf/not-fold-*.model; do ln -sf "$f" "$out/traf/"; done
fi
for s in $sets; do
  m=$out/without-$s.model
  others=$(printf '%s\n' $sets | grep -vx "$s" | paste -sd' ' -)
  [ -s "$m" ] || SETS="$others" scripts/train-default-model "$root/$m" > "$out/train-$s.log" 2>&1
  [ -s "$out/loso-$s.json" ] || nice -n 10 build/pagesift-eval -q -j 2 --json -d "$shared/datasets/$s" \
    -m template-svm --per-site 5 --model "$m" ${EVAL_OPTIONS:+--options "$EVAL_OPTIONS"} \
    > "$out/loso-$s.json" 2> "$out/loso-$s.log" || true
done
mkdir -p "$out/traf"
[ -e "$out/traf/features" ] || ln -s "$feat" "$out/traf/features"
[ -s "$out/traf/summary.json" ] || scripts/eval-traf-folds -j 2 --out "$out/traf" > "$out/traf.txt" 2> "$out/traf.log"
/usr/bin/python3 - "$out" $sets <<'EOF'
import json, sys
out, sets = sys.argv[1], sys.argv[2:]
row, f1s = [], []
for s in sets:
    r = json.load(open("%s/loso-%s.json" % (out, s)))["runs"][0]
    if "snippets" in r:
        sn = r["snippets"]
        f1s.append(sn["f1"]); row.append("%.3f (%.3f/%.3f)" % (sn["f1"], sn["p"], sn["r"]))
    else:
        t = r["token"] if "token" in r else r
        f1s.append(t["f1"]); row.append("%.3f" % t["f1"])
cv = json.load(open("%s/traf/summary.json" % out))["runs"][0]["snippets"]
row.append("%.3f (%.3f/%.3f)" % (cv["f1"], cv["p"], cv["r"]))
row.append("%.4f" % (sum(f1s) / len(f1s)))
print("| %s | %s |" % (out.rsplit("/", 1)[1], " | ".join(row)))
print("columns: " + " ".join(sets) + " traf-CV mean7", file=sys.stderr)
EOF
