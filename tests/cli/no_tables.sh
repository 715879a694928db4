#!/usr/bin/env bash
# --no-tables (issue 31): an article with a data table (a header row): by
# default the table's cells are in the text (pagesift keeps a data table
# whole), with --no-tables they are not, and the article's paragraphs stay;
# in Markdown the table goes too.  And the options the flags add no longer
# overflow a fixed buffer (issue 29): a long --options with --favor and
# --no-tables is taken whole.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/page.html" <<'HTML'
<html><head><title>Rainfall in the valley this spring</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Rainfall in the valley this spring</h1>
<p>The weather service published its figures for the spring on Tuesday. March was the wettest month
in a decade, while April stayed close to the long-term average for the valley and its towns.</p>
<table><thead><tr><th>Month</th><th>Rainfall (mm)</th><th>Average (mm)</th></tr></thead>
<tbody><tr><td>Marchmonth</td><td>131</td><td>88</td></tr><tr><td>Aprilmonth</td><td>74</td><td>71</td></tr>
<tr><td>Maymonth</td><td>59</td><td>80</td></tr></tbody></table>
<p>Farmers said the wet start delayed the sowing by two weeks, but the dry May let them catch up
with most of the work before the first cut of hay at the end of the month.</p>
</article><footer>Copyright the Valley Herald</footer></body></html>
HTML
pagesift -q "$tmp/page.html" > "$tmp/with.txt"
pagesift -q --no-tables "$tmp/page.html" > "$tmp/without.txt"
grep -q "Marchmonth" "$tmp/with.txt" || { echo "FAIL: the table is not in the default output"; cat "$tmp/with.txt"; exit 1; }
grep -q "month" "$tmp/without.txt" && grep -q "Marchmonth\|Aprilmonth\|Maymonth\|Rainfall (mm)" "$tmp/without.txt" \
  && { echo "FAIL: table cells with --no-tables"; cat "$tmp/without.txt"; exit 1; }
grep -q "wettest month in a decade" "$tmp/without.txt" && grep -q "first cut of hay" "$tmp/without.txt" \
  || { echo "FAIL: the article's paragraphs went too"; cat "$tmp/without.txt"; exit 1; }
pagesift -q -f markdown --no-tables "$tmp/page.html" | grep -q "|" && { echo "FAIL: a Markdown table with --no-tables"; exit 1; }
pagesift -q -f markdown "$tmp/page.html" | grep -q "| Marchmonth" || { echo "FAIL: no Markdown table by default"; exit 1; }

# a long --options (300 pairs) with --favor and --no-tables: taken whole
long=$(printf 'fill=1.0,%.0s' $(seq 300))comments=1
pagesift -q --options "$long" --favor recall --no-tables "$tmp/page.html" > "$tmp/long.txt" 2> "$tmp/long.err" \
  || { cat "$tmp/long.err"; echo "FAIL: a long --options with flags"; exit 1; }
grep -q "first cut of hay" "$tmp/long.txt" || { echo "FAIL: output"; exit 1; }
echo "OK"
