#!/usr/bin/env bash
# --dedup (issue 31): pages made of the sample's BBC gold texts in one
# template (tests/data/dedup/make-pages.py): the same article under another
# navigation and other ads is a duplicate (the same words), the same file
# again too, the article with one sentence changed is a near duplicate at
# the default distance (6) but not at 3, two other articles of the site are
# kept.  A duplicate is a record naming the kept page (JSON Lines, CSV, a
# line in text, ID.duplicate with -o); the summary's counts add up; -j 2
# writes what -j 1 writes; a resumed run (-o, --skip-existing) knows the
# pages written before; bad combinations are usage errors.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
/usr/bin/python3 "$src/tests/data/dedup/make-pages.py" "$tmp" "$src/datasets/sample/gold"
cp "$tmp/a1.html" "$tmp/c-copy.html"
pages=("$tmp/a1.html" "$tmp/b1.html" "$tmp/a2.html" "$tmp/a3.html" "$tmp/b2.html" "$tmp/c-copy.html")

# what each page is: id status duplicate_of duplicate_distance
statuses() {
  /usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    assert (r["status"] == "duplicate") == (r["duplicate_of"] is not None), r
    assert r["status"] != "duplicate" or (r["text"] is None and r["title"] is None), r
    print(r["id"], r["status"], r["duplicate_of"], r["duplicate_distance"])
' "$1"
}

pagesift --dedup -f jsonl -j 1 "${pages[@]}" > "$tmp/j1.jsonl" 2> "$tmp/err"
statuses "$tmp/j1.jsonl" > "$tmp/got"
cat > "$tmp/want" <<'W'
a1 ok None None
b1 ok None None
a2 duplicate a1 0
a3 duplicate a1 4
b2 ok None None
c-copy duplicate a1 0
W
diff "$tmp/want" "$tmp/got" || fail "duplicates at the default distance"
grep -q "6 records read: 3 extracted, 0 empty, 0 failed, 0 skipped, 3 duplicates" "$tmp/err" \
  || { cat "$tmp/err"; fail "summary"; }

# -j 2: the same bytes (the index is looked up in input order)
for i in 1 2 3; do
  pagesift -q --dedup -f jsonl -j 2 "${pages[@]}" > "$tmp/j2.jsonl"
  cmp -s "$tmp/j1.jsonl" "$tmp/j2.jsonl" || fail "-j 2 differs from -j 1"
done

# --dedup-distance 3: the changed sentence (4 bits) is kept; 0: the same words only
pagesift -q --dedup-distance 3 -f jsonl "${pages[@]}" > "$tmp/d3.jsonl"
statuses "$tmp/d3.jsonl" > "$tmp/s3"
grep -qx "a3 ok None None" "$tmp/s3" || fail "--dedup-distance 3 keeps a3"
pagesift -q --dedup-distance 0 -f jsonl "${pages[@]}" > "$tmp/d0.jsonl"
[ "$(statuses "$tmp/d0.jsonl" | grep -c duplicate)" -eq 2 ] || fail "--dedup-distance 0: a2 and c-copy only"
# without --dedup: every page has its text and the new keys are null
pagesift -q -f jsonl "${pages[@]}" > "$tmp/none.jsonl"
[ "$(statuses "$tmp/none.jsonl" | grep -c ' ok None None$')" -eq 6 ] || fail "without --dedup"

# CSV: the row of a duplicate names the kept page
pagesift -q --dedup -f csv "${pages[@]}" > "$tmp/out.csv"
/usr/bin/python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
got = [(r["id"], r["status"], r["duplicate_of"], r["duplicate_distance"], r["text"] == "") for r in rows]
assert got[3] == ("a3", "duplicate", "a1", "4", True), got
assert got[1] == ("b1", "ok", "", "", False), got
' "$tmp/out.csv" || fail "CSV"

# text on a stream of pages: a line says which page it duplicates
pagesift -q --dedup -f text "${pages[@]}" > "$tmp/out.txt"
grep -qx "==> a2 <== duplicate of a1" "$tmp/out.txt" || fail "text header line"
[ "$(grep -c "^==> " "$tmp/out.txt")" -eq 6 ] || fail "text: one header per page"
pagesift -q --dedup -f markdown "${pages[@]}" > "$tmp/out.md"
grep -qx "<!-- pagesift: c-copy duplicate of a1 -->" "$tmp/out.md" || fail "markdown comment"

# -o: kept pages' files, ID.duplicate for the others; a resumed run knows
# the pages written before (their index is DIR/.pagesift-dedup)
pagesift -q --dedup -o "$tmp/dir" "${pages[@]}"
ls "$tmp/dir" | sort | tr '\n' ' ' > "$tmp/files"
[ "$(cat "$tmp/files")" = "a1.txt a2.duplicate a3.duplicate b1.txt b2.txt c-copy.duplicate manifest.tsv " ] \
  || fail "-o files: $(cat "$tmp/files")"
# the manifest's line of a duplicate: its file, and the kept page in the note
[ "$(awk -F'\t' '$4 == "a3" {print $1 "|" $2 "|" $6}' "$tmp/dir/manifest.tsv")" = \
  "a3.duplicate|duplicate|duplicate of a1 (SimHash distance 4)" ] || fail "manifest: $(cat "$tmp/dir/manifest.tsv")"
grep -q "^duplicate of a1 (SimHash distance 4)$" "$tmp/dir/a3.duplicate" || fail "a3.duplicate: $(cat "$tmp/dir/a3.duplicate")"
[ "$(wc -l < "$tmp/dir/.pagesift-dedup")" -eq 3 ] || fail "index lines"
rm "$tmp/dir/a3.duplicate" "$tmp/dir/b2.txt"
pagesift --dedup --skip-existing -o "$tmp/dir" "${pages[@]}" 2> "$tmp/err2"
grep -q "6 records read: 1 extracted, 0 empty, 0 failed, 4 skipped, 1 duplicates" "$tmp/err2" \
  || { cat "$tmp/err2"; fail "resumed summary"; }
grep -q "^duplicate of a1 " "$tmp/dir/a3.duplicate" || fail "resumed: a3 is a1's duplicate again"
[ -f "$tmp/dir/b2.txt" ] && [ "$(wc -l < "$tmp/dir/.pagesift-dedup")" -eq 3 ] || fail "resumed: b2 kept, indexed once"
# a rerun without --skip-existing starts the index afresh: same files
pagesift -q --dedup -o "$tmp/dir" "${pages[@]}"
[ "$(ls "$tmp/dir" | sort | tr '\n' ' ')" = "$(cat "$tmp/files")" ] || fail "rerun files"
# a rerun without --dedup: the .duplicate files give way to the pages' own
pagesift -q -o "$tmp/dir" "${pages[@]}"
[ -f "$tmp/dir/a2.txt" ] && [ ! -e "$tmp/dir/a2.duplicate" ] || fail "rerun without --dedup"

# usage errors: exit 2
for bad in "--dedup --unordered" "--dedup-distance 9" "--dedup-distance x" "--dedup-distance -1"; do
  rc=0
  # shellcheck disable=SC2086
  pagesift $bad "${pages[@]}" > /dev/null 2> "$tmp/err3" || rc=$?
  [ "$rc" -eq 2 ] || fail "$bad: exit $rc"
  grep -q -- "--dedup" "$tmp/err3" || fail "$bad: message"
done
echo "OK"
