#!/usr/bin/env bash
# tests/cli/templates.sh — pagesift-template build / show / match / --update,
# skipped and damaged inputs, exit codes, on the repository's sample data set.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# build from a data set folder: one library per site; the page without URL
# or site is skipped with a message and the exit status says so
pagesift-template build -q -o "$tmp/lib" "$src/datasets/sample" 2> "$tmp/err"
rc=$?
[[ $rc == 1 ]] || fail "build with a page without site: exit $rc, want 1"
grep -q "dragnet-R421.html: no site" "$tmp/err" || fail "no message for the page without site: $(cat "$tmp/err")"
[[ -f $tmp/lib/bbc.co.uk.tpl && -f $tmp/lib/163.com.tpl ]] || fail "library files missing: $(ls "$tmp/lib")"
head -1 "$tmp/lib/bbc.co.uk.tpl" | grep -q $'^pagesift-templates\t1$' || fail "header line"
grep -q $'^pages\t10$' "$tmp/lib/bbc.co.uk.tpl" || fail "bbc.co.uk: 10 pages"
tail -1 "$tmp/lib/bbc.co.uk.tpl" | grep -q $'^end\t' || fail "end line"
n=$(grep -c $'^e\t' "$tmp/lib/bbc.co.uk.tpl")
(( n > 20 )) || fail "bbc.co.uk: only $n entries"
# a site of 1 page: a library without entries, not an error
grep -q $'^entries\t0$' "$tmp/lib/www.berryreview.com.tpl" || fail "one-page site should have no entries"

# the same pages from a WARC file give the same library (pages without a URL
# have no site there: skipped and counted)
if command -v python3 > /dev/null; then
  python3 "$src/scripts/make-warc" -o "$tmp/sample.warc.gz" "$src/datasets/sample" 2> /dev/null || fail "make-warc"
  pagesift-template build -q -o "$tmp/libw" "$tmp/sample.warc.gz" 2> "$tmp/err"
  [[ $? == 1 ]] || fail "WARC build: want exit 1 (pages without URL)"
  diff <(grep $'^e\t' "$tmp/lib/bbc.co.uk.tpl") <(grep $'^e\t' "$tmp/libw/bbc.co.uk.tpl") > /dev/null ||
    fail "bbc.co.uk library from the WARC differs from the one from the folder"
fi

# show: a library and a folder
pagesift-template show "$tmp/lib/bbc.co.uk.tpl" > "$tmp/show" || fail "show"
grep -q "site bbc.co.uk: 10 pages" "$tmp/show" || fail "show header: $(head -1 "$tmp/show")"
pagesift-template show "$tmp/lib" | grep -q "^163.com " || fail "show folder"

# match: a bbc page loses its navigation, keeps its article
page=$src/datasets/sample/html/cleanportaleval-bbc.co.uk_news_01.html
pagesift-template match --url http://bbc.co.uk/news/x "$tmp/lib" "$page" > "$tmp/match" 2> "$tmp/merr" || fail "match"
grep -q $'\tremove\t' "$tmp/match" || fail "match removes nothing"
grep -q "leaves removed" "$tmp/merr" || fail "match summary"
pagesift-template match --rules paper "$tmp/lib/bbc.co.uk.tpl" "$page" > /dev/null 2>&1 || fail "match --rules paper"

# --update adds pages to an existing library
printf '%s\thttp://bbc.co.uk/news/again\n' "$page" > "$tmp/list"
pagesift-template build -q --update -o "$tmp/lib" --list "$tmp/list" || fail "build --update"
grep -q $'^pages\t11$' "$tmp/lib/bbc.co.uk.tpl" || fail "--update: want 11 pages"
# --update with other parameters is refused (setup error)
pagesift-template build -q --update --n1 5 -o "$tmp/lib" --list "$tmp/list" 2> "$tmp/err"
[[ $? == 3 ]] || fail "--update with other n1 should exit 3"
grep -q "/lib/.*\.tpl: built with n1=10" "$tmp/err" || fail "--update error should name the file: $(cat "$tmp/err")"

# an unreadable page is skipped and counted
printf '%s\thttp://x.example/a\n/nonexistent/page.html\thttp://x.example/b\n' "$page" > "$tmp/list2"
pagesift-template build -q -o "$tmp/lib2" --list "$tmp/list2" 2> "$tmp/err"
[[ $? == 1 ]] || fail "missing page: want exit 1"
grep -q "/nonexistent/page.html" "$tmp/err" || fail "missing page not named"
[[ -f $tmp/lib2/x.example.tpl ]] || fail "the readable page's library is still written"

# damaged library: clear error naming the file, exit 3
head -c 300 "$tmp/lib/bbc.co.uk.tpl" > "$tmp/trunc.tpl"
pagesift-template show "$tmp/trunc.tpl" 2> "$tmp/err" > /dev/null
[[ $? == 3 ]] || fail "truncated library: want exit 3"
grep -q "trunc.tpl" "$tmp/err" || fail "truncated library not named: $(cat "$tmp/err")"
sed '1s/\t1$/\t9/' "$tmp/lib/bbc.co.uk.tpl" > "$tmp/v9.tpl"
pagesift-template show "$tmp/v9.tpl" 2> "$tmp/err" > /dev/null
[[ $? == 3 ]] && grep -q "version 9" "$tmp/err" || fail "other version: $(cat "$tmp/err")"

# usage errors
pagesift-template build "$page" 2> /dev/null; [[ $? == 2 ]] || fail "build without -o: want 2"
pagesift-template build --count sometimes -o "$tmp/x" "$page" 2> /dev/null; [[ $? == 2 ]] || fail "bad --count: want 2"
pagesift-template frobnicate 2> /dev/null; [[ $? == 2 ]] || fail "unknown command: want 2"
pagesift-template --version | grep -q "^pagesift-template " || fail "--version"
pagesift-template --help | grep -q "Usage: pagesift-template build" || fail "--help"
echo "ok"
