#!/usr/bin/env bash
# scripts/research/eval-identical.sh — do two builds' pagesift-eval runs give
# the same outputs and scores?  For a change that must not move a figure
# (issue 15): runs OLD/pagesift-eval and NEW/pagesift-eval with the same
# arguments on every set of DATA, writing the outputs (--write), and compares
# the output texts (diff -r) and the JSON figures without the timings.  One
# line per set; exit 1 when any set differs.
#
#   scripts/research/eval-identical.sh OLD_BUILD NEW_BUILD [DATA] [-- EVAL ARGS]
#   (DATA: ../shared/datasets; EVAL ARGS default: -m template-svm --per-site 5;
#    OUT=DIR keeps the outputs, else a temporary folder is removed)
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,12p "$0"; exit 2; }
old=$1 new=$2; shift 2
data=$(cd "$(dirname "$0")/../.." && pwd)/../shared/datasets
if [ $# -gt 0 ] && [ "$1" != -- ]; then data=$1; shift; fi
[ "${1:-}" = -- ] && shift
args=("$@"); [ ${#args[@]} -gt 0 ] || args=(-m template-svm --per-site 5)
out=${OUT:-$(mktemp -d)}
[ -n "${OUT:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"
bad=0
for set in "$data"/*/; do
  set=${set%/}; [ -f "$set/index.tsv" ] || continue
  name=$(basename "$set")
  for side in old new; do
    bin=$old; [ $side = new ] && bin=$new
    "$bin/pagesift-eval" -q -j 1 -d "$set" "${args[@]}" --json --write "$out/$side" > "$out/$name.$side.json"
  done
  figs=$(/usr/bin/python3 - "$out/$name.old.json" "$out/$name.new.json" <<'PY'
import json, re, sys
def figures(path):
    runs = json.load(open(path))["runs"]
    for r in runs:
        for k in ("cpu_seconds", "pages_per_s", "wall_seconds"):
            r.pop(k, None)
        r["protocol"] = re.sub(r", [0-9.]+ s\)", ")", r.get("protocol", ""))
    return runs
a, b = figures(sys.argv[1]), figures(sys.argv[2])
f1 = ", ".join("%s %s F1 %.5f" % (r["label"], "snippet" if "snippets" in r else "token",
                                   (r.get("snippets") or r.get("token") or {}).get("f1", float("nan")))
               for r in b)
print(("same " if a == b else "DIFFERENT ") + f1)
PY
)
  if [[ $figs == same* ]] && diff -rq "$out/old/$name" "$out/new/$name" > /dev/null; then
    echo "$name: identical outputs and figures (${figs#same })"
  else
    echo "$name: DIFFERENT ($figs)"; bad=1
  fi
done
exit $bad
