#!/usr/bin/env bash
# tests/cli/library_boundary.sh — libpagesift.so exports exactly the calls
# and data its public headers (include/pagesift.h, include/pagesift/*.h)
# declare with PS_EXPORT, nothing internal; and every tool includes only
# public headers.
set -u
src=${PS_SOURCE_DIR:?}; bin=${PS_BINARY_DIR:?}
lib=$(ls "$bin"/libpagesift.so 2>/dev/null) || { echo "SKIP: no libpagesift.so in $bin"; exit 77; }
command -v nm >/dev/null || { echo "SKIP: nm (binutils) not installed"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# names declared with PS_EXPORT: the identifier before the '(' of a call, or
# the last identifier before '[' / ';' of data (declarations may span lines)
cat "$src"/include/pagesift.h "$src"/include/pagesift/*.h |
  awk '/^(extern )?PS_EXPORT/ { decl = $0; while (decl !~ /[;{]/ && (getline l) > 0) decl = decl " " l; print decl }' |
  sed -E 's/\(.*//; s/\[.*//; s/;.*//' | grep -oE '[A-Za-z_][A-Za-z0-9_]*$' | sort -u > "$t/declared"
# every call a public header declares carries PS_EXPORT (without it the
# call is hidden and programs fail to link: add PS_EXPORT before it)
bare=$(cat "$src"/include/pagesift.h "$src"/include/pagesift/*.h |
  grep -nE '^[a-z].*\(' | grep -vE '^[0-9]+:(typedef|static|extern "C"|struct [a-z_]+;)' | grep -v PS_EXPORT || true)
[[ -z $bare ]] || fail "public declarations without PS_EXPORT: $bare"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVi]$/ {print $3}' |
  grep -v '^__odr_asan\.' | sort -u > "$t/exported" # ASan's marker of exported data
[[ $(wc -l < "$t/declared") -gt 100 ]] || fail "could not read the public declarations ($(wc -l < "$t/declared"))"
extra=$(comm -13 "$t/declared" "$t/exported")
[[ -z $extra ]] || fail "exported but not declared public: $(echo $extra)"
missing=$(comm -23 "$t/declared" "$t/exported")
[[ -z $missing ]] || fail "declared PS_EXPORT but not exported (not defined in the library?): $(echo $missing)"

# tools: only <system> headers, public ones and tools/cli.h (header-only,
# over the public API: what every tool does the same way on its command line)
bad=$(grep -nE '^#include "' "$src"/tools/*.c | grep -vE '"pagesift(/[a-z_]+)?\.h"|"cli\.h"' || true)
bad+=$(grep -nE '^#include "' "$src"/tools/cli.h | grep -vE '"pagesift(/[a-z_]+)?\.h"' || true)
[[ -z $bad ]] || fail "a tool includes an internal header: $bad"
echo "ok: $(wc -l < "$t/exported") symbols exported, all declared public"
