#!/usr/bin/env bash
# tests/cli/pagesift_papercuts.sh — papercuts of issue 31: `pagesift
# nope.html > out.txt` leaves out.txt empty (the failure goes to stderr
# only); a single page whose result is empty says so on stderr; --skip-existing
# after a finished run exits 0 and says all was done (a folder of nothing but
# non-HTML files stays an error, exit 2).
set -uo pipefail
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample/html
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- a missing page: the message on stderr, nothing on stdout -----------------
pagesift "$tmp/nope.html" > "$tmp/out.txt" 2> "$tmp/err"
rc=$?
[[ $rc == 1 ]] || fail "a missing page exits $rc"
[[ ! -s $tmp/out.txt ]] || fail "the failure went to stdout: $(cat "$tmp/out.txt")"
grep -q "nope.html: No such file" "$tmp/err" || fail "no message on stderr: $(cat "$tmp/err")"
# several pages keep their '==> id <== failed' line in text
pagesift -f text "$tmp/nope.html" "$sample/dragnet-14.html" > "$tmp/out.txt" 2>/dev/null
grep -q "==> nope <== failed" "$tmp/out.txt" || fail "several pages: no failed header"

# --- an empty result of a single page is said ------------------------------
printf '<html><head><title>x</title></head><body></body></html>\n' > "$tmp/empty.html"
pagesift "$tmp/empty.html" > "$tmp/out.txt" 2> "$tmp/err"
rc=$?
[[ $rc == 0 ]] || fail "an empty page exits $rc"
grep -q "empty.html: no main text found" "$tmp/err" || fail "an empty page is silent: $(cat "$tmp/err")"
pagesift -q "$tmp/empty.html" > /dev/null 2> "$tmp/err"
[[ ! -s $tmp/err ]] || fail "-q still says the result is empty"

# --- --skip-existing after a finished run: done, exit 0 ---------------------
mkdir "$tmp/in"
cp "$sample/dragnet-14.html" "$sample/netease-3.html" "$tmp/in/"
pagesift -q -o "$tmp/out" "$tmp/in" || fail "the first run failed"
pagesift --skip-existing -o "$tmp/out" "$tmp/in" 2> "$tmp/err"
rc=$?
[[ $rc == 0 ]] || fail "--skip-existing after a finished run exits $rc: $(cat "$tmp/err")"
grep -q "nothing left to do" "$tmp/err" || fail "no 'nothing left to do': $(cat "$tmp/err")"
# nothing but non-HTML files, no outputs: still "no page in the input"
mkdir "$tmp/txt"
echo "plain" > "$tmp/txt/a.txt"
pagesift --skip-existing -o "$tmp/out2" "$tmp/txt" 2> "$tmp/err"
[[ $? == 2 ]] || fail "a folder without pages under --skip-existing is not exit 2"
grep -q "no page in the input" "$tmp/err" || fail "$(cat "$tmp/err")"
echo "papercuts: ok"
