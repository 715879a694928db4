#!/usr/bin/env bash
# tests/cli/train_eval_marks.sh — pagesift-train warns when the chosen grid
# point lies on the edge of the grid (and not when it does not), and
# pagesift-eval --train-protocol marks training-set figures in its table
# (the shipped model saw every set) with a footnote, not only in --json.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

H="dataset,page_id,url,site,block_id,block_path,tag,inner_len,inner_link_len,inner_link_num,inner_pic_num,outer_len,outer_link_len,outer_link_num,outer_pic_num,R1,R2,R3,R4,R5,label,gold_share,text"
awk -v H="$H" 'BEGIN { print H; srand(3);
  for (p = 0; p < 30; p++) for (b = 0; b < 8; b++) {
    y = (b < 2) ? 1 : 0; u = rand(); v = rand();
    r1 = y ? 0.3 + 0.6*u : 0.45*u; r5 = y ? 0.35*v : 0.2 + 0.8*v;
    printf "syn,p%d,http://s%d/,s%d,%d,html/body/div[%d],div,1,1,1,1,1,1,1,1,%.5f,%.5f,%.5f,0,%.5f,%d,0.5,\"a, b\"\n",
      p, p%4, p%4, b, b+1, r1, u*0.2, v*0.3, r5, y }}' > "$t/ok.csv"

# two values of C: whichever is chosen is on the edge; gamma fixed: no warning for it
pagesift-train -q -j 1 --c-range 0:2:2 --gamma-range 0:0:1 "$t/ok.csv" -o "$t/m1" > "$t/out" 2> "$t/err" ||
    fail "pagesift-train: $(cat "$t/err")"
grep -Eq "warning: the chosen log2 C=(0|2) is the (smallest|largest) of the grid: the best may lie beyond it; widen --c-range" "$t/err" ||
    fail "no edge warning for C: $(cat "$t/err")"
grep -q "gamma-range" "$t/err" && fail "an edge warning for a one-value gamma axis"
# one point: no axis to widen, no warning
pagesift-train -q -j 1 --c-range 1:1:1 --gamma-range 0:0:1 "$t/ok.csv" -o "$t/m2" > "$t/out" 2> "$t/err" ||
    fail "pagesift-train one point: $(cat "$t/err")"
grep -q "warning: the chosen" "$t/err" && fail "an edge warning for a one-point grid: $(cat "$t/err")"
# three values each: the chosen point is reported on an edge only when it is
pagesift-train -q -j 1 --c-range -2:2:2 --gamma-range -2:2:2 "$t/ok.csv" -o "$t/m3" > "$t/out" 2> "$t/err" ||
    fail "pagesift-train 3x3: $(cat "$t/err")"
read -r lc lg < <(sed -n 's/^chosen: log2 C=\([-0-9.]*\), log2 gamma=\([-0-9.]*\) .*/\1 \2/p' "$t/out")
[[ -n $lc ]] || fail "no chosen line: $(cat "$t/out")"
if [[ $lc == -2 || $lc == 2 ]]; then grep -q "log2 C=$lc is the" "$t/err" || fail "C=$lc on the edge, no warning"
else grep -q "widen --c-range" "$t/err" && fail "C=$lc inside the grid, yet a warning"; fi
if [[ $lg == -2 || $lg == 2 ]]; then grep -q "log2 gamma=$lg is the" "$t/err" || fail "gamma=$lg on the edge, no warning"
else grep -q "widen --gamma-range" "$t/err" && fail "gamma=$lg inside the grid, yet a warning"; fi

# --- pagesift-eval marks training-set figures in the table ----------------
set=$src/datasets/sample
pagesift-eval -q --dataset "$set" --method svm --train-protocol > "$t/eval" 2> "$t/err" ||
    fail "pagesift-eval: $(cat "$t/err")"
grep -Eq '^sample +svm \* ' "$t/eval" || fail "the shipped model's figure is not marked: $(cat "$t/eval")"
grep -q '^\* TRAINING-SET figure' "$t/eval" || fail "no footnote for the mark"
pagesift-eval -q --dataset "$set" --method all --method svm > "$t/eval2" 2> "$t/err" ||
    fail "pagesift-eval without --train-protocol: $(cat "$t/err")"
grep -q ' \* ' "$t/eval2" && fail "a mark without --train-protocol"
# a model that records other training sets: a held-out figure, not marked
pagesift-eval -q --dataset "$set" --method svm --model "$t/m2" --train-protocol > "$t/eval3" 2> "$t/err"
grep -q 'TRAINING-SET' "$t/eval3" && fail "a model not trained on the set is marked: $(cat "$t/eval3")"
echo "train_eval_marks: ok"
