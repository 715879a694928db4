#!/usr/bin/env bash
# tests/cli/templates_concurrent.sh — two `pagesift-template build --update`
# on one library at once: both updates are kept (the folder is locked from
# reading to writing, DIR/.lock).  Before: both exited 0 and one update was
# lost.  The lock is first held by flock(1) so that both builds are waiting
# at the same time, then released.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v flock > /dev/null || { echo "SKIP: flock(1) not installed"; exit 0; }
page=$src/datasets/sample/html/cleanportaleval-bbc.co.uk_news_01.html
printf '%s\thttp://bbc.co.uk/news/base\n' "$page" > "$tmp/list0"
pagesift-template build -q -o "$tmp/lib" --list "$tmp/list0" || fail "first build"
grep -q $'^pages\t1$' "$tmp/lib/bbc.co.uk.tpl" || fail "first build: want 1 page"
for k in 1 2 3 4; do printf '%s\thttp://bbc.co.uk/news/a%d\n' "$page" $k; done > "$tmp/listA"
for k in 1 2 3 4 5 6; do printf '%s\thttp://bbc.co.uk/news/b%d\n' "$page" $k; done > "$tmp/listB"
flock "$tmp/lib/.lock" sleep 3 &
holder=$!
until ! flock -n "$tmp/lib/.lock" true; do sleep 0.1; done # held from here
pagesift-template build --update -o "$tmp/lib" --list "$tmp/listA" 2> "$tmp/errA" & a=$!
pagesift-template build --update -o "$tmp/lib" --list "$tmp/listB" 2> "$tmp/errB" & b=$!
sleep 1
grep -q $'^pages\t1$' "$tmp/lib/bbc.co.uk.tpl" || fail "a build wrote while the library was locked"
wait $holder
wait $a || fail "build A: exit $? ($(cat "$tmp/errA"))"
wait $b || fail "build B: exit $? ($(cat "$tmp/errB"))"
grep -q "waited" "$tmp/errA" "$tmp/errB" || fail "no build said it waited"
grep -q $'^pages\t11$' "$tmp/lib/bbc.co.uk.tpl" ||
    fail "both updates not kept: $(grep $'^pages\t' "$tmp/lib/bbc.co.uk.tpl") (want 1 + 4 + 6 = 11)"
echo ok
