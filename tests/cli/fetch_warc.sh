#!/usr/bin/env bash
# tests/cli/fetch_warc.sh — --warc-out: every response fetched from a real
# server on 127.0.0.1 (tests/cli/fetch_server.py) is kept as WARC request and
# response records, one gzip member each; extracting that WARC again,
# offline, gives the same JSON Lines records, except the keys that say where
# a record came from (id, origin: the WARC's record UUID and offset) and the
# fetch-only ones (http_status, final_url); a redirected page's url is its
# final URL in both.  A resumed run appends to the file; a write error is
# fatal.  --warc-out without URLs is a usage error.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
server=
trap '[[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

/usr/bin/python3 "$src/tests/cli/fetch_server.py" "$tmp/ports" "$tmp/log" "$src/datasets/sample/html" 2 &
server=$!
for _ in $(seq 100); do [[ -s $tmp/ports ]] && break; sleep 0.1; done
[[ -s $tmp/ports ]] || fail "the test server did not start"
mapfile -t ports < "$tmp/ports"
a=http://127.0.0.1:${ports[0]} b=http://127.0.0.1:${ports[1]}

{
    for i in 0 1 2 3 4 5 6 7 8 9 10; do echo "$a/page/$i"; done
    for i in 11 12 13 14 15; do echo "$b/page/$i"; done
    printf '%s\n' "$a/latin1" "$a/gzip" "$a/chunked" "$a/redirect" "$a/notfound" "$a/text.txt" "$a/private/x.html"
} > "$tmp/urls"
pagesift -f jsonl --delay 0.01 --warc-out "$tmp/run.warc.gz" --urls "$tmp/urls" > "$tmp/fetched.jsonl" 2> "$tmp/err"
[[ $? == 1 ]] || fail "fetch run: $(cat "$tmp/err")"
# each record its own gzip member; warcinfo, then request + response pairs
/usr/bin/python3 - "$tmp/run.warc.gz" <<'PY' || fail "the WARC file"
import sys, zlib
data = open(sys.argv[1], "rb").read()
members, types = 0, []
while data:
    d = zlib.decompressobj(31)
    rec = d.decompress(data)
    assert d.eof, "a gzip member is cut"
    data = d.unused_data
    members += 1
    head = rec.split(b"\r\n\r\n", 1)[0].decode()
    assert head.startswith("WARC/1.1\r\n"), head[:40]
    types.append([l.split(": ", 1)[1] for l in head.split("\r\n") if l.startswith("WARC-Type: ")][0])
assert types[0] == "warcinfo", types[:3]
# robots.txt of two hosts and 22 URLs fetched (the robots-forbidden one not):
# 24 responses, each after its request
assert types.count("response") == 24 and types.count("request") == 24, (types.count("response"), types.count("request"))
assert all(types[i] == "request" and types[i + 1] == "response" for i in range(1, len(types), 2))
print("warc:", members, "gzip members", file=sys.stderr)
PY
pagesift -f jsonl "$tmp/run.warc.gz" > "$tmp/again.jsonl" 2> "$tmp/err2"
grep -q "records read: 20 extracted, 0 empty, 0 failed" "$tmp/err2" || fail "re-extraction: $(cat "$tmp/err2")"
/usr/bin/python3 - "$tmp/fetched.jsonl" "$tmp/again.jsonl" <<'PY' || fail "re-extracted records differ"
import json, sys
from collections import OrderedDict
SOURCE = ("id", "origin", "http_status", "final_url")
def load(path, key):
    out = {}
    for line in open(path, encoding="utf-8"):
        r = json.loads(line, object_pairs_hook=OrderedDict)
        out[r[key]] = r
    return out
fetched, again = load(sys.argv[1], "origin"), load(sys.argv[2], "url")
ok = [r for r in fetched.values() if r["status"] == "ok"]
assert len(ok) == 20, len(ok)
same = 0
for r in ok:
    url = r["url"]
    assert url == r["final_url"], (url, r["final_url"])
    g = again[url]
    assert g["http_status"] is None and g["final_url"] is None
    a = json.dumps([(k, v) for k, v in r.items() if k not in SOURCE], ensure_ascii=False)
    b = json.dumps([(k, v) for k, v in g.items() if k not in SOURCE], ensure_ascii=False)
    assert a == b, (url, [(k, str(r[k])[:80], str(g[k])[:80]) for k in r if k not in SOURCE and r[k] != g[k]])
    same += r["origin"] == url
assert same == 19, same     # every page but the redirected one was fetched where it is
# the order of the keys is the same as well
assert list(ok[0].keys()) == list(again[ok[0]["url"]].keys())
print("re-extracted: %d records identical but for %s" % (len(ok), ", ".join(SOURCE)), file=sys.stderr)
PY

# a resumed run appends what it fetches
mkdir "$tmp/o"
printf '%s\n' "$a/page/1" "$a/page/2" > "$tmp/urls2"
pagesift -q --delay 0.01 -o "$tmp/o" --warc-out "$tmp/resume.warc.gz" --urls "$tmp/urls2" || fail "resume, first run"
echo "$a/page/3" >> "$tmp/urls2"
pagesift -q --delay 0.01 -o "$tmp/o" --skip-existing --warc-out "$tmp/resume.warc.gz" --urls "$tmp/urls2" ||
    fail "resume, second run"
pagesift -f jsonl "$tmp/resume.warc.gz" 2>/dev/null > "$tmp/resume.jsonl"
[[ $(grep -c '"status":"ok"' "$tmp/resume.jsonl") == 3 ]] || fail "the resumed WARC does not hold the 3 pages once each"

# a WARC that cannot be written: a setup error before anything is fetched
pagesift --warc-out "$tmp/no/such/dir.warc.gz" "$a/page/1" > /dev/null 2> "$tmp/err"
[[ $? == 3 ]] || fail "an unwritable --warc-out is not a setup error: $(cat "$tmp/err")"
pagesift --warc-out "$tmp/x.warc.gz" "$src/datasets/sample/html/dragnet-14.html" > /dev/null 2>&1
[[ $? == 2 ]] || fail "--warc-out without URLs is not a usage error"
echo "fetch_warc: ok"
