#!/usr/bin/env bash
# pagesift-bench-methods: a row per method on the sample data set with sane
# scores, per-page TSV and output texts, exit codes (2 usage, 3 bad method
# options, 1 unreadable data set), --help/--version.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$(($(wc -l < "$src/datasets/sample/index.tsv") - 1))

out=$(pagesift-bench-methods -q -m punct-lines -m blockstat -p "$tmp/pp.tsv" -O "$tmp" "$src/datasets/sample") ||
    fail "exit $? on the sample"
for m in punct-lines blockstat; do
    row=$(awk -v m=$m '$2 == m' <<< "$out")
    [ -n "$row" ] || fail "no row for $m: $out"
    [ "$(awk '{print $3}' <<< "$row")" -eq "$n" ] || fail "$m: not $n pages scored: $row"
    [ "$(awk '{print $4}' <<< "$row")" -eq 0 ] || fail "$m: failures: $row"
    awk '{ exit !($9 > 0.3 && $9 <= 1) }' <<< "$row" || fail "$m: implausible F1: $row"
    [ "$(ls "$tmp" | grep -c "^sample\.$m\.")" -eq "$n" ] || fail "$m: not $n output texts"
done
[ "$(wc -l < "$tmp/pp.tsv")" -eq $((2 * n + 1)) ] || fail "per-page TSV rows"

pagesift-bench-methods -q -m punct-lines -o p=7 "$src/datasets/sample" > /dev/null 2> "$tmp/err"
[ $? -eq 3 ] || fail "bad method options must exit 3"
grep -q "p=7" "$tmp/err" || fail "the message does not name the option: $(cat "$tmp/err")"
pagesift-bench-methods -m no-such-method "$src/datasets/sample" > /dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown method must exit 2"
pagesift-bench-methods -n zero "$src/datasets/sample" > /dev/null 2>&1
[ $? -eq 2 ] || fail "a bad --limit must exit 2"
pagesift-bench-methods > /dev/null 2>&1
[ $? -eq 2 ] || fail "no data set must exit 2"
pagesift-bench-methods -q /nonexistent-set > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] || fail "a missing data set must exit 1"
grep -q "/nonexistent-set" "$tmp/err" || fail "the message does not name the data set"
pagesift-bench-methods --help | grep -q "Usage: pagesift-bench-methods" || fail "--help"
pagesift-bench-methods --version | grep -q "^pagesift-bench-methods [0-9]" || fail "--version"
echo "ok"
