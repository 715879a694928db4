#!/usr/bin/env bash
# tests/cli/favor.sh — --favor precision|recall moves the trade-off the way
# it says, with the shipped model over the bundled sample: precision keeps
# no more text than the default and recall no less, and at least one of
# them differs from the default (the knob is applied); the same as the
# method option favor=; a bad value is a usage error (exit 2).
set -uo pipefail
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
chars() { # total characters of the texts of a JSON Lines file
    /usr/bin/python3 -c 'import json,sys; print(sum(len(json.loads(l)["text"] or "") for l in open(sys.argv[1])))' "$1"
}
pagesift -q --format jsonl "$sample" > "$tmp/b.jsonl" || fail "pagesift (balanced)"
pagesift -q --format jsonl --favor precision "$sample" > "$tmp/p.jsonl" || fail "pagesift --favor precision"
pagesift -q --format jsonl --favor recall "$sample" > "$tmp/r.jsonl" || fail "pagesift --favor recall"
pagesift -q --format jsonl --options favor=precision "$sample" > "$tmp/po.jsonl" || fail "--options favor=precision"
b=$(chars "$tmp/b.jsonl") p=$(chars "$tmp/p.jsonl") r=$(chars "$tmp/r.jsonl")
[ "$p" -le "$b" ] || fail "--favor precision kept more text ($p) than the default ($b)"
[ "$r" -ge "$b" ] || fail "--favor recall kept less text ($r) than the default ($b)"
[ "$p" -lt "$b" ] || [ "$r" -gt "$b" ] || fail "--favor changed nothing ($p / $b / $r characters)"
cmp -s "$tmp/p.jsonl" "$tmp/po.jsonl" || fail "--favor precision and --options favor=precision differ"
pagesift --favor sometimes "$sample/html/dragnet-14.html" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "--favor sometimes: exit status is not 2"
grep -q -- "--favor: svm: option favor=sometimes: expected one of balanced, precision, recall" "$tmp/err" ||
    fail "--favor sometimes: no message naming the flag, the option and the values: $(cat "$tmp/err")"
pagesift --options favor=sometimes "$sample/html/dragnet-14.html" > /dev/null 2> "$tmp/err"
[ $? -ne 0 ] || fail "--options favor=sometimes was accepted"
echo "ok: precision $p, balanced $b, recall $r characters over the sample"
