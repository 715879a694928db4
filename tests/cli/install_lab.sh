#!/usr/bin/env bash
# tests/cli/install_lab.sh — the research library installs beside the
# runtime: `cmake --install BUILD --prefix P` puts libpagesift-lab.so.0 in
# P/lib, pagesift-lab.pc in P/lib/pkgconfig (relocatable, requiring
# pagesift), pagesift/lab.h and the research headers in P/include; a small
# C program over both libraries compiles with `pkg-config --cflags --libs
# pagesift-lab` and runs; the research tools run from P/bin, and the moved
# prefix still works.  (install_prefix.sh checks the runtime's install.)
set -uo pipefail
src=${PS_SOURCE_DIR:?}
bin=${PS_BINARY_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }
P=$tmp/prefix
cmake --install "$bin" --prefix "$P" > "$tmp/install.log" 2>&1 || fail "cmake --install: $(cat "$tmp/install.log")"
export PATH=/usr/bin:/bin
unset LD_LIBRARY_PATH PAGESIFT_MODEL PAGESIFT_LIBRARY PAGESIFT_LAB_LIBRARY
cd "$tmp"

[[ -e $P/lib/libpagesift-lab.so.0 ]] || fail "no P/lib/libpagesift-lab.so.0"
for h in lab.h tokens.h labels.h train.h eval.h annotate.h template_eval.h; do
    [[ -f $P/include/pagesift/$h ]] || fail "no P/include/pagesift/$h"
done
# the research tools run from the prefix (they find both libraries)
for t in pagesift-train pagesift-eval pagesift-features pagesift-annotate; do
    "$P/bin/$t" --version > /dev/null 2> "$tmp/err" || fail "P/bin/$t --version: $(cat "$tmp/err")"
done
readelf -d "$P/bin/pagesift" | grep -q libpagesift-lab && fail "P/bin/pagesift links libpagesift-lab"

export PKG_CONFIG_PATH=$P/lib/pkgconfig
pkg-config --exists pagesift-lab || fail "pkg-config does not find pagesift-lab in $P"
libs=$(pkg-config --libs pagesift-lab)
[[ " $libs " == *" -lpagesift-lab "* && " $libs " == *" -lpagesift "* ]] ||
    fail "pkg-config --libs pagesift-lab gives '$libs': want -lpagesift-lab and -lpagesift"
pkg-config --static --libs pagesift-lab | grep -q -- "-lcsv" || fail "pkg-config --static pagesift-lab lacks -lcsv"

cat > "$tmp/lab.c" <<'C'
#include <pagesift/lab.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
    const char *gold = "Rivers of the Alps feed the plains", *out = "Rivers of the Alps";
    ps_token *t = NULL;
    size_t n = ps_tokenize(gold, strlen(gold), &t);
    free(t);
    ps_match m;
    if (ps_shingle_match(out, strlen(out), gold, strlen(gold), 1, PS_TOKENS_WORD, &m) != 0)
        return 1;
    printf("%s %zu %llu %llu\n", ps_version(), n, (unsigned long long)m.tp, (unsigned long long)m.fn);
    return 0;
}
C
san=()
[[ $(ldd "$P/lib/libpagesift.so" 2>/dev/null) == *libasan* ]] && san=(-fsanitize=address,undefined)
# shellcheck disable=SC2046
cc "${san[@]}" -o "$tmp/lab" "$tmp/lab.c" $(pkg-config --cflags --libs pagesift-lab) \
    -Wl,-rpath,"$(pkg-config --variable=libdir pagesift-lab)" 2> "$tmp/err" ||
    fail "cc with pkg-config pagesift-lab: $(cat "$tmp/err")"
"$tmp/lab" > "$tmp/lab.out" 2> "$tmp/err" || fail "the lab program: $(cat "$tmp/err")"
grep -qE '^[0-9.]+ 7 4 3$' "$tmp/lab.out" || fail "the lab program printed $(cat "$tmp/lab.out")"

mv "$P" "$tmp/moved"
"$tmp/moved/bin/pagesift-eval" --version > /dev/null 2> "$tmp/err" || fail "moved prefix: pagesift-eval: $(cat "$tmp/err")"
PKG_CONFIG_PATH=$tmp/moved/lib/pkgconfig pkg-config --variable=libdir pagesift-lab | grep -q "$tmp/moved" ||
    fail "pagesift-lab.pc is not relocatable"
echo "install_lab: ok"
