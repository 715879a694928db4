#!/usr/bin/env bash
# tests/cli/pagesift_dragnet_warc.sh — issue 6's acceptance check: pagesift
# gives the same texts on ../shared/datasets/dragnet read as files (the data
# set folder) and as a gzip WARC built from it (scripts/make-warc).  Uses the
# default method (svm with the shipped model) when it can run, else 'all'.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
shared=${PS_SHARED_DIR:-$src/../shared}
data=$shared/datasets/dragnet
[[ -f $data/index.tsv ]] || { echo "SKIP: $data not found (../shared is absent; CI has it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
method=(-m all)
if pagesift -q "$src/datasets/sample/html/dragnet-14.html" >/dev/null 2>&1; then method=(); fi
"$src/scripts/make-warc" -o "$tmp/d.warc.gz" "$data" >/dev/null 2>&1 || fail "make-warc"
pagesift "${method[@]}" -q --format jsonl "$data" > "$tmp/files.jsonl" || fail "pagesift on the files"
pagesift "${method[@]}" -q --format jsonl "$tmp/d.warc.gz" > "$tmp/warc.jsonl" || fail "pagesift on the WARC"
python3 - "$tmp/files.jsonl" "$tmp/warc.jsonl" <<'PY' || fail "texts differ"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]; b = [json.loads(l) for l in open(sys.argv[2])]
assert len(a) == len(b) and len(a) > 1000, (len(a), len(b))
bad = [x["id"] for x, y in zip(a, b) if (x["url"], x["text"], x["status"]) != (y["url"], y["text"], y["status"])]
assert not bad, f"{len(bad)} pages differ, e.g. {bad[:5]}"
print(f"{len(a)} pages, same texts from files and WARC")
PY
echo "pagesift_dragnet_warc: ok (${method[*]:-default method})"
