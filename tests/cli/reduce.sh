#!/usr/bin/env bash
# tests/cli/reduce.sh — pagesift-train --reduce (issue 33): a stacked bundle
# (two stages made as scripts/train-default-model makes them) reduced to
# half its support vectors per stage is two complete bundles again, read by
# pagesift-classify, with its decisions close to the original's; --reduce's
# arguments are checked.
set -u
command -v pagesift-train >/dev/null || { echo "SKIP: pagesift-train not on PATH"; exit 77; }
command -v pagesift-classify >/dev/null || { echo "SKIP: pagesift-classify not on PATH"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
H="dataset,page_id,url,site,block_id,block_path,tag,inner_len,inner_link_len,inner_link_num,inner_pic_num,outer_len,outer_link_len,outer_link_num,outer_pic_num,R1,R2,R3,R4,R5,label,gold_share,text"
# pages of a body and 8 divs, noisy labels: both stages get many support vectors
awk -v H="$H" 'BEGIN { print H; srand(11);
  for (p = 0; p < 80; p++) {
    printf "syn,p%d,,s%d,b0,html/body,body,50,1,1,1,1,1,1,1,0.1,0.1,0.1,0,0.9,0,0.5,\"t\"\n", p, p%9;
    for (b = 1; b <= 8; b++) {
      u = rand(); v = rand(); y = (u + 0.3 * rand() > 0.6) ? 1 : 0;
      printf "syn,p%d,,s%d,b%d,html/body/div[%d],div,%d,1,1,1,1,1,1,1,%.5f,%.5f,0.1,0,%.5f,%d,0.5,\"t, %d\"\n",
        p, p%9, b, b, 10 + b, u, rand(), v, y, b }}}' > "$t/rows.csv"
pagesift-train -q --c-range 3:3:1 --gamma-range 1:1:1 -k 2 "$t/rows.csv" -o "$t/first.model" >/dev/null \
  || fail "first stage"
pagesift-classify -q --context -m "$t/first.model" -o "$t/ctx.csv" "$t/rows.csv" || fail "context rows"
pagesift-train -q -f R1,R2,R3,R4,R5,c_self,c_parent,c_prev,c_next,c_window --c-range 3:3:1 --gamma-range 1:1:1 \
  -k 2 "$t/ctx.csv" -o "$t/second.model" >/dev/null || fail "second stage"
cat "$t/first.model" "$t/second.model" > "$t/stack.model"
pagesift-train --reduce 0.5 -m "$t/stack.model" "$t/rows.csv" -o "$t/red.model" > "$t/out" 2>&1 \
  || fail "reduce: $(cat "$t/out")"
grep -q '^stage 1: .* support vectors' "$t/out" && grep -q '^stage 2: .* support vectors' "$t/out" \
  || fail "report: $(cat "$t/out")"
[ "$(grep -c '^pagesift-model 2$' "$t/red.model")" -eq 2 ] || fail "not two stages"
[ "$(grep -c '^reduced_from crc32:' "$t/red.model")" -eq 2 ] || fail "no reduced_from keys"
[ "$(grep -c '^reduced_from_file stack.model$' "$t/red.model")" -eq 2 ] || fail "no reduced_from_file keys"
n1=$(grep -m1 '^support_vectors ' "$t/first.model" | cut -d' ' -f2)
r1=$(grep -m1 '^support_vectors ' "$t/red.model" | cut -d' ' -f2)
[ "$r1" -eq $(( (n1 + 1) / 2 )) ] || [ "$r1" -eq $(( n1 / 2 )) ] || fail "first stage: $r1 of $n1"
grep -q "^reduced_from $(grep -m1 '^checksum ' "$t/first.model" | cut -d' ' -f2) $n1\$" "$t/red.model" \
  || fail "reduced_from does not name the first stage"
# the stack's decisions: the reduced one's classes agree on nearly every row
pagesift-classify -q -m "$t/stack.model" -o "$t/a.csv" "$t/rows.csv" || fail "classify original"
pagesift-classify -q -m "$t/red.model" -o "$t/b.csv" "$t/rows.csv" 2>"$t/err" || fail "classify reduced: $(cat "$t/err")"
paste -d, "$t/a.csv" "$t/b.csv" | awk -F, 'NR > 1 { n++; d += ($6 + 0 != $12 + 0) } END {
  printf "%d of %d rows changed class\n", d, n; exit d * 50 > n }' || fail "too many rows changed class"
# arguments
pagesift-train --reduce 2.5 -m "$t/stack.model" "$t/rows.csv" -o "$t/x.model" >/dev/null 2>"$t/err"
[ $? -eq 2 ] && grep -q "reduce.*2.5" "$t/err" || fail "bad share: $(cat "$t/err")"
pagesift-train --reduce 10,x -m "$t/stack.model" "$t/rows.csv" -o "$t/x.model" >/dev/null 2>"$t/err"
[ $? -eq 2 ] || fail "bad counts accepted"
pagesift-train --reduce 0.5 "$t/rows.csv" -o "$t/x.model" >/dev/null 2>"$t/err"
[ $? -eq 2 ] && grep -q -- "-m MODEL" "$t/err" || fail "no -m: $(cat "$t/err")"
pagesift-train --reduce 0.5 -m "$t/stack.model" -o "$t/x.model" >/dev/null 2>&1
[ $? -eq 2 ] || fail "no CSV accepted"
pagesift-train --reduce 100000 -m "$t/stack.model" "$t/rows.csv" -o "$t/x.model" >/dev/null 2>"$t/err"
[ $? -eq 2 ] && grep -q "not fewer" "$t/err" || fail "too many centres: $(cat "$t/err")"
[ ! -e "$t/x.model" ] || fail "a refused reduction wrote a bundle"
pagesift-train --reduce-rows 100 "$t/rows.csv" -o "$t/x.model" >/dev/null 2>"$t/err"
[ $? -eq 2 ] && grep -q "go with --reduce" "$t/err" || fail "--reduce-rows alone: $(cat "$t/err")"
pagesift-train --reduce 0.5 --reduce-refine -3 -m "$t/stack.model" "$t/rows.csv" -o "$t/x.model" >/dev/null 2>&1
[ $? -eq 2 ] || fail "negative --reduce-refine accepted"
pagesift-train --help | grep -q -- "--reduce SIZE" || fail "--help"
echo ok
