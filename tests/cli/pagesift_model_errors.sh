#!/usr/bin/env bash
# tests/cli/pagesift_model_errors.sh — a missing, truncated or foreign model
# bundle is a setup error (exit 3, the file named) reported before any page
# is read: the input here is a FIFO nobody writes to, so reading it would
# hang until the timeout.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
if ! pagesift --method help | grep -q '^  svm '; then
    echo "SKIP: the svm method is not built yet (needs the model API)"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkfifo "$tmp/fifo"
check() { # name, model file
    timeout 10 pagesift -m svm --model "$2" "$tmp/fifo" > /dev/null 2> "$tmp/err"
    local rc=$?
    [[ $rc == 3 ]] || fail "$1 model: exit $rc, want 3 (124 = it read the input)"
    grep -q "$2" "$tmp/err" || fail "$1 model: the error does not name $2: $(cat "$tmp/err")"
}
check missing "$tmp/no-such.model"
cp "$src/datasets/sample/html/dragnet-14.html" "$tmp/foreign.model"
check foreign "$tmp/foreign.model"
model=$(ls "$src"/models/*.model 2>/dev/null | head -1)
if [[ -n $model ]]; then
    head -c $(( $(wc -c < "$model") / 2 )) "$model" > "$tmp/truncated.model"
    check truncated "$tmp/truncated.model"
fi
# not a regular file (/dev/zero was read up to 1 GiB) and too large: refused
# before reading (timeout 10 would end a 1 GiB read of /dev/zero on a slow
# machine as well: the message says it was not read)
check device /dev/zero
grep -q "not a regular file" "$tmp/err" || fail "/dev/zero: $(cat "$tmp/err")"
truncate -s 300M "$tmp/huge.model"
check huge "$tmp/huge.model"
grep -q "larger than a model bundle can be" "$tmp/err" || fail "huge model: $(cat "$tmp/err")"
# template-svm without libraries: a usage error before reading, naming
# pagesift's own flags (the library's message names none)
timeout 10 pagesift -m template-svm "$tmp/fifo" > /dev/null 2> "$tmp/err"
rc=$?
[[ $rc == 2 ]] || fail "template-svm without templates: exit $rc, want 2 (124 = it read the input)"
grep -q -- "--templates DIR or --learn-templates" "$tmp/err" || fail "template-svm hint: $(cat "$tmp/err")"
echo "pagesift_model_errors: ok"
