#!/usr/bin/env bash
# tests/cli/classify.sh — pagesift-classify: a model trained on a separable
# synthetic CSV classifies its rows (one output row per input row, in order,
# the summary's F1 high), missing columns and models give clear errors.
set -u
command -v pagesift-classify >/dev/null || { echo "SKIP: pagesift-classify not on PATH"; exit 77; }
command -v pagesift-train >/dev/null || { echo "SKIP: pagesift-train not on PATH"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
H="dataset,page_id,url,site,block_id,block_path,tag,inner_len,inner_link_len,inner_link_num,inner_pic_num,outer_len,outer_link_len,outer_link_num,outer_pic_num,R1,R2,R3,R4,R5,label,gold_share,text"
awk -v H="$H" 'BEGIN { print H; srand(5);
  for (p = 0; p < 20; p++) for (b = 0; b < 6; b++) {
    y = (b < 2) ? 1 : 0; u = rand(); v = rand();
    r1 = y ? 0.6 + 0.4*u : 0.3*u; r5 = y ? 0.2*v : 0.6 + 0.4*v;
    printf "syn,p%d,,s%d,b%04d%02d,html/body/div[%d],div,1,1,1,1,1,1,1,1,%.5f,0.1,0.1,0,%.5f,%d,0.5,\"t, %d\"\n",
      p, p%4, p, b, b+1, r1, r5, y, b }}' > "$t/ok.csv"
pagesift-train -q --c-range 1:1:1 --gamma-range 0:0:1 -k 2 "$t/ok.csv" -o "$t/m.model" >/dev/null \
  || fail "training failed"
pagesift-classify -m "$t/m.model" -o "$t/pred.csv" "$t/ok.csv" 2>"$t/err" || fail "classify: $(cat "$t/err")"
[ "$(wc -l < "$t/pred.csv")" -eq 121 ] || fail "expected 120 rows + header"
head -1 "$t/pred.csv" | tr -d '\r' | grep -qx 'dataset,page_id,block_id,label,score,pred' || fail "header"
# row order and ids kept; separable data: every prediction equals the label
awk -F, 'NR > 1 { gsub(/"/, ""); if ($3 != sprintf("b%04d%02d", substr($2, 2), (NR - 2) % 6)) bad++;
  sub(/\r/, "", $6); if ($4 != $6) wrong++ } END { exit (bad + wrong) > 0 }' "$t/pred.csv" \
  || fail "rows out of order or misclassified"
grep -q 'F1 1.0000' "$t/err" || fail "summary: $(cat "$t/err")"
# errors
sed 's/,R5,/,Rx,/' "$t/ok.csv" > "$t/nor5.csv"
pagesift-classify -m "$t/m.model" "$t/nor5.csv" >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 1 ] && grep -q "nor5.csv.*R5" "$t/err" || fail "missing column: exit $rc, $(cat "$t/err")"
pagesift-classify -m "$t/none.model" "$t/ok.csv" >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && grep -q "none.model" "$t/err" || fail "missing model: exit $rc, $(cat "$t/err")"
pagesift-classify "$t/ok.csv" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no model: not a usage error"
echo ok
