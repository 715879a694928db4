#!/usr/bin/env bash
# tests/cli/method_options.sh — docs/EXTRACTION.md's "Methods" section and
# the template-svm method agree on its options: every `key=` the section
# names is accepted by `pagesift --options key=value` (the section names
# template-svm's options only), and every key the method knows (its
# "known: ..." list on an unknown key) is in the section.
# (grid_rescue was documented but refused: the passes overwrote its slot.)
set -uo pipefail
src=${PS_SOURCE_DIR:?}
page=$src/datasets/sample/html/dragnet-14.html
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
section=$(awk '/^## Methods/ {on = 1; next} /^## / {on = 0} on' "$src/docs/EXTRACTION.md")
documented=$(grep -oE '[a-z_]{3,}=' <<< "$section" | tr -d '=' | sort -u)
[ -n "$documented" ] || fail "no option found in docs/EXTRACTION.md's Methods section"
pagesift --options no_such_option=1 "$page" > /dev/null 2> "$tmp/err" && fail "an unknown option was accepted"
known=$(sed -n 's/.*(known: \(.*\)).*/\1/p' "$tmp/err" | tr -d ' ' | tr ',' '\n' | sort -u)
[ -n "$known" ] || fail "no 'known:' list in: $(cat "$tmp/err")"
for k in $known; do
    grep -qx "$k" <<< "$documented" || fail "option $k is not documented in docs/EXTRACTION.md (Methods)"
done
n=0
for k in $documented; do
    v=0
    [ "$k" = favor ] && v=balanced
    pagesift -q --options "$k=$v" "$page" > /dev/null 2> "$tmp/err" || fail "--options $k=$v refused: $(cat "$tmp/err")"
    n=$((n + 1))
done
echo "ok: $n options of template-svm documented and accepted"
