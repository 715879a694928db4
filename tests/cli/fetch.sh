#!/usr/bin/env bash
# tests/cli/fetch.sh — fetching URLs from a real HTTP server on 127.0.0.1
# (tests/cli/fetch_server.py, Python's http.server on ephemeral ports, four
# of them: four hosts): a URL list over the hosts (redirect, gzip, chunked,
# a charset only in Content-Type, 5xx then ok, 404, not HTML); robots.txt
# obeyed (and a host whose robots.txt answers 503 not fetched at all); the
# per-host delay measured between request starts; a stalling server gets the
# timeout and an endless one the size cap, each one failed record while the
# run goes on; User-Agent with the contact; read = extracted + empty + failed
# + skipped; -o DIR with --skip-existing fetches nothing again; killed by
# SIGTERM mid-run and resumed, each URL gets its one output and only those
# without one are fetched again; option errors.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
server=
trap '[[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

ROBOTS_503=3 /usr/bin/python3 "$src/tests/cli/fetch_server.py" "$tmp/ports" "$tmp/log" "$src/datasets/sample/html" 4 &
server=$!
for _ in $(seq 100); do [[ -s $tmp/ports ]] && break; sleep 0.1; done
[[ -s $tmp/ports ]] || fail "the test server did not start"
mapfile -t ports < "$tmp/ports"
a=http://127.0.0.1:${ports[0]} b=http://127.0.0.1:${ports[1]} c=http://127.0.0.1:${ports[2]} d=http://127.0.0.1:${ports[3]}

# Every record's fields, one line each: id status http_status final_url error
summary() {
    /usr/bin/python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(r["id"], r["status"], r["http_status"], r["final_url"], (r["error"] or "-").replace(" ", "_"), r["charset"])
PY
}

# --- a list over two hosts ---------------------------------------------------
cat > "$tmp/urls" <<EOF
# comment lines and blank lines are ignored

$a/page/1
$a/latin1
$a/gzip
$a/chunked
$a/redirect
$a/flaky
$a/notfound
$a/text.txt
$a/private/secret.html
$a/private/open.html
$b/page/3
$b/page/4
EOF
pagesift -f jsonl --urls "$tmp/urls" --delay 0.05 --contact test@example.org -j 2 > "$tmp/out.jsonl" 2> "$tmp/err"
rc=$?
[[ $rc == 1 ]] || fail "a run with failed fetches exits $rc, not 1: $(cat "$tmp/err")"
summary "$tmp/out.jsonl" > "$tmp/sum"
check() { grep -qE "$1" "$tmp/sum" || fail "no record like '$1' in: $(cat "$tmp/sum")"; }
check "^127.0.0.1_${ports[0]}_page_1 ok 200 $a/page/1 - "
check "^127.0.0.1_${ports[0]}_gzip ok 200 "
check "^127.0.0.1_${ports[0]}_chunked ok 200 "
check "^127.0.0.1_${ports[0]}_redirect ok 200 $a/page/1 "
check "^127.0.0.1_${ports[0]}_flaky ok 200 "
check "^127.0.0.1_${ports[0]}_notfound failed 404 .*HTTP_404"
check "^127.0.0.1_${ports[0]}_private_secret.html failed None None .*disallowed_by_robots.txt"
check "^127.0.0.1_${ports[0]}_private_open.html ok 200 "
check "^127.0.0.1_${ports[1]}_page_3 ok 200 "
check "^127.0.0.1_${ports[1]}_page_4 ok 200 "
grep -q "text.txt" "$tmp/sum" && fail "a text/plain response got a record"
[[ $(wc -l < "$tmp/sum") == 11 ]] || fail "expected 11 records: $(cat "$tmp/sum")"
grep -q "12 records read: 9 extracted, 0 empty, 2 failed, 1 skipped" "$tmp/err" ||
    fail "summary: $(tail -1 "$tmp/err")"
# the charset came from Content-Type alone: the text is decoded right
grep -q 'Café crème' "$tmp/out.jsonl" || fail "the ISO-8859-1 page was not decoded by its Content-Type"
# robots.txt asked once per host, before the pages; the forbidden page never asked
[[ $(grep -c " ${ports[0]} /robots.txt " "$tmp/log") == 1 ]] || fail "robots.txt not fetched once on host a"
[[ $(grep -c " ${ports[1]} /robots.txt " "$tmp/log") == 1 ]] || fail "robots.txt not fetched once on host b"
grep -q "/private/secret.html" "$tmp/log" && fail "a page disallowed by robots.txt was fetched"
[[ $(grep -c " ${ports[0]} /flaky " "$tmp/log") == 2 ]] || fail "the 503 was not retried once"
grep -q "pagesift/[0-9.]* (+test@example.org)" "$tmp/log" || fail "User-Agent without the contact: $(head -1 "$tmp/log")"

