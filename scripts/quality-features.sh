#!/usr/bin/env bash
# scripts/quality-features.sh — block CSVs for the recipe search of issue 9:
# one CSV per data set (extended features, whole block text in the text
# column so scripts/quality-score.py can rebuild each page's output).
#
# Usage: scripts/quality-features.sh OUTDIR [TAGS [learn]]
#   TAGS   block tags (pagesift-features -b; default: the tool's default)
#   learn  learn templates from each set's own pages first (-L), as a batch
#          run of the default pipeline does
# Environment: PS_SHARED_DIR (default ../shared), PS_BINARY_DIR (build/),
# SETS (default: all six), THRESHOLD (label threshold, default 0.5),
# FOLD ("fold K/N" or "not-fold K/N": only those pages of every set, by the
# site folds of docs/INPUTS.md; the CSV is then OUTDIR/<set>.<fold>.csv with
# the fold's space and slash as '-', e.g. trafilatura-eval.not-fold-2-5.csv).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${PS_SHARED_DIR:-$root/../shared}
bin=${PS_BINARY_DIR:-$root/build}
out=${1:?usage: quality-features.sh OUTDIR [TAGS [learn]]}
tags=${2:-}
learn=${3:-}
sets=${SETS:-dragnet l3s-gn1 cleaneval cleanportaleval netease readability}
mkdir -p "$out"
opt=(-q -x -n 1000000 -t "${THRESHOLD:-0.5}")
[ -n "$tags" ] && opt+=(-b "$tags")
[ "$learn" = learn ] && opt+=(-L)
suffix=""
if [ -n "${FOLD:-}" ]; then
  case "$FOLD" in
    "fold "*|"not-fold "*) ;;
    *) echo "quality-features.sh: FOLD must be 'fold K/N' or 'not-fold K/N', not '$FOLD'" >&2; exit 2 ;;
  esac
  opt+=("--${FOLD%% *}" "${FOLD#* }")
  suffix=".$(printf '%s' "$FOLD" | tr ' /' '--')"
fi
nice=()
[ "$(nice)" -eq 0 ] && nice=(nice -n 10)
for s in $sets; do
  "${nice[@]}" "$bin/pagesift-features" "${opt[@]}" -o "$out/$s$suffix.csv" "$shared/datasets/$s"
done
echo "tags=${tags:-default} learn=${learn:-no} threshold=${THRESHOLD:-0.5}${FOLD:+ fold=$FOLD}" > "$out/VARIANT"
