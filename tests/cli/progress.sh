#!/usr/bin/env bash
# tests/cli/progress.sh — the progress line of pagesift on a terminal
# (script(1) gives it one): with the total known (a folder) it shows
# done/total, the percentage, the rate, the time left and the failures so
# far; for a WARC file it goes by bytes (pages, rate, MB read of the file's
# size, percentage, time left, failures); on a stream of unknown size, pages
# and rate.  Not on a pipe, not with --quiet.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample/html
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v script > /dev/null || { echo "SKIP: script(1) is not installed"; exit 77; }
mkdir "$tmp/in"
cp "$sample"/dragnet-14.html "$sample"/netease-3.html "$sample"/cleaneval-dev-4.html "$tmp/in/"
head -c 3000 /dev/urandom > "$tmp/in/zz-binary.html"   # one failure
tty_run() { script -qec "$1" /dev/null < /dev/null | tr '\r' '\n' > "$2"; }

tty_run "pagesift -m all -j 1 '$tmp/in' > /dev/null" "$tmp/folder"
grep -Eq '^(.\[K)?[0-9]/4 pages [0-9.]+%, [0-9.]+/s, [0-9]+m[0-9]{2}s left, [01] failed' "$tmp/folder" ||
    fail "folder: no done/total, percent, rate, time left, failures: $(cat -v "$tmp/folder")"

if [[ -f $src/scripts/make-warc ]] && /usr/bin/python3 -c 1 2>/dev/null; then
    if /usr/bin/python3 "$src/scripts/make-warc" -o "$tmp/c.warc.gz" "$src/datasets/sample" > /dev/null 2>&1; then
        tty_run "pagesift -m all -j 1 '$tmp/c.warc.gz' > /dev/null" "$tmp/warc"
        grep -Eq '^(.\[K)?[0-9]+ pages, [0-9.]+/s, [0-9]+/[0-9]+ MB [0-9.]+%.*, [0-9]+ failed' "$tmp/warc" ||
            fail "WARC: not by bytes: $(cat -v "$tmp/warc")"
    else
        echo "note: make-warc failed here, the WARC case is not checked"
    fi
fi

tty_run "cat '$sample/dragnet-14.html' | pagesift -m all --format jsonl - > /dev/null" "$tmp/stream"
grep -Eq '^(.\[K)?1 pages, [0-9.]+/s' "$tmp/stream" || fail "stdin: no pages and rate: $(cat -v "$tmp/stream")"
grep -q 'MB\|%' "$tmp/stream" && fail "stdin: a total shown for a stream"

tty_run "pagesift -q -m all '$tmp/in' > /dev/null" "$tmp/quiet"
grep -q 'pages' "$tmp/quiet" && fail "--quiet still shows progress"
pagesift -m all "$tmp/in" 2> "$tmp/pipe" > /dev/null
grep -q '/4 pages' "$tmp/pipe" && fail "progress drawn on a pipe"
echo "progress: ok"
