#!/usr/bin/env bash
# scripts/research/quality-focus-sweep.sh — token F1 of template-svm (per-site 10)
# with the leave-one-set-out models of scripts/research/quality-protocol.sh for
# several focus shares (headline on), one setting for all sets.
# Usage: scripts/research/quality-focus-sweep.sh WORKDIR "0.6 0.75 0.95"
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${PS_SHARED_DIR:-$root/../shared}
w=${1:?}; shares=${2:-"0.6 0.75 0.95"}
for f in $shares; do
  line="focus=$f"
  for t in dragnet l3s-gn1 cleaneval cleanportaleval netease; do
    r=$(nice -n 10 "$root/build/pagesift-eval" -q -j 2 --json -d "$shared/datasets/$t" -m template-svm \
        --per-site 10 --model "$w/extended-without-$t.model" --options "focus=$f,headline=1" |
        python3 -c 'import json,sys; t=json.load(sys.stdin)["runs"][0]["token"]; print("%.3f (%.3f/%.3f)" % (t["f1"], t["p"], t["r"]))')
    line="$line | $t $r"
  done
  echo "$line"
done