# --- the per-host delay, measured ---------------------------------------------
: > "$tmp/log"
t0=$(date +%s.%N)
pagesift -q -f jsonl --delay 0.4 --per-host 1 "$c/page/1" "$c/page/2" "$c/page/3" "$c/page/4" "$c/page/5" \
    > "$tmp/delay.jsonl" || fail "the delay run failed"
t1=$(date +%s.%N)
/usr/bin/python3 - "$tmp/log" "$t0" "$t1" <<'PY' || fail "per-host delay"
import sys
times = [float(l.split()[0]) for l in open(sys.argv[1])]
assert len(times) == 6, "expected robots.txt and 5 pages, got %d requests" % len(times)
gaps = [b - a for a, b in zip(times, times[1:])]
assert min(gaps) >= 0.35, "request starts %s s apart, under the delay of 0.4 s" % gaps
wall = float(sys.argv[3]) - float(sys.argv[2])
assert wall < 2.0 + 5 * 0.4 + 3, "the run took %.1f s" % wall
print("per-host delay: gaps %.2f-%.2f s (delay 0.4 s), %.2f s wall" % (min(gaps), max(gaps), wall), file=sys.stderr)
PY

# --- a stalling server and an endless one: one failed record each -------------
t0=$(date +%s)
pagesift -f jsonl --timeout 1 --max-bytes 1M --delay 0.01 "$b/slow" "$b/huge" "$b/page/5" > "$tmp/bad.jsonl" 2> "$tmp/err"
rc=$?
t1=$(date +%s)
[[ $rc == 1 ]] || fail "stall/huge run exits $rc"
summary "$tmp/bad.jsonl" > "$tmp/sum"
check "_slow failed None None .*timed_out"
check "_huge failed None None .*larger_than_the_limit_of_1048576_bytes"
check "_page_5 ok 200"
grep -q "3 records read: 1 extracted, 0 empty, 2 failed, 0 skipped" "$tmp/err" || fail "summary: $(tail -1 "$tmp/err")"
(( t1 - t0 <= 10 )) || fail "the stalled fetch held the run $((t1 - t0)) s"

# --- a host whose robots.txt answers 503 is not fetched (RFC 9309) ------------
pagesift -f jsonl --delay 0.01 "$d/page/1" "$d/page/2" > "$tmp/r503.jsonl" 2> "$tmp/err"
[[ $(grep -c '"status":"failed".*robots.txt of the host answered HTTP 503' "$tmp/r503.jsonl") == 2 ]] ||
    fail "robots.txt 503: $(cat "$tmp/r503.jsonl")"
grep -q " ${ports[3]} /page/" "$tmp/log" && fail "a page of a host whose robots.txt answered 503 was fetched"

# --- one URL: its text on stdout -----------------------------------------------
pagesift --delay 0.01 "$a/page/1" > "$tmp/one.txt" 2> "$tmp/err" || fail "one URL: $(cat "$tmp/err")"
[[ -s $tmp/one.txt ]] || fail "one URL: no text"
pagesift "$src/datasets/sample/html/$(ls "$src/datasets/sample/html" | sort | sed -n 2p)" > "$tmp/file.txt" 2>/dev/null
cmp -s "$tmp/one.txt" "$tmp/file.txt" || fail "the fetched page's text differs from the file's"

# --- br and zstd bodies: asked for, decoded (the server answers 406 unless asked)
for coding in br zstd; do
  n=$([[ $coding == br ]] && echo 8 || echo 9)
  pagesift --delay 0.01 "$a/$coding" > "$tmp/$coding.txt" 2> "$tmp/err" || fail "$coding: $(cat "$tmp/err")"
  pagesift "$src/datasets/sample/html/$(ls "$src/datasets/sample/html" | LC_ALL=C sort | sed -n ${n}p)" \
    > "$tmp/file.txt" 2>/dev/null
  cmp -s "$tmp/$coding.txt" "$tmp/file.txt" || fail "the page fetched in $coding differs from the file's"
done

