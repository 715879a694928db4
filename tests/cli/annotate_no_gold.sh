#!/usr/bin/env bash
# Pages to label come as a data set without gold (issue 31): index.tsv and
# html/ only.  pagesift-annotate makes its workspace of every page (it
# failed every page, looking for gold/<id>.txt), pagesift-features
# --for-annotation writes their rows and pagesift extracts them; a set that
# has a gold/ folder still fails a page whose gold file is missing
# (pagesift-features, pagesift-eval), as a gold set must.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/set/html"
printf 'id\turl\n' > "$tmp/set/index.tsv"
for f in "$src"/datasets/sample/html/cleanportaleval-bbc.co.uk_news_0[12].html; do
  id=$(basename "$f" .html)
  cp "$f" "$tmp/set/html/"
  printf '%s\thttp://www.bbc.co.uk/news/%s\n' "$id" "$id" >> "$tmp/set/index.tsv"
done
pagesift-annotate -o "$tmp/ws" "$tmp/set" > "$tmp/ann.out" 2>&1 || { cat "$tmp/ann.out"; echo "FAIL: annotate"; exit 1; }
grep -q "2 pages" "$tmp/ann.out" && ! grep -q "failed" "$tmp/ann.out" || { cat "$tmp/ann.out"; echo "FAIL: annotate pages"; exit 1; }
[ "$(ls "$tmp/ws/pages" | wc -l)" -ge 2 ] || { echo "FAIL: workspace pages"; exit 1; }
pagesift-features -x --for-annotation -o "$tmp/f.csv" "$tmp/set" 2> "$tmp/f.err" || { cat "$tmp/f.err"; echo "FAIL: features"; exit 1; }
[ "$(cut -d, -f2 "$tmp/f.csv" | sort -u | grep -c news_0)" -eq 2 ] || { echo "FAIL: rows of both pages"; exit 1; }
pagesift -q -f jsonl "$tmp/set" | grep -c '"status":"ok"' | grep -qx 2 || { echo "FAIL: extraction"; exit 1; }

# with a gold/ folder, a missing gold file is still that page's failure
mkdir "$tmp/set/gold"
echo "Some gold text." > "$tmp/set/gold/cleanportaleval-bbc.co.uk_news_01.txt"
rc=0
pagesift-features -x -o "$tmp/g.csv" "$tmp/set" > /dev/null 2> "$tmp/g.err" || rc=$?
grep -q "news_02.txt" "$tmp/g.err" || { cat "$tmp/g.err"; echo "FAIL: the missing gold file not named (exit $rc)"; exit 1; }
echo "OK"
