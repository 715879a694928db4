#!/usr/bin/env bash
# tests/cli/install_prefix.sh — `cmake --install BUILD --prefix P` into a
# temporary prefix chosen at install time gives a working install, with
# nothing else moved: P/bin/pagesift finds libpagesift.so.0 (RPATH) and the
# shipped model under P (not the source tree: a broken model there is
# reported by its P path, a missing one with where it was looked for and how
# to pass one); the man pages open with `man -l`; bash completion is there;
# the benchmark program is not installed; a small C program compiles with
# `pkg-config --cflags --libs pagesift` against P and runs; and the whole
# prefix still works after being moved elsewhere (relocatable).
set -uo pipefail
src=${PS_SOURCE_DIR:?}
bin=${PS_BINARY_DIR:?}
page=$src/datasets/sample/html/dragnet-14.html
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
P=$tmp/prefix
cmake --install "$bin" --prefix "$P" > "$tmp/install.log" 2>&1 || fail "cmake --install: $(cat "$tmp/install.log")"
# outside the build: no build folder on PATH, no library path
export PATH=/usr/bin:/bin
unset LD_LIBRARY_PATH PAGESIFT_MODEL
cd "$tmp"

# --- the program runs from the prefix -------------------------------------
[[ -x $P/bin/pagesift ]] || fail "no P/bin/pagesift"
[[ ! -e $P/bin/pagesift-bench-methods ]] || fail "the benchmark program is installed"
"$P/bin/pagesift" --version | grep -q '^pagesift [0-9]' || fail "P/bin/pagesift --version"
"$P/bin/pagesift" "$page" > "$tmp/out.txt" 2> "$tmp/err" || fail "P/bin/pagesift on a page: $(cat "$tmp/err")"
grep -q "Transplanted lungs" "$tmp/out.txt" || fail "P/bin/pagesift: the headline is not in the text"
tools=$(find "$P/bin" -type f -name 'pagesift*' -printf '%f\n' | sort)
[[ $(wc -w <<< "$tools") -ge 8 ]] || fail "tools missing in $P/bin: $tools"
for t in $tools; do
    "$P/bin/$t" --version > /dev/null 2>&1 || fail "P/bin/$t --version does not run"
done

# --- the model is the prefix's, and a missing one says where it looked ----
model=$P/share/pagesift/models/default.model
[[ -f $model ]] || fail "no $model"
mv "$model" "$tmp/saved.model"
printf 'not a model\n' > "$model"
"$P/bin/pagesift" "$page" > /dev/null 2> "$tmp/err"; rc=$?
[[ $rc == 3 ]] || fail "broken installed model: exit $rc, want 3"
grep -qF "$model" "$tmp/err" || fail "broken installed model: the error does not name $model: $(cat "$tmp/err")"
rm "$model"
"$P/bin/pagesift" "$page" > /dev/null 2> "$tmp/err"; rc=$?
[[ $rc == 3 ]] || fail "no installed model: exit $rc, want 3"
grep -qF "looked at $model" "$tmp/err" || fail "no model: the message does not say where it looked: $(cat "$tmp/err")"
grep -q -- "--model FILE or PAGESIFT_MODEL=FILE" "$tmp/err" || fail "no model: no hint how to pass one: $(cat "$tmp/err")"
"$P/bin/pagesift-eval" -q -d "$src/datasets/sample" -m svm > /dev/null 2> "$tmp/err"; rc=$?
[[ $rc == 3 ]] && grep -qF "pagesift-eval: no model found: looked at $model" "$tmp/err" ||
    fail "pagesift-eval without a model: exit $rc, $(cat "$tmp/err")"
PAGESIFT_MODEL=$tmp/saved.model "$P/bin/pagesift" "$page" > "$tmp/env.txt" || fail "PAGESIFT_MODEL not used"
cmp -s "$tmp/env.txt" "$tmp/out.txt" || fail "PAGESIFT_MODEL: another text"
mv "$tmp/saved.model" "$model"

# --- man pages and completion ---------------------------------------------
for t in $tools; do
    m=$P/share/man/man1/$t.1
    [[ -f $m ]] || fail "no man page $m"
    MANPAGER=cat MANWIDTH=80 man -l "$m" > "$tmp/man.txt" 2> "$tmp/err" || fail "man -l $m: $(cat "$tmp/err")"
    grep -q "^NAME" "$tmp/man.txt" || fail "man -l $m: no NAME section"
    grep -q -- "--help" "$tmp/man.txt" || fail "man -l $m: the options are missing"
    [[ -f $P/share/bash-completion/completions/$t ]] || fail "no bash completion for $t"
done
MANPAGER=cat MANWIDTH=100 man -l "$P/share/man/man1/pagesift.1" > "$tmp/man.txt" 2>&1
grep -q -- "--with-comments" "$tmp/man.txt" || fail "the pagesift man page lacks an option of its --help"
# the completion offers the tool's options
out=$(bash -c "source '$P/share/bash-completion/completions/pagesift'
    PATH='$P/bin':\$PATH; COMP_WORDS=(pagesift --for); COMP_CWORD=1; _pagesift_tools
    printf '%s\n' \"\${COMPREPLY[@]}\"")
[[ $out == *--format* ]] || fail "bash completion of --for gives '$out'"

# --- a program built with pkg-config against the prefix -------------------
cat > "$tmp/prog.c" <<'C'
#include <pagesift.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    (void)argc;
    ps_init();
    printf("%s\n%s\n", ps_version(), ps_model_default_path());
    return strcmp(ps_model_default_path(), argv[1]) != 0;
}
C
export PKG_CONFIG_PATH=$P/lib/pkgconfig
pkg-config --exists pagesift || fail "pkg-config does not find pagesift in $P"
[[ $(pkg-config --variable=includedir pagesift) -ef $P/include ]] ||
    fail "pkg-config includedir $(pkg-config --variable=includedir pagesift) is not $P/include"
pkg-config --static --libs pagesift | grep -q -- "-lsvm" || fail "pkg-config --static lacks -lsvm"
# a sanitizer build's library (PS_SANITIZE) needs a program built with the sanitizer too
san=()
[[ $(ldd "$P/lib/libpagesift.so" 2>/dev/null) == *libasan* ]] && san=(-fsanitize=address,undefined)  # no `| grep -q` under pipefail (SIGPIPE)
# shellcheck disable=SC2046
cc "${san[@]}" -o "$tmp/prog" "$tmp/prog.c" $(pkg-config --cflags --libs pagesift) 2> "$tmp/err" ||
    fail "cc with pkg-config: $(cat "$tmp/err")"
LD_LIBRARY_PATH=$(pkg-config --variable=libdir pagesift) "$tmp/prog" "$model" > "$tmp/prog.out" 2> "$tmp/err" ||
    fail "the program does not find the installed model: $(cat "$tmp/prog.out" "$tmp/err")"

# --- the prefix moved elsewhere still works -------------------------------
mv "$P" "$tmp/moved"
"$tmp/moved/bin/pagesift" "$page" > "$tmp/moved.txt" 2> "$tmp/err" || fail "moved prefix: $(cat "$tmp/err")"
cmp -s "$tmp/moved.txt" "$tmp/out.txt" || fail "moved prefix: another text"
PKG_CONFIG_PATH=$tmp/moved/lib/pkgconfig pkg-config --variable=includedir pagesift | grep -q "$tmp/moved" ||
    fail "pagesift.pc is not relocatable"
echo "install_prefix: ok"
