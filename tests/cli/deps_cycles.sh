#!/usr/bin/env bash
# tests/cli/deps_cycles.sh — no cycle in the include and call graph of the
# sources, between folders or between files (issue 29).
#
# The graph is derived from the sources and the build, nothing is listed by
# hand:
#   - includes: every `#include "X.h"` of a .c, .cc or .h file of the
#     library folders and tools/, resolved as the compiler does (beside the
#     file, then from the top of the source tree); an edge from the file to
#     the header.  Public headers (include/) are left out: they declare the
#     calls of many folders, and what a file calls through them is in the
#     call edges;
#   - calls: `nm` on the object files of this build's two libraries
#     (CMakeFiles/pagesift_objects.dir, pagesift_lab_objects.dir): an edge
#     from each object to the object that defines a symbol it leaves
#     undefined (functions and data).  The tools are programs of their own
#     (each has a main) and sit above everything: they are in the include
#     graph only.
# The file graph is these edges; the folder graph the same edges between
# the files' folders (edges inside a folder dropped).  Any cycle in either
# fails the test, printed with what makes each of its edges.
#
# An edge that cannot be removed yet is an allowed exception below,
# "FROM TO" (files or folders), with the reason in a comment.
set -u
src=${PS_SOURCE_DIR:?}; bin=${PS_BINARY_DIR:?}
command -v nm >/dev/null || { echo "SKIP: nm (binutils) not installed"; exit 77; }
objdirs=()
for d in "$bin"/CMakeFiles/pagesift_objects.dir "$bin"/CMakeFiles/pagesift_lab_objects.dir; do
    [[ -d $d ]] && objdirs+=("$d")
