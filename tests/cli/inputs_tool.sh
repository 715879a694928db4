#!/usr/bin/env bash
# pagesift-inputs: listing of a data set folder, exit codes (1 when an input
# failed, 2 usage, 3 unreadable list file), a page on stdin, --help/--version.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
fail() { echo "FAIL: $*"; exit 1; }
n=$(($(wc -l < "$src/datasets/sample/index.tsv") - 1))

out=$(pagesift-inputs -q "$src/datasets/sample") || fail "exit $? on the sample"
[ "$(grep -c '^ok' <<< "$out")" -eq "$n" ] || fail "not $n pages from the sample"
first_id=$(awk -F'\t' 'NR == 2 { print $1 }' "$src/datasets/sample/index.tsv")
[ "$(head -1 <<< "$out" | cut -f2)" = "$first_id" ] || fail "first id is not the index's first"

pagesift-inputs -q "$src/datasets/sample/html/netease-3.html" /nonexistent.html > /dev/null
[ $? -eq 1 ] || fail "a missing input must exit 1"
err=$(pagesift-inputs "/nonexistent.html" 2>&1 >/dev/null)
grep -q "/nonexistent.html" <<< "$err" || fail "the message does not name the missing file: $err"
pagesift-inputs --no-such-option > /dev/null 2>&1
[ $? -eq 2 ] || fail "a bad option must exit 2"
pagesift-inputs > /dev/null 2>&1
[ $? -eq 2 ] || fail "no input must exit 2"
pagesift-inputs -l /nonexistent.list > /dev/null 2>&1
[ $? -eq 3 ] || fail "an unreadable list file must exit 3"

line=$(pagesift-inputs -q - < "$src/datasets/sample/html/netease-3.html") || fail "stdin page"
[ "$(cut -f1,2,3 <<< "$line")" = "ok	stdin	$(stat -c %s "$src/datasets/sample/html/netease-3.html")" ] ||
    fail "stdin page listed as: $line"
pagesift-inputs --help | grep -q "Usage: pagesift-inputs" || fail "--help"
pagesift-inputs --version | grep -q "^pagesift-inputs [0-9]" || fail "--version"
echo "ok"
