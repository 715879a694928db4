#!/usr/bin/env bash
# tests/cli/public_headers.sh — every public header (include/pagesift.h,
# include/pagesift/*.h) compiles on its own and with all the others, as C99
# with -pedantic-errors and as C++11 (no typedef declared twice, nothing it
# needs left to another header), and pagesift.h, the runtime's header, stays
# under 500 lines (issue 29).
set -u
src=${PS_SOURCE_DIR:?}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
headers=(pagesift.h)
for h in "$src"/include/pagesift/*.h; do headers+=("pagesift/${h##*/}"); done
for h in "${headers[@]}"; do
    printf '#include <%s>\nint main(void) { return 0; }\n' "$h" > "$t/one.c"
    cc -std=c99 -pedantic-errors -Wall -Wextra -Werror -I "$src/include" -c "$t/one.c" -o "$t/one.o" 2> "$t/err" ||
        fail "<$h> alone, C99: $(head -5 "$t/err")"
done
{ for h in "${headers[@]}"; do echo "#include <$h>"; done; echo 'int main(void) { return 0; }'; } > "$t/all.c"
cc -std=c99 -pedantic-errors -Wall -Wextra -Werror -I "$src/include" -c "$t/all.c" -o "$t/all.o" 2> "$t/err" ||
    fail "every header together, C99: $(head -5 "$t/err")"
if command -v c++ >/dev/null; then
    cp "$t/all.c" "$t/all.cc"
    c++ -std=c++11 -pedantic-errors -Wall -Werror -I "$src/include" -c "$t/all.cc" -o "$t/all.o" 2> "$t/err" ||
        fail "every header together, C++11: $(head -5 "$t/err")"
fi
lines=$(wc -l < "$src/include/pagesift.h")
[[ $lines -lt 500 ]] || fail "include/pagesift.h has $lines lines: 500 or more"
echo "ok: ${#headers[@]} public headers compile alone and together (C99, C++11); pagesift.h $lines lines"
