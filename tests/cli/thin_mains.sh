#!/usr/bin/env bash
# tests/cli/thin_mains.sh — every tool's main() stays under 150 lines
# (issue 29): the options, the run and the report are functions of their
# own, the work is in the libraries.
set -u
src=${PS_SOURCE_DIR:?}
long=$(awk 'FNR == 1 { start = 0 }
            /^int main\(/ { start = FNR }
            start && /^}/ { if (FNR - start + 1 > 150) print FILENAME ": main() is " FNR - start + 1 " lines"; start = 0 }' \
       "$src"/tools/*.c "$src"/bench/*.c)
[[ -z $long ]] || { echo "FAIL: over 150 lines:"; echo "$long"; exit 1; }
echo "ok: every main() of tools/ and bench/ is at most 150 lines"
