#!/usr/bin/env bash
# tests/cli/fetch_sitemap.sh — --sitemap and --feed against a real HTTP
# server on 127.0.0.1 (tests/cli/fetch_server.py): a sitemap index with a
# plain child and a gzipped one (.xml.gz) expands to its four pages, each
# fetched once; --lastmod-since leaves out older entries; an RSS and an
# Atom feed (relative links resolved, rel=self not followed) expand to their
# pages; a document that is neither, or a 404, is one failed record; option
# errors.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
server=
trap '[[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

/usr/bin/python3 "$src/tests/cli/fetch_server.py" "$tmp/ports" "$tmp/log" "$src/datasets/sample/html" 1 &
server=$!
for _ in $(seq 100); do [[ -s $tmp/ports ]] && break; sleep 0.1; done
[[ -s $tmp/ports ]] || fail "the test server did not start"
p=$(cat "$tmp/ports")
a=http://127.0.0.1:$p
urls() { /usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(r["origin"], r["status"])' "$1" | sort; }

# --- a sitemap index: a plain child and a gzipped one ------------------------
pagesift -f jsonl --delay 0.01 --sitemap "$a/sitemap-index.xml" > "$tmp/sm.jsonl" 2> "$tmp/err" ||
    fail "sitemap run: $(cat "$tmp/err")"
urls "$tmp/sm.jsonl" > "$tmp/got"
printf '%s ok\n' "$a/gzip" "$a/page/1" "$a/page/2" "$a/page/3" | sort > "$tmp/want"
diff "$tmp/want" "$tmp/got" > /dev/null || fail "sitemap index: $(cat "$tmp/got")"
grep -q "4 records read: 4 extracted" "$tmp/err" || fail "summary: $(tail -1 "$tmp/err")"
for path in /sitemap-index.xml /sitemap-a.xml /sitemap-b.xml.gz /page/1 /page/2 /page/3 /gzip; do
    [[ $(grep -c " $p $path " "$tmp/log") == 1 ]] || fail "$path not fetched once"
done

# --- --lastmod-since: entries older than the date are left out ------------------
pagesift -f jsonl --delay 0.01 --sitemap "$a/sitemap-index.xml" --lastmod-since 2024-06-15 > "$tmp/since.jsonl" 2>/dev/null ||
    fail "--lastmod-since run"
urls "$tmp/since.jsonl" > "$tmp/got"
printf '%s ok\n' "$a/gzip" "$a/page/3" | sort > "$tmp/want"
diff "$tmp/want" "$tmp/got" > /dev/null || fail "--lastmod-since: $(cat "$tmp/got")"

# --- feeds: RSS and Atom, relative links resolved, rel=self not followed ---------
: > "$tmp/log"
pagesift -f jsonl --delay 0.01 --feed "$a/feed.rss" --feed "$a/feed.atom" > "$tmp/feed.jsonl" 2> "$tmp/err" ||
    fail "feed run: $(cat "$tmp/err")"
urls "$tmp/feed.jsonl" > "$tmp/got"
printf '%s ok\n' "$a/page/4" "$a/page/5" "$a/page/6" "$a/latin1" | sort > "$tmp/want"
diff "$tmp/want" "$tmp/got" > /dev/null || fail "feeds: $(cat "$tmp/got")"
grep -q "feed-entry-b" "$tmp/log" && fail "an Atom rel=self link was fetched"

# --- with URLs and a list: all together ------------------------------------------
echo "$a/page/7" > "$tmp/list"
pagesift -q -f jsonl --delay 0.01 --urls "$tmp/list" --feed "$a/feed.rss" "$a/page/8" > "$tmp/all.jsonl" ||
    fail "URLs, list and feed together"
[[ $(wc -l < "$tmp/all.jsonl") == 4 ]] || fail "URLs, list and feed: $(urls "$tmp/all.jsonl")"

# --- not a sitemap, a 404: one failed record each ----------------------------------
pagesift -f jsonl --delay 0.01 --sitemap "$a/page/1" --feed "$a/notfound" > "$tmp/bad.jsonl" 2> "$tmp/err"
[[ $? == 1 ]] || fail "bad sitemap/feed: not exit 1"
grep -q '"status":"failed".*not a sitemap: not XML\|"status":"failed".*not a sitemap: the document is' "$tmp/bad.jsonl" ||
    fail "an HTML page as sitemap: $(cat "$tmp/bad.jsonl")"
grep -q '"status":"failed".*HTTP 404 for the feed' "$tmp/bad.jsonl" || fail "a 404 feed: $(cat "$tmp/bad.jsonl")"
grep -q "2 records read: 0 extracted, 0 empty, 2 failed" "$tmp/err" || fail "$(tail -1 "$tmp/err")"

# --- option errors ----------------------------------------------------------------
for bad in "--sitemap nope.xml" "--feed ftp://x/" "--lastmod-since 2024-13-01 --sitemap $a/x" \
           "--lastmod-since yesterday --sitemap $a/x" "--lastmod-since 2024-01-01"; do
    pagesift $bad > /dev/null 2>&1
    [[ $? == 2 ]] || fail "'$bad' is not a usage error"
done
echo "fetch_sitemap: ok"
