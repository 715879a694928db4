#!/usr/bin/env bash
# tests/cli/one_call_api.sh — the C example of the README (ps_sift: bytes
# in, text out) compiles with `pkg-config --cflags --libs pagesift` against
# an installed prefix (cmake --install --prefix) and prints, for every page
# of the bundled sample, the same text and title as `pagesift PAGE`.
#
# The install is relocatable (issue 16: pagesift.pc relative to its own
# folder, the shipped model found beside the library), so the test uses the
# prefix as installed: PKG_CONFIG_PATH names its pkgconfig folder and
# LD_LIBRARY_PATH its lib folder (the example has no RPATH), nothing else.
set -u
src=${PS_SOURCE_DIR:?}; bin=${PS_BINARY_DIR:?}
command -v pagesift >/dev/null || { echo "SKIP: pagesift not on PATH"; exit 77; }
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config not installed"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$bin" --prefix "$t/prefix" >/dev/null 2>"$t/err" || fail "install: $(cat "$t/err")"
pc=$(find "$t/prefix" -name pagesift.pc | head -1)
[[ -n $pc ]] || fail "no pagesift.pc installed"
libdir=$(dirname "$(dirname "$pc")")
[[ -f $t/prefix/include/pagesift.h && -f $t/prefix/include/pagesift/util.h ]] || fail "public headers not installed"
model=$(find "$t/prefix" -name default.model | head -1)
[[ -n $model ]] || fail "the shipped model was not installed"

# the example, exactly as the README shows it
awk '/<!-- example: tests\/cli\/one_call_api.sh/ {on = 1; next} on && /^```c/ {code = 1; next}
     code && /^```/ {exit} code {print}' "$src/README.md" > "$t/sift.c"
lines=$(wc -l < "$t/sift.c")
(( lines >= 10 && lines <= 20 )) || fail "README example not found or not short ($lines lines)"
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs pagesift) || fail "pkg-config --cflags --libs pagesift failed"
san=()   # a sanitizer build's library needs the program built with the same runtime
# (a string test, as in pagesift_oom.sh: `ldd | grep -q` there died of SIGPIPE
# under pipefail now and then)
[[ $(ldd "$libdir"/libpagesift.so 2>/dev/null) == *libasan* ]] && san=(-fsanitize=address,undefined)
cc -std=c11 -Wall -Wextra -Werror "${san[@]}" "$t/sift.c" $flags -o "$t/sift" 2>"$t/err" || fail "compile: $(cat "$t/err")"

# the command line the example's first line gives (rpath: no LD_LIBRARY_PATH
# needed to run it; issue 31: built as the README said, it did not find
# libpagesift.so.0)
cmd=$(head -1 "$t/sift.c" | sed -n 's|^/\* \(cc sift\.c .*\) \*/$|\1|p')
[[ $cmd == "cc sift.c "*"-o sift" ]] || fail "the example's first line is not its command: $(head -1 "$t/sift.c")"
mkdir "$t/own" && cp "$t/sift.c" "$t/own/"
( cd "$t/own" && cc() { command cc "${san[@]}" "$@"; } && eval "$cmd" ) 2> "$t/err" || fail "the example's command: $(cat "$t/err")"
env -u LD_LIBRARY_PATH -u PAGESIFT_MODEL "$t/own/sift" < "$src/datasets/sample/html/dragnet-14.html" > "$t/own.txt" 2> "$t/err" ||
    fail "the example built by its own command does not run without LD_LIBRARY_PATH: $(cat "$t/err")"
[[ -s $t/own.txt ]] || fail "the example built by its own command gives no text"

export LD_LIBRARY_PATH=$libdir
unset PAGESIFT_MODEL  # found beside the library
n=0
for page in "$src"/datasets/sample/html/*.html; do
    "$t/sift" < "$page" > "$t/got.txt" 2> "$t/got.err" || fail "sift on $page: $(cat "$t/got.err")"
    pagesift -q "$page" > "$t/want.txt" || fail "pagesift on $page"
    cmp -s "$t/got.txt" "$t/want.txt" || fail "$page: text differs from pagesift's"
    want_title=$(pagesift -q --format jsonl "$page" |
        /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["title"] or "")')
    [[ "$(head -1 "$t/got.err")" == "title: $want_title" ]] ||
        fail "$page: title '$(head -1 "$t/got.err")' is not pagesift's '$want_title'"
    n=$((n + 1))
    [[ -s $t/got.txt ]] || [[ ! -s $t/want.txt ]] || fail "$page: empty text"
done
(( n > 0 )) || fail "no sample pages"
# a missing model is a clear error, not a crash
PAGESIFT_MODEL=$t/none.model "$t/sift" < "$page" > /dev/null 2> "$t/err" && fail "no model: should fail"
grep -q "none.model" "$t/err" || fail "no model: the error does not name the file: $(cat "$t/err")"
grep -q -- "--" "$t/err" && fail "the library's error names a command-line flag: $(cat "$t/err")"
echo "ok: $n sample pages, the README example gives pagesift's text"
