#!/usr/bin/env bash
# tests/cli/pipe_inputs.sh — inputs through a pipe, and what a list names.
# A list from a shell's --list <(find ...) or --list - (standard input): its
# lines were read to their end to count the pages for the progress, then
# read again from there, so every page of it was lost, silently (beside
# other inputs) or as "no page in the input".  A WARC file a list named was
# read as one page.  A WARC from <(zcat ...) or a named pipe: its first
# bytes were read ahead to see what it was, then lost (the whole crawl one
# failed "binary data" page).  Now pipes are read once, as they come, a
# list names WARC files and folders too, and --learn-templates (which reads
# its inputs twice) refuses a pipe up front.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample/html
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

ls "$sample"/*.html | head -3 > "$tmp/pages.txt"
[[ $(wc -l < "$tmp/pages.txt") == 3 ]] || fail "the sample has fewer than 3 pages"
one=$(ls "$sample"/*.html | tail -1)

# --- pagesift: a list from <(...), beside a page, and from standard input ---
pagesift -j 1 -f jsonl --list <(cat "$tmp/pages.txt") > "$tmp/a.jsonl" 2> "$tmp/err"
rc=$?
[[ $rc == 0 ]] || fail "--list <(...) exits $rc: $(cat "$tmp/err")"
[[ $(wc -l < "$tmp/a.jsonl") == 3 ]] || fail "--list <(...) gave $(wc -l < "$tmp/a.jsonl") records, not 3"
pagesift -j 1 -f jsonl --list "$tmp/pages.txt" > "$tmp/file.jsonl" 2>/dev/null
cmp -s "$tmp/a.jsonl" "$tmp/file.jsonl" || fail "--list <(...) and --list FILE differ"
pagesift -j 1 -f jsonl "$one" --list <(cat "$tmp/pages.txt") > "$tmp/b.jsonl" 2>/dev/null
[[ $(wc -l < "$tmp/b.jsonl") == 4 ]] || fail "a page and --list <(...) gave $(wc -l < "$tmp/b.jsonl") records, not 4"
# relative paths of a list on standard input are relative to the current folder
(cd "$sample" && ls *.html | head -3 | pagesift -j 1 -f jsonl --list -) > "$tmp/c.jsonl" 2> "$tmp/err"
rc=$?
[[ $rc == 0 ]] || fail "--list - exits $rc: $(cat "$tmp/err")"
[[ $(wc -l < "$tmp/c.jsonl") == 3 ]] || fail "--list - gave $(wc -l < "$tmp/c.jsonl") records, not 3"
grep -q '"status":"failed"' "$tmp/c.jsonl" && fail "--list - with relative paths: $(head -c 300 "$tmp/c.jsonl")"

# an empty list is "no page in the input" whether it is a file or standard input
: > "$tmp/empty.txt"
pagesift --list "$tmp/empty.txt" > /dev/null 2>&1; [[ $? == 2 ]] || fail "an empty list file does not exit 2"
pagesift --list - < "$tmp/empty.txt" > /dev/null 2> "$tmp/err"; rc=$?
[[ $rc == 2 ]] || fail "an empty --list - exits $rc, not 2"
grep -q "no page in the input" "$tmp/err" || fail "an empty --list -: $(cat "$tmp/err")"

# --- standard input once; no second pass over a pipe --------------------------
pagesift --list - - < "$tmp/pages.txt" > /dev/null 2> "$tmp/err"
rc=$?
[[ $rc == 2 ]] || fail "--list - with '-' exits $rc"
grep -q "standard input" "$tmp/err" || fail "--list - -: $(cat "$tmp/err")"
pagesift --learn-templates --list <(cat "$tmp/pages.txt") > /dev/null 2> "$tmp/err"
rc=$?
[[ $rc == 2 ]] || fail "--learn-templates --list <(...) exits $rc"
grep -q "save it to a file" "$tmp/err" || fail "--learn-templates --list <(...): $(cat "$tmp/err")"
pagesift --learn-templates --list - < "$tmp/pages.txt" > /dev/null 2> "$tmp/err"
[[ $? == 2 ]] || fail "--learn-templates --list - is not refused"

# --- a WARC and a gzip page through a pipe, a named pipe ---------------------
/usr/bin/python3 "$src/scripts/make-warc" -o "$tmp/crawl.warc.gz" $(cat "$tmp/pages.txt") > /dev/null 2>&1 || fail "make-warc failed"
pagesift -j 2 -f jsonl "$tmp/crawl.warc.gz" > "$tmp/w-file.jsonl" 2>/dev/null
[[ $(wc -l < "$tmp/w-file.jsonl") == 3 ]] || fail "the WARC file gave $(wc -l < "$tmp/w-file.jsonl") records"
pagesift -j 2 -f jsonl <(cat "$tmp/crawl.warc.gz") > "$tmp/w-pipe.jsonl" 2> "$tmp/err" || fail "<(cat crawl.warc.gz): $(cat "$tmp/err")"
diff <(sed 's/"origin":"[^"]*"//' "$tmp/w-file.jsonl") <(sed 's/"origin":"[^"]*"//' "$tmp/w-pipe.jsonl") > /dev/null ||
    fail "a WARC through a pipe differs from the file: $(head -c 300 "$tmp/w-pipe.jsonl")"
pagesift -j 2 -f jsonl <(zcat "$tmp/crawl.warc.gz") > "$tmp/w-zcat.jsonl" 2>/dev/null
[[ $(wc -l < "$tmp/w-zcat.jsonl") == 3 ]] || fail "<(zcat crawl.warc.gz) gave $(wc -l < "$tmp/w-zcat.jsonl") records"
pagesift -f text "$one" > "$tmp/page.txt" 2>/dev/null
pagesift -f text <(gzip -c "$one") > "$tmp/page-gz.txt" 2>/dev/null
cmp -s "$tmp/page.txt" "$tmp/page-gz.txt" || fail "a gzip page through a pipe is not the page"
mkfifo "$tmp/fifo"
cat "$tmp/crawl.warc.gz" > "$tmp/fifo" &
pagesift -j 2 -f jsonl "$tmp/fifo" > "$tmp/w-fifo.jsonl" 2>/dev/null
wait
[[ $(wc -l < "$tmp/w-fifo.jsonl") == 3 ]] || fail "a named pipe gave $(wc -l < "$tmp/w-fifo.jsonl") records"
# a list names WARC files and folders as well as pages (a WARC was read as one page)
printf '%s\n%s\thttp://example.org/one\n' "$tmp/crawl.warc.gz" "$one" > "$tmp/mixed.txt"
pagesift -j 2 -f jsonl --list "$tmp/mixed.txt" > "$tmp/mixed.jsonl" 2>/dev/null
[[ $(wc -l < "$tmp/mixed.jsonl") == 4 ]] || fail "a list of a WARC and a page gave $(wc -l < "$tmp/mixed.jsonl") records, not 4"
grep -q '"url":"http://example.org/one"' "$tmp/mixed.jsonl" || fail "the page's URL of the list is lost"
pagesift --learn-templates <(cat "$tmp/crawl.warc.gz") > /dev/null 2> "$tmp/err"
[[ $? == 2 ]] || fail "--learn-templates <(...) is not refused"
grep -q "save it to a file" "$tmp/err" || fail "--learn-templates <(...): $(cat "$tmp/err")"

# --- the lab tools read such a list too ---------------------------------------
pagesift-features --list <(cat "$tmp/pages.txt") -o "$tmp/f.csv" 2> "$tmp/err" ||
    fail "pagesift-features --list <(...): $(cat "$tmp/err")"
pagesift-features --list "$tmp/pages.txt" -o "$tmp/g.csv" 2>/dev/null
cmp -s "$tmp/f.csv" "$tmp/g.csv" || fail "pagesift-features: --list <(...) and --list FILE differ"
pagesift-features -L --list <(cat "$tmp/pages.txt") -o "$tmp/h.csv" 2> "$tmp/err"
[[ $? == 2 ]] || fail "pagesift-features -L --list <(...) is not refused"
pagesift-features --list - - < "$tmp/pages.txt" -o "$tmp/h.csv" 2> "$tmp/err"
[[ $? == 2 ]] || fail "pagesift-features --list - - is not refused"
echo "pipe_inputs: ok"
