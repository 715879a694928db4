#!/usr/bin/env bash
# scripts/research/features-identical.sh — are two builds' block CSVs the
# same bytes?  For a refactor that must not change outputs (issue 15): runs
# OLD/pagesift-features and NEW/pagesift-features with the extended features
# and the given block tags on every set of DATA, without and with
# --learn-templates, and compares each pair with cmp.  Prints one line per
# set and mode; exit 1 when any pair differs.
#
#   scripts/research/features-identical.sh OLD_BUILD NEW_BUILD [DATA]
#   (DATA: ../shared/datasets; TAGS=... overrides the block tags; OUT=DIR
#    keeps the CSVs, else a temporary folder is removed)
#
# Build OLD from a git worktree of the commit before the change
# (git worktree add /tmp/wt-old COMMIT; cmake -S /tmp/wt-old -B /tmp/wt-old/b).
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,14p "$0"; exit 2; }
old=$1 new=$2
data=${3:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/datasets}
tags=${TAGS:-body,section,div,p,td,table,article,main,aside,nav,header,footer,figure,ul,ol,form,blockquote,h1,h2,h3,h4,h5,h6}
out=${OUT:-$(mktemp -d)}
[ -n "${OUT:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"
bad=0
for set in "$data"/*/; do
  set=${set%/}; [ -f "$set/index.tsv" ] || continue
  name=$(basename "$set")
  for mode in plain learn; do
    flags=(-q -x -b "$tags"); [ $mode = learn ] && flags+=(-L)
    for side in old new; do
      bin=$old; [ $side = new ] && bin=$new
      "$bin/pagesift-features" "${flags[@]}" "$set" -o "$out/$name.$mode.$side.csv" 2> "$out/$name.$mode.$side.log" || true
    done
    if cmp -s "$out/$name.$mode.old.csv" "$out/$name.$mode.new.csv" &&
       cmp -s "$out/$name.$mode.old.log" "$out/$name.$mode.new.log"; then
      echo "$name $mode: identical ($(wc -l < "$out/$name.$mode.new.csv") lines, $(md5sum < "$out/$name.$mode.new.csv" | cut -c1-12))"
    else
      echo "$name $mode: DIFFERENT"; bad=1
    fi
  done
done
exit $bad