done
[[ ${#objdirs[@]} -eq 2 ]] || { echo "SKIP: no object folders of the libraries in $bin"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# allowed exceptions: edges dropped before the search, one per cycle still
# to break, each with its reason
allowed=(
    # none: every cycle the script found is broken (docs/ARCHITECTURE.md)
)

folders=(common extract templates features train methods output batch eval annotate tools)

# include edges: "include FROM TO HEADER"
for dir in "${folders[@]}"; do
    for f in "$src/$dir"/*.c "$src/$dir"/*.cc "$src/$dir"/*.h; do
        [[ -e $f ]] || continue
        rel=${f#$src/}
        sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$f" | while read -r h; do
            if [[ -e $src/$dir/$h ]]; then to=$dir/$h
            elif [[ -e $src/$h ]]; then to=$h
            else continue # a public header (include/) or a system one
            fi
            to=$(realpath -m --relative-to="$src" "$src/$to")
            [[ $to == include/* ]] && continue
            echo "include $rel $to $h"
        done
    done
done > "$t/edges"
n_inc=$(wc -l < "$t/edges")

# call edges: "call FROM TO SYMBOL", from nm -A over every object
# (objects of sources that exist: a file moved leaves its old object behind)
find "${objdirs[@]}" -name '*.o' | sort | while read -r o; do
    rel=${o#"${objdirs[0]}"/}; rel=${rel#"${objdirs[1]}"/}
    [[ -e $src/${rel%.o} ]] && echo "$o"
done > "$t/objects"
n_obj=$(wc -l < "$t/objects")
[[ $n_obj -ge 50 ]] || fail "found only $n_obj object files under $bin/CMakeFiles"
# shellcheck disable=SC2046
nm -A $(cat "$t/objects") 2>/dev/null |
  awk -v pre1="${objdirs[0]}/" -v pre2="${objdirs[1]}/" '
    {
        file = $1; sub(/:[^:]*$/, "", file)
        if (index(file, pre1) == 1) file = substr(file, length(pre1) + 1)
        else if (index(file, pre2) == 1) file = substr(file, length(pre2) + 1)
        sub(/\.o$/, "", file)
        type = $(NF - 1); sym = $NF
        if (type == "U") { nu++; ufile[nu] = file; usym[nu] = sym }
        else if (type ~ /^[TDBRCVWGSi]$/) def[sym] = file
    }
    END {
        for (i = 1; i <= nu; i++)
            if ((usym[i] in def) && def[usym[i]] != ufile[i])
                print "call", ufile[i], def[usym[i]], usym[i]
    }' >> "$t/edges"
n_call=$(( $(wc -l < "$t/edges") - n_inc ))
[[ $n_inc -ge 100 ]] || fail "found only $n_inc include edges in $src"
[[ $n_call -ge 100 ]] || fail "found only $n_call call edges in the objects"

printf '%s\n' "${allowed[@]}" | { grep -v '^$' || true; } > "$t/allowed"

# cycles: for each node, the shortest path back to it (breadth first); a
# cycle is printed once, whichever node it was found from
cycles() { # LEVEL (file or folder)
    awk -v level="$1" -v allowed="$t/allowed" '
        function folder(f) { sub(/\/.*/, "", f); return f }
        BEGIN { while ((getline l < allowed) > 0) { split(l, a, " "); skip[a[1] SUBSEP a[2]] = 1 } }
        {
            from = $2; to = $3
            if (level == "folder") { from = folder(from); to = folder(to) }
            if (from == to) next
            if ((from SUBSEP to) in skip) { used[from SUBSEP to] = 1; next }
            why = ($1 == "include") ? $2 " includes " $4 : $2 " calls " $4 " (" $3 ")"
            if (!((from SUBSEP to) in edge)) {
                edge[from SUBSEP to] = why; out[from] = out[from] " " to
                node[from] = 1; node[to] = 1
            } else if (level == "folder" && n_why[from SUBSEP to] < 3) {
                edge[from SUBSEP to] = edge[from SUBSEP to] "; " why
            }
            n_why[from SUBSEP to]++
        }
        END {
            n = 0
            for (s in node) order[++n] = s
            for (i = 2; i <= n; i++) { # insertion sort: the same output every run
                v = order[i]; j = i - 1
                while (j > 0 && order[j] > v) { order[j + 1] = order[j]; j-- }
                order[j + 1] = v
            }
            found = 0
            for (k = 1; k <= n; k++) {
                s = order[k]
                split("", seen); split("", parent)
                head = 1; tail = 1; queue[1] = s; seen[s] = 1; back = ""
                while (head <= tail && back == "") {
                    u = queue[head++]
                    m = split(out[u], nb, " ")
                    for (x = 1; x <= m; x++) {
                        v = nb[x]
                        if (v == s) { back = u; break }
                        if (!(v in seen)) { seen[v] = 1; parent[v] = u; queue[++tail] = v }
                    }
                }
                if (back == "") continue
                len = 0; v = back
                while (v != s) { path[++len] = v; v = parent[v] }
                path[++len] = s
                # the cycle from s: path reversed; its key is its members, sorted
                key = ""; for (i = len; i >= 1; i--) mem[len - i + 1] = path[i]
                split("", sorted); for (i = 1; i <= len; i++) sorted[i] = mem[i]
                for (i = 2; i <= len; i++) {
                    v = sorted[i]; j = i - 1
                    while (j > 0 && sorted[j] > v) { sorted[j + 1] = sorted[j]; j-- }
                    sorted[j + 1] = v
                }
                for (i = 1; i <= len; i++) key = key " " sorted[i]
                if (key in printed) continue
                printed[key] = 1; found++
                line = ""; for (i = 1; i <= len; i++) line = line mem[i] " -> "
                print level " cycle: " line s
                for (i = 1; i <= len; i++) {
                    nx = (i < len) ? mem[i + 1] : s
                    print "    " mem[i] " -> " nx ": " edge[mem[i] SUBSEP nx]
                }
            }
            for (e in skip) if (!(e in used)) {
                split(e, p, SUBSEP)
                if (level == "folder" ? (p[1] !~ /\//) : (p[1] ~ /\//))
                    print "note: the allowed exception " p[1] " -> " p[2] " is no longer needed"
            }
            exit (found > 0)
        }' "$t/edges"
}
status=0
cycles folder > "$t/folder" || status=1
cycles file > "$t/file" || status=1
cat "$t/folder" "$t/file"
[[ $status -eq 0 ]] || fail "cycles in the include and call graph (above)"
echo "ok: no cycle between folders or files ($n_inc include edges, $n_call call edges of $n_obj objects; ${#allowed[@]} allowed exceptions)"