# --- -o DIR, then --skip-existing fetches nothing again ------------------------
printf '%s\n' "$a/page/1" "$a/page/2" "$a/notfound" > "$tmp/urls"
pagesift -q --delay 0.01 -o "$tmp/dir" --urls "$tmp/urls"
[[ -s $tmp/dir/127.0.0.1_${ports[0]}_page_1.txt && -s $tmp/dir/127.0.0.1_${ports[0]}_page_2.txt ]] ||
    fail "-o DIR: $(ls "$tmp/dir")"
: > "$tmp/log"
pagesift --delay 0.01 --skip-existing -o "$tmp/dir" --urls - < "$tmp/urls" 2> "$tmp/err"
grep -q "3 records read: 0 extracted, 0 empty, 1 failed, 2 skipped" "$tmp/err" || fail "resume: $(cat "$tmp/err")"
grep -q "/page/" "$tmp/log" && fail "--skip-existing fetched a page whose output is there"
grep -q "/notfound" "$tmp/log" || fail "--skip-existing did not fetch the failed one again"
# the manifest: each file with its URL; the resume added the failed one's line
# again and none for the two it did not fetch (their lines stand)
[[ $(awk -F'\t' 'NR > 1 {print $1 " " $2 " " $3}' "$tmp/dir/manifest.tsv") == \
   "127.0.0.1_${ports[0]}_page_1.txt ok $a/page/1
127.0.0.1_${ports[0]}_page_2.txt ok $a/page/2
127.0.0.1_${ports[0]}_notfound.error failed $a/notfound
127.0.0.1_${ports[0]}_notfound.error failed $a/notfound" ]] || fail "manifest: $(cat "$tmp/dir/manifest.tsv")"

# --- killed mid-run, then resumed: every URL has its one output ---------------
for i in $(seq 1 12); do echo "$c/page/$i"; done > "$tmp/urls12"
: > "$tmp/log"
pagesift -q --delay 0.25 --per-host 1 -o "$tmp/killed" --urls "$tmp/urls12" 2>/dev/null &
run=$!
# once the first page is written (not after a fixed time: on a loaded machine the model's loading
# alone took longer than that), while eleven are still to come, 0.25 s apart
for _ in $(seq 300); do compgen -G "$tmp/killed/*.txt" > /dev/null && break; sleep 0.05; done
kill -TERM "$run"   # (SIGINT is ignored by a background job of a script)
wait "$run"
rc=$?
[[ $rc == 143 ]] || fail "SIGTERM: exit $rc"
done1=$(ls "$tmp/killed" | grep -c '\.txt$')
(( done1 > 0 && done1 < 12 )) || fail "SIGTERM came too late or too early: $done1 pages written"
fetched1=$(grep -c " ${ports[2]} /page/" "$tmp/log")
: > "$tmp/log"
pagesift -q --delay 0.01 --skip-existing -o "$tmp/killed" --urls "$tmp/urls12" || fail "the resumed run failed"
[[ $(ls "$tmp/killed" | grep -c '\.txt$') == 12 ]] || fail "after the resume: $(ls "$tmp/killed")"
fetched2=$(grep -c " ${ports[2]} /page/" "$tmp/log")
[[ $fetched2 == $((12 - done1)) ]] ||
    fail "the resumed run fetched $fetched2 pages, not the $((12 - done1)) without output"
echo "kill and resume: $done1 pages written, $fetched1 fetched before SIGTERM; $fetched2 fetched after" >&2

# a signal during a stalled fetch stops the run at once, not after --timeout
pagesift -q -f jsonl --timeout 30 "$b/slow" > /dev/null 2>&1 &
run=$!
sleep 1
t0=$(date +%s%N)
kill -TERM "$run"
wait "$run"
rc=$?
t1=$(date +%s%N)
[[ $rc == 143 ]] || fail "SIGTERM during a stalled fetch: exit $rc"
(( (t1 - t0) / 1000000 < 2500 )) || fail "SIGTERM during a stalled fetch took $(( (t1 - t0) / 1000000 )) ms"

# --- option errors ------------------------------------------------------------
for bad in "--delay -1" "--timeout 0" "--per-host 0" "--retries x" "--max-connections 0"; do
    pagesift $bad "$a/page/1" > /dev/null 2>&1
    [[ $? == 2 ]] || fail "$bad is not a usage error"
done
pagesift --urls "$tmp/nope" > /dev/null 2>&1
[[ $? == 3 ]] || fail "a missing --urls file is not a setup error"
pagesift --help > "$tmp/help"
grep -q -- "--urls FILE" "$tmp/help" || fail "--help does not document --urls"
echo "fetch: ok"
