#!/usr/bin/env bash
# tests/cli/library_boundary.sh — the two libraries export exactly what
# their public headers declare, nothing internal, and the runtime stands
# apart from the workshop:
#   - libpagesift.so exports the calls and data include/pagesift.h and
#     include/pagesift/*.h declare with PS_EXPORT, libpagesift-lab.so those
#     declared with PS_LAB_EXPORT (the research headers, pagesift/lab.h);
#     every export of either is ps_-prefixed;
#   - a header declares for one library only, and pagesift/lab.h includes
#     every research header;
#   - libpagesift refers to nothing of libpagesift-lab, and no source of the
#     runtime includes a research header;
#   - pagesift, pagesift-dump and pagesift-inputs link libpagesift alone;
#   - every tool includes only public headers.
set -u
src=${PS_SOURCE_DIR:?}; bin=${PS_BINARY_DIR:?}
lib=$(ls "$bin"/libpagesift.so 2>/dev/null) || { echo "SKIP: no libpagesift.so in $bin"; exit 77; }
lab=$(ls "$bin"/libpagesift-lab.so 2>/dev/null) || { echo "SKIP: no libpagesift-lab.so in $bin"; exit 77; }
command -v nm >/dev/null || { echo "SKIP: nm (binutils) not installed"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
headers=("$src"/include/pagesift.h "$src"/include/pagesift/*.h)

# names declared with MARK: the identifier before the '(' of a call, or the
# last identifier before '[' / ';' of data (declarations may span lines)
declared() {
    cat "${headers[@]}" |
      awk -v mark="$1" '$0 ~ "^(extern )?" mark " " { decl = $0; while (decl !~ /[;{]/ && (getline l) > 0) decl = decl " " l; print decl }' |
      sed -E 's/\(.*//; s/\[.*//; s/;.*//' | grep -oE '[A-Za-z_][A-Za-z0-9_]*$' | sort -u
}
declared PS_EXPORT > "$t/declared"
declared PS_LAB_EXPORT > "$t/lab_declared"
[[ $(wc -l < "$t/declared") -gt 100 ]] || fail "could not read libpagesift's declarations ($(wc -l < "$t/declared"))"
[[ $(wc -l < "$t/lab_declared") -gt 30 ]] || fail "could not read libpagesift-lab's declarations ($(wc -l < "$t/lab_declared"))"
both=$(comm -12 "$t/declared" "$t/lab_declared")
[[ -z $both ]] || fail "declared for both libraries: $(echo $both)"

# every call a public header declares carries PS_EXPORT or PS_LAB_EXPORT
# (without it the call is hidden and programs fail to link)
bare=$(cat "${headers[@]}" |
  grep -nE '^[a-z].*\(' | grep -vE '^[0-9]+:(typedef|static|extern "C"|struct [a-z_]+;)' | grep -vE 'PS_(LAB_)?EXPORT' || true)
[[ -z $bare ]] || fail "public declarations without PS_EXPORT / PS_LAB_EXPORT: $bare"

# one library per header; lab.h includes every research header
for h in "$src"/include/pagesift/*.h; do
    if grep -qE '^(extern )?PS_LAB_EXPORT ' "$h"; then
        ! grep -qE '^(extern )?PS_EXPORT ' "$h" || fail "${h#$src/} declares for both libraries"
        grep -q "^#include \"pagesift/${h##*/}\"" "$src/include/pagesift/lab.h" ||
            fail "pagesift/lab.h does not include the research header ${h##*/}"
        echo "${h##*/}" >> "$t/lab_headers"
    fi
done

exported() {
    nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVi]$/ {print $3}' |
      grep -v '^__odr_asan\.' | sort -u # ASan's marker of exported data
}
check_library() { # LIBRARY DECLARED-LIST NAME
    exported "$1" > "$t/exported"
    notps=$(grep -v '^ps_' "$t/exported" || true)
    [[ -z $notps ]] || fail "$3 exports names without the ps_ prefix: $(echo $notps)"
    extra=$(comm -13 "$2" "$t/exported")
    [[ -z $extra ]] || fail "$3 exports what its headers do not declare: $(echo $extra)"
    missing=$(comm -23 "$2" "$t/exported")
    [[ -z $missing ]] || fail "declared for $3 but not exported by it (not defined there?): $(echo $missing)"
    wc -l < "$t/exported"
}
n_lib=$(check_library "$lib" "$t/declared" libpagesift) || { echo "$n_lib"; exit 1; }
n_lab=$(check_library "$lab" "$t/lab_declared" libpagesift-lab) || { echo "$n_lab"; exit 1; }

# the runtime refers to nothing of the workshop
undef=$(nm -D --undefined-only "$lib" | awk '{print $NF}' | grep '^ps_' || true)
[[ -z $undef ]] || fail "libpagesift needs calls it does not define: $(echo $undef)"
readelf -d "$lib" 2>/dev/null | grep -q 'libpagesift-lab' && fail "libpagesift links libpagesift-lab"
# ... nor does its source include a research header, directly or through
# another header (the compiler's -MM lists them; the research files of the
# runtime's folders are CMakeLists.txt's PS_LAB_FILES)
lab_files=$(sed -n '/^set(PS_LAB_FILES/,/)/p' "$src/CMakeLists.txt" | grep -oE '[a-z_]+/[a-z_]+\.c')
[[ -n $lab_files ]] || fail "could not read PS_LAB_FILES of CMakeLists.txt"
pattern=$( (sed 's/^/include\/pagesift\//' "$t/lab_headers"; echo include/pagesift/lab.h) | sed 's/\./\\./g' | paste -sd'|')
xml=$(pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
for dir in common extract templates features train methods output batch; do
    for f in "$src/$dir"/*.c "$src/$dir"/*.cc; do
        [[ -e $f ]] || continue
        rel=${f#$src/}
        grep -qx "$rel" <<< "$lab_files" && continue
        cc=cc; [[ $f == *.cc ]] && cc=c++
        # shellcheck disable=SC2086
        deps=$(cd "$src" && $cc -MM -I include -I . $xml "$rel" 2>&1) || fail "$cc -MM $rel: $deps"
        bad=$(tr ' \\' '\n\n' <<< "$deps" | grep -E "($pattern)\$" || true)
        [[ -z $bad ]] || fail "$rel (libpagesift) includes a research header: $(echo $bad)"
    done
done

# the runtime tools link the runtime alone
for tool in pagesift pagesift-dump pagesift-inputs; do
    [[ -x $bin/$tool ]] || fail "no $bin/$tool"
    readelf -d "$bin/$tool" | grep -q 'libpagesift-lab' && fail "$tool links libpagesift-lab"
done

# tools: only <system> headers, public ones and tools/cli.h (header-only,
# over the public API: what every tool does the same way on its command line)
bad=$(grep -nE '^#include "' "$src"/tools/*.c | grep -vE '"pagesift(/[a-z_]+)?\.h"|"cli\.h"' || true)
bad+=$(grep -nE '^#include "' "$src"/tools/cli.h | grep -vE '"pagesift(/[a-z_]+)?\.h"' || true)
[[ -z $bad ]] || fail "a tool includes an internal header: $bad"
echo "ok: libpagesift exports $n_lib symbols, libpagesift-lab $n_lab, all ps_ and declared in their headers; the runtime needs nothing of the lab"
