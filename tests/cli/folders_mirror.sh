#!/usr/bin/env bash
# tests/cli/folders_mirror.sh — folders as people have them: a wget mirror
# (pages named article.php, index.html?p=2, without extension, .HTM) and an
# httrack mirror (hts-cache/, hts-log.txt beside the pages) come out whole,
# every page read by its content; .html.gz pages are unpacked; everything
# else is counted as skipped in the summary and named with -v.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample/html
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pages=("$sample"/dragnet-14.html "$sample"/netease-3.html "$sample"/cleaneval-dev-4.html
       "$sample"/cleanportaleval-bbc.co.uk_news_01.html)
for p in "${pages[@]}"; do [[ -f $p ]] || { echo "SKIP: $p missing"; exit 77; }; done

# --- wget: www.example.com/... with query strings and no extensions -------
w=$tmp/wget/www.example.com
mkdir -p "$w/news" "$w/static"
cp "${pages[0]}" "$w/index.html"
cp "${pages[1]}" "$w/news/article.php"
cp "${pages[2]}" "$w/index.html?p=2"
cp "${pages[3]}" "$w/news/story"
cp "${pages[0]}" "$w/news/OLD.HTM"
gzip -c "${pages[1]}" > "$w/news/archived.html.gz"
printf 'body{color:red}\n' > "$w/static/site.css"
printf '\x89PNG\r\n\x1a\n0000' > "$w/static/logo.png"
printf 'User-agent: *\nDisallow:\n' > "$w/robots.txt"
pagesift -m all --format jsonl "$tmp/wget" > "$tmp/w.jsonl" 2> "$tmp/w.err" || fail "wget mirror: $(cat "$tmp/w.err")"
[[ $(wc -l < "$tmp/w.jsonl") == 6 ]] || fail "wget mirror: $(wc -l < "$tmp/w.jsonl") records, want 6 pages"
grep -q "6 extracted, 0 empty, 0 failed, 3 skipped" "$tmp/w.err" || fail "wget mirror summary: $(cat "$tmp/w.err")"
for o in index.html news/article.php "index.html?p=2" news/story news/OLD.HTM news/archived.html.gz; do
    grep -qF "\"origin\":\"$w/$o\"" "$tmp/w.jsonl" || grep -qF "$o" "$tmp/w.jsonl" ||
        fail "wget mirror: no record for $o"
done
# the unpacked page gives the text of the page it was made of
pagesift -m all "$w/news/archived.html.gz" > "$tmp/gz.txt" || fail ".html.gz as an argument"
pagesift -m all "${pages[1]}" > "$tmp/plain.txt"
cmp -s "$tmp/gz.txt" "$tmp/plain.txt" || fail ".html.gz: another text than the page"
pagesift -m all -v --format jsonl "$tmp/wget" 2> "$tmp/v.err" > /dev/null
for s in static/site.css static/logo.png robots.txt; do
    grep -qF "skipped $w/$s: " "$tmp/v.err" || fail "-v does not name $s: $(cat "$tmp/v.err")"
done
pagesift -m all --format jsonl "$tmp/wget" 2> "$tmp/q.err" > /dev/null
grep -q "skipped $w" "$tmp/q.err" && fail "skipped files named without -v"

# --- httrack: project folder with hts-cache and a log ---------------------
h=$tmp/httrack
mkdir -p "$h/hts-cache" "$h/www.example.org/a"
cp "${pages[0]}" "$h/index.html"
cp "${pages[2]}" "$h/www.example.org/index.html"
cp "${pages[3]}" "$h/www.example.org/a/page2.html"
cp "${pages[1]}" "$h/www.example.org/a/item3c4d.html"
printf 'HTTrack3.49-2 launched\n' > "$h/hts-log.txt"
printf 'PK\003\004' > "$h/hts-cache/new.zip"
printf 'Mirror launched\n' > "$h/hts-cache/doit.log"
pagesift -m all --format jsonl "$h" > "$tmp/h.jsonl" 2> "$tmp/h.err" || fail "httrack mirror: $(cat "$tmp/h.err")"
[[ $(wc -l < "$tmp/h.jsonl") == 4 ]] || fail "httrack mirror: $(wc -l < "$tmp/h.jsonl") records, want 4"
grep -q "4 extracted, 0 empty, 0 failed, 3 skipped" "$tmp/h.err" || fail "httrack summary: $(cat "$tmp/h.err")"
# the progress total counts what is read
pagesift-inputs "$h" > "$tmp/list" 2>/dev/null
echo "folders_mirror: ok"
