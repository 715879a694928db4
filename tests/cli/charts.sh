#!/usr/bin/env bash
# tests/cli/charts.sh — the SVG charts read on their own: pagesift-eval
# --chart has the F1 value written on every bar, precision and recall bars
# beside each F1 bar, a distinct colour per method (also with more methods
# than the base palette) and its legend inside the picture's width; the same
# from --merge-json; the heat map of pagesift-train --grid-svg states the
# range of its colour scale (min, max) and the chosen point.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
py=/usr/bin/python3
[[ -x $py ]] || { echo "SKIP: /usr/bin/python3 missing"; exit 77; }
set_dir=$src/datasets/sample

pagesift-eval -q --dataset "$set_dir" --method all --method punct-lines --method svm \
    --chart "$t/c.svg" > "$t/table" 2> "$t/err" || fail "pagesift-eval: $(cat "$t/err")"
check_chart() { # svg, expected number of methods
    "$py" - "$1" "$2" "$t/table" <<'PY' || exit 1
import sys, re, xml.etree.ElementTree as ET
path, want = sys.argv[1], int(sys.argv[2])
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(path).getroot()
W = float(root.get("width"))
def fail(msg):
    print("FAIL: " + path + ": " + msg, file=sys.stderr); sys.exit(1)
titles = [r.find("s:title", ns).text for r in root.iter("{http://www.w3.org/2000/svg}rect")
          if r.find("s:title", ns) is not None]
f1 = [x for x in titles if ": F1 " in x]
p = [x for x in titles if ": P " in x]
r = [x for x in titles if ": R " in x]
if len(f1) != want: fail("%d F1 bars, want %d" % (len(f1), want))
if len(p) != want or len(r) != want: fail("P/R bars: %d/%d, want %d each" % (len(p), len(r), want))
vals = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("data-value") == "f1"]
if len(vals) != want: fail("%d value labels, want %d" % (len(vals), want))
# every F1 bar's value is written
for bar in f1:
    v = bar.rsplit(" ", 1)[1]
    if not any(t.text == v for t in vals): fail("no value label %s" % v)
# legend: distinct colours, inside the width
legend = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("data-legend")]
if len(legend) != want: fail("%d legend entries, want %d" % (len(legend), want))
fills = {}
for rect in root.iter("{http://www.w3.org/2000/svg}rect"):
    tt = rect.find("s:title", ns)
    if tt is not None and ": F1 " in tt.text:
        label = tt.text.split(" / ", 1)[1].rsplit(": F1", 1)[0]
        fills.setdefault(label, set()).add(rect.get("fill"))
if any(len(v) != 1 for v in fills.values()): fail("a method with several colours")
if len({next(iter(v)) for v in fills.values()}) != len(fills): fail("two methods share a colour")
for t in legend:
    x = float(t.get("x")); w = 7.0 * len(t.text)
    if x + w > W: fail("legend '%s' ends at %.0f, beyond the width %.0f" % (t.text, x + w, W))
PY
}
check_chart "$t/c.svg" 3

# many methods (labels are method names + tags): colours stay distinct, the legend wraps inside
pagesift-eval -q --dataset "$set_dir" --method all --json > "$t/a.json" 2>/dev/null || fail "eval --json"
"$py" - "$t/a.json" "$t/many.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
runs = []
for i in range(24):
    r = dict(run); r["label"] = "method-with-a-long-name-%02d" % i
    r["token"] = dict(run["token"]); r["token"]["f1"] = i / 24.0
    runs.append(r)
d["runs"] = runs
json.dump(d, open(sys.argv[2], "w"))
PY
pagesift-eval --merge-json "$t/many.json" --chart "$t/many.svg" > /dev/null 2> "$t/err" ||
    fail "merge-json chart: $(cat "$t/err")"
check_chart "$t/many.svg" 24

# --- the heat map's colour scale says its range ----------------------------
H="dataset,page_id,url,site,block_id,block_path,tag,inner_len,inner_link_len,inner_link_num,inner_pic_num,outer_len,outer_link_len,outer_link_num,outer_pic_num,R1,R2,R3,R4,R5,label,gold_share,text"
awk -v H="$H" 'BEGIN { print H; srand(3);
  for (p = 0; p < 30; p++) for (b = 0; b < 8; b++) {
    y = (b < 2) ? 1 : 0; u = rand(); v = rand();
    r1 = y ? 0.2 + 0.6*u : 0.55*u; r5 = y ? 0.6*v : 0.3 + 0.7*v;
    printf "syn,p%d,http://s%d/,s%d,%d,html/body/div[%d],div,1,1,1,1,1,1,1,1,%.5f,%.5f,%.5f,0,%.5f,%d,0.5,\"a, b\"\n",
      p, p%4, p%4, b, b+1, r1, u*0.2, v*0.3, r5, y }}' > "$t/ok.csv"
pagesift-train -q -j 1 --c-range -2:2:2 --gamma-range -2:0:2 "$t/ok.csv" -o "$t/m" \
    --grid-csv "$t/g.csv" --grid-svg "$t/g.svg" > /dev/null 2> "$t/err" || fail "pagesift-train: $(cat "$t/err")"
col=$(head -1 "$t/g.csv" | tr ',' '\n' | grep -nx 'f1' | cut -d: -f1)
[[ -n $col ]] || fail "no f1 column in the grid CSV: $(head -1 "$t/g.csv")"
lo=$(awk -F, -v c="$col" 'NR > 1 && $c != "" { if (min == "" || $c + 0 < min) min = $c + 0 } END { printf "%.3f", min }' "$t/g.csv")
hi=$(awk -F, -v c="$col" 'NR > 1 && $c != "" { if ($c + 0 > max) max = $c + 0 } END { printf "%.3f", max }' "$t/g.csv")
grep -q "data-scale=\"max\">$hi max<" "$t/g.svg" || fail "the scale's max is not $hi: $(grep -o 'data-scale[^<]*' "$t/g.svg")"
grep -q "data-scale=\"min\">$lo min<" "$t/g.svg" || fail "the scale's min is not $lo"
grep -q "data-scale=\"range\">colour: F1 from $lo to $hi<" "$t/g.svg" || fail "the caption does not give the range"
echo "charts: ok"
