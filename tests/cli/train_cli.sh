#!/usr/bin/env bash
# tests/cli/train_cli.sh — pagesift-train from the command line: exit codes
# and messages for bad input, a small grid end to end (stdout table, grid
# CSV and SVG, bundle), byte-identical models for the same seed.
set -u
command -v pagesift-train >/dev/null || { echo "SKIP: pagesift-train not on PATH"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

H="dataset,page_id,url,site,block_id,block_path,tag,inner_len,inner_link_len,inner_link_num,inner_pic_num,outer_len,outer_link_len,outer_link_num,outer_pic_num,R1,R2,R3,R4,R5,label,gold_share,text"
# 30 pages x 8 blocks: content = high R1, low R5 (with some overlap)
awk -v H="$H" 'BEGIN { print H; srand(3);
  for (p = 0; p < 30; p++) for (b = 0; b < 8; b++) {
    y = (b < 2) ? 1 : 0; u = rand(); v = rand();
    r1 = y ? 0.3 + 0.6*u : 0.45*u; r5 = y ? 0.35*v : 0.2 + 0.8*v;
    printf "syn,p%d,http://s%d/,s%d,%d,html/body/div[%d],div,1,1,1,1,1,1,1,1,%.5f,%.5f,%.5f,0,%.5f,%d,0.5,\"a, b\"\n",
      p, p%4, p%4, b, b+1, r1, u*0.2, v*0.3, r5, y }}' > "$t/ok.csv"

expect() { # expect CODE NEEDLE ARGS...
  local code=$1 needle=$2; shift 2
  "$@" >"$t/out" 2>"$t/err"; local rc=$?
  [ $rc -eq "$code" ] || fail "$* -> exit $rc, expected $code: $(cat "$t/err")"
  grep -qF -- "$needle" "$t/err" || fail "$*: stderr lacks '$needle': $(cat "$t/err")"
}

# usage errors: exit 2
expect 2 "no output model" pagesift-train "$t/ok.csv"
expect 2 "--balance" pagesift-train --balance half "$t/ok.csv" -o "$t/m"
expect 2 "--c-range" pagesift-train --c-range 1:2 "$t/ok.csv" -o "$t/m"
# bad input: exit 1, file and line named
: > "$t/empty.csv"
expect 1 "empty.csv:1: empty file" pagesift-train "$t/empty.csv" -o "$t/m"
echo "$H" > "$t/none.csv"
expect 1 "none.csv: no labelled rows" pagesift-train "$t/none.csv" -o "$t/m"
awk -F, 'NR == 1 || $21 == 0' "$t/ok.csv" > "$t/one.csv"
expect 1 "only one class" pagesift-train "$t/one.csv" -o "$t/m"
awk 'NR == 5 { sub(/,0\.[0-9]+,/, ",NaN,") } { print }' "$t/ok.csv" > "$t/nan.csv"
expect 1 "nan.csv:5: column R1: 'NaN' is not a finite number" pagesift-train "$t/nan.csv" -o "$t/m"
expect 1 "no feature column 'x_nope'" pagesift-train -f R1,x_nope "$t/ok.csv" -o "$t/m"
sed 's/,label,/,lab,/' "$t/ok.csv" > "$t/nolabel.csv"
expect 1 "nolabel.csv:1: no 'label' column" pagesift-train "$t/nolabel.csv" -o "$t/m"
[ -e "$t/m" ] && fail "a model was written despite errors"

# end to end on a small grid, twice with the same seed
args=(--c-range -1:5:2 --gamma-range -3:3:2 -k 5 -s 7 -q)
pagesift-train "${args[@]}" "$t/ok.csv" -o "$t/a.model" --grid-csv "$t/g.csv" --grid-svg "$t/g.svg" >"$t/out1" \
  || fail "training failed: $(cat "$t/out1")"
pagesift-train "${args[@]}" "$t/ok.csv" -o "$t/b.model" >"$t/out2" || fail "second training failed"
cmp -s "$t/a.model" "$t/b.model" || fail "same seed, different models"
[ "$(grep -c '^ *-\?[0-9]' "$t/out1")" -eq 16 ] || fail "expected 16 grid lines: $(cat "$t/out1")"
grep -q '^chosen: .*CV precision .*recall .*F1' "$t/out1" || fail "no chosen line"
[ "$(wc -l < "$t/g.csv")" -eq 17 ] || fail "grid CSV should have 16 rows + header"
grep -q '<svg' "$t/g.svg" && grep -q 'log2 gamma' "$t/g.svg" || fail "SVG lacks axes"
head -1 "$t/a.model" | grep -qx 'pagesift-model 2' || fail "bundle header"
grep -q '^created ' "$t/a.model" && fail "date written without --stamp"
tail -1 "$t/a.model" | grep -qx 'end pagesift-model' || fail "bundle end line"
# --group-by site: 4 sites, so 4 folds
pagesift-train "${args[@]}" -g site "$t/ok.csv" -o "$t/s.model" >"$t/out3" || fail "site grouping failed"
grep -q '^cv_folds 4$' "$t/s.model" || fail "site grouping should use 4 folds (4 sites)"
grep -q '^cv_group_by site$' "$t/s.model" || fail "grouping not recorded"
# an unwritable output: exit 3
expect 3 "" pagesift-train "${args[@]}" "$t/ok.csv" -o /nonexistent-dir/x.model
echo "ok"
