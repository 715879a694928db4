#!/usr/bin/env bash
# tests/cli/method_options.sh — docs/EXTRACTION.md's "Methods" section and
# the option table of svm and template-svm agree (`pagesift --options help`
# prints the table, methods/method_options.c): every key of the table is in
# the section and every `key=` the section names is in the table; where the
# section says "(default V)" V is the table's default; every option given
# its table default changes no output (the table's defaults are the
# method's); a flag that sets an option (--favor, --with-comments,
# --no-tables) wins over --options, and its error names the flag, the
# option and what the option accepts.
# (grid_rescue was documented but refused: the passes overwrote its slot.)
set -uo pipefail
src=${PS_SOURCE_DIR:?}
page=$src/datasets/sample/html/dragnet-14.html
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
section=$(awk '/^## Methods/ {on = 1; next} /^## / {on = 0} on' "$src/docs/EXTRACTION.md" | tr '\n' ' ')
documented=$(grep -oE '[a-z_]{3,}=' <<< "$section" | tr -d '=' | sort -u)
[ -n "$documented" ] || fail "no option found in docs/EXTRACTION.md's Methods section"
pagesift --options help > "$tmp/help" || fail "pagesift --options help failed"
head -1 "$tmp/help" | grep -q '^Options of svm' || fail "--options help is not svm's: $(head -1 "$tmp/help")"
# the table: key, default ("" when the method decides)
sed -n 's/^  \([a-zA-Z_][a-zA-Z_]*\)  *[a-z0-9].*/\1/p' "$tmp/help" > "$tmp/keys"
known=$(sort -u "$tmp/keys")
[ "$(wc -l < "$tmp/keys")" -ge 20 ] || fail "fewer than 20 options in: $(cat "$tmp/help")"
pagesift --method template-svm --options help | tail -n +2 | cmp -s - <(tail -n +2 "$tmp/help") ||
    fail "template-svm's options are not svm's"
default_of() { sed -n "s/^  $1  .*(default \([^)]*\)).*/\1/p" "$tmp/help"; }
for k in $known; do
    grep -qx "$k" <<< "$documented" || fail "option $k is not documented in docs/EXTRACTION.md (Methods)"
done
for k in $documented; do
    grep -qx "$k" <<< "$known" || fail "docs/EXTRACTION.md (Methods) names $k=, which is not an option"
done
n=0
for k in $known; do
    def=$(default_of "$k")
    doc=$(grep -oE "\`$k=[^\`]*\` \(default [^ ,:;)]+" <<< "$section" | head -1 | sed 's/.*(default //')
    if [ -n "$def" ]; then
        [ -n "$doc" ] || fail "docs/EXTRACTION.md gives no '(default ...)' for $k= (the table's: $def)"
        awk -v a="$def" -v b="$doc" 'BEGIN { exit !(a == b || (a + 0 == b + 0 && a ~ /^[-0-9.]+$/ && b ~ /^[-0-9.]+$/)) }' ||
            fail "$k: docs/EXTRACTION.md says default $doc, the table $def"
        n=$((n + 1))
    fi
done
# each option at its default: the output of no option at all
pagesift -q --format jsonl "$page" > "$tmp/none.jsonl" || fail "pagesift failed"
for k in $known; do
    def=$(default_of "$k")
    [ -n "$def" ] || continue
    pagesift -q --format jsonl --options "$k=$def" "$page" > "$tmp/one.jsonl" 2> "$tmp/err" ||
        fail "--options $k=$def refused: $(cat "$tmp/err")"
    cmp -s "$tmp/none.jsonl" "$tmp/one.jsonl" || fail "--options $k=$def (the table's default) changed the output"
done
# unknown keys and bad values: the option and what it accepts
pagesift --options no_such_option=1 "$page" > /dev/null 2> "$tmp/err" && fail "an unknown option was accepted"
grep -q "unknown option 'no_such_option' (known: favor, threshold," "$tmp/err" || fail "unknown key: $(cat "$tmp/err")"
pagesift --options fill=300 "$page" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "--options fill=300: exit status is not 2"
grep -q "svm: option fill=300: expected a number in \[0, 100\]" "$tmp/err" || fail "fill=300: $(cat "$tmp/err")"
# the flags set options after --options, and name themselves in an error
pagesift -q --format jsonl --options favor=recall,comments=0 --favor precision --no-comments "$page" > "$tmp/a.jsonl" &&
    pagesift -q --format jsonl --favor precision "$page" > "$tmp/b.jsonl" || fail "--favor after --options failed"
cmp -s "$tmp/a.jsonl" "$tmp/b.jsonl" || fail "--favor / --no-comments did not win over --options"
pagesift -m punct-lines --with-comments "$page" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "--with-comments with punct-lines: exit status is not 2"
grep -q -- "--with-comments: punct-lines: unknown option 'comments' (known: p, closed," "$tmp/err" ||
    fail "--with-comments with punct-lines: $(cat "$tmp/err")"
pagesift -m punct-lines --options help | grep -q '^  scope  *one of site, global (default site): ' ||
    fail "punct-lines' options: $(pagesift -m punct-lines --options help)"
# the completion reads the table too
out=$(bash -c "source '$src/completion/pagesift.bash'
    COMP_WORDS=(pagesift --options grid_mo); COMP_CWORD=2; _pagesift_tools; printf '%s\n' \"\${COMPREPLY[@]}\"")
[[ $out == *grid_model=* && $out == *grid_model_gate=* ]] || fail "completion of --options grid_mo gives '$out'"
out=$(bash -c "source '$src/completion/pagesift.bash'
    COMP_WORDS=(pagesift --favor re); COMP_CWORD=2; _pagesift_tools; printf '%s\n' \"\${COMPREPLY[@]}\"")
[[ $out == recall ]] || fail "completion of --favor re gives '$out'"
echo "ok: $(wc -l < "$tmp/keys") options of svm and template-svm documented, $n defaults as the table's"
