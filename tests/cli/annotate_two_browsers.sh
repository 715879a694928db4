#!/usr/bin/env bash
# Browser test: two Chromium processes (two profiles: two browsers' local
# storage) on one workspace served by pagesift-annotate --serve label blocks
# of the same page by clicking (tests/browser/annotate_two_browsers.js):
# labels of different blocks both reach labels.json, a block labelled
# differently keeps the label saved first and the second browser is told,
# and "Save to disk" writes labels.csv with both browsers' labels.
# SKIP (77) only when npm cannot install playwright-core or Chromium cannot
# start.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
here="$src/tests/browser"
tmp=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill "$srv" 2> /dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$here/npm-setup.sh"   # playwright-core in tests/browser/node_modules, or SKIP

p1="$src/datasets/sample/html/cleanportaleval-bbc.co.uk_news_01.html"
p2="$src/datasets/sample/html/cleanportaleval-bbc.co.uk_news_02.html"
pagesift-annotate -q -o "$tmp/ws" "$p1" "$p2" || fail "pagesift-annotate"
pagesift-annotate --serve 0 -o "$tmp/ws" > "$tmp/serve.out" 2> "$tmp/serve.err" &
srv=$!
for _ in $(seq 100); do grep -q 'http://127.0.0.1:' "$tmp/serve.out" && break; sleep 0.1; done
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/serve.out")
[ -n "$port" ] || fail "the server did not say where it listens"
rc=0
(cd "$here" && node annotate_two_browsers.js "$tmp/ws" "$port") || rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "two browsers (exit $rc)"
kill "$srv"; wait "$srv" || fail "the server did not stop cleanly on SIGTERM"
srv=
echo "ok: two browsers on one served workspace keep each other's labels"
