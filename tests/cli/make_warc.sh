#!/usr/bin/env bash
# scripts/make-warc on datasets/sample, read back with pagesift-inputs: every
# page comes out of the WARC (plain, gzip, and gzip on stdin) with the same
# bytes as its html file, under a stable record id, with its URL; the
# warcinfo record is skipped; the JSON Lines output has one record per page;
# page files and folders of pages are taken too (--url-base).
set -euo pipefail
src=${PS_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sample=$src/datasets/sample
n=$(($(wc -l < "$sample/index.tsv") - 1))

python3 "$src/scripts/make-warc" -o "$tmp/s.warc.gz" --ids "$tmp/ids.tsv" --jsonl "$tmp/s.jsonl" "$sample"
python3 "$src/scripts/make-warc" -o "$tmp/s.warc" "$sample"
mkdir "$tmp/again"
python3 "$src/scripts/make-warc" -o "$tmp/again/s.warc.gz" "$sample"
cmp "$tmp/s.warc.gz" "$tmp/again/s.warc.gz" || { echo "FAIL: make-warc output differs between runs"; exit 1; }
[ "$(wc -l < "$tmp/ids.tsv")" -eq "$n" ] || { echo "FAIL: ids.tsv has not $n lines"; exit 1; }
[ "$(wc -l < "$tmp/s.jsonl")" -eq "$n" ] || { echo "FAIL: s.jsonl has not $n lines"; exit 1; }

check() { # $1: label, $2: folder of extracted pages, $3: listing
    local label=$1 dir=$2 listing=$3
    [ "$(grep -c '^ok' "$listing")" -eq "$n" ] || { echo "FAIL[$label]: not $n pages"; cat "$listing"; exit 1; }
    [ "$(grep -c '^skipped' "$listing")" -eq 1 ] || { echo "FAIL[$label]: warcinfo not skipped once"; exit 1; }
    ! grep -q '^failed' "$listing" || { echo "FAIL[$label]: failed records"; exit 1; }
    while IFS=$'\t' read -r uuid set id; do
        cmp "$dir/$uuid.html" "$sample/html/$id.html" || { echo "FAIL[$label]: $id differs"; exit 1; }
        url=$(awk -F'\t' -v id="$id" '$1 == id { print $2 }' "$sample/index.tsv")
        got=$(awk -F'\t' -v u="$uuid" '$2 == u { print $4 }' "$listing")
        [ "$got" = "$url" ] || { echo "FAIL[$label]: $id url '$got' != '$url'"; exit 1; }
    done < "$tmp/ids.tsv"
}

for f in s.warc s.warc.gz; do
    mkdir "$tmp/x-$f"
    pagesift-inputs -q -x "$tmp/x-$f" "$tmp/$f" > "$tmp/list-$f"
    check "$f" "$tmp/x-$f" "$tmp/list-$f"
done
mkdir "$tmp/x-stdin"
pagesift-inputs -q -x "$tmp/x-stdin" - < "$tmp/s.warc.gz" > "$tmp/list-stdin"
check stdin "$tmp/x-stdin" "$tmp/list-stdin"

pagesift-inputs -q --jsonl - < "$tmp/s.jsonl" > "$tmp/list-jsonl"
[ "$(grep -c '^ok' "$tmp/list-jsonl")" -eq "$n" ] || { echo "FAIL: JSON Lines pages"; exit 1; }

# page files and a folder of pages (issue 31: only data set folders were
# taken): URLs from --url-base and the relative path, other files left out
mkdir -p "$tmp/mirror/sub"
cp "$sample/html/dragnet-14.html" "$tmp/mirror/a.html"
cp "$sample/html/netease-3.html" "$tmp/mirror/sub/b.htm"
echo "not a page" > "$tmp/mirror/notes.txt"
python3 "$src/scripts/make-warc" -o "$tmp/m.warc.gz" --ids "$tmp/m.ids" --url-base https://example.org/ \
    "$tmp/mirror" "$sample/html/cleaneval-dev-4.html" 2>/dev/null
mkdir "$tmp/x-m"
pagesift-inputs -q -x "$tmp/x-m" "$tmp/m.warc.gz" > "$tmp/list-m"
[ "$(grep -c '^ok' "$tmp/list-m")" -eq 3 ] || { echo "FAIL: page files: $(cat "$tmp/list-m")"; exit 1; }
for pair in "a.html dragnet-14" "sub/b.htm netease-3" "cleaneval-dev-4.html cleaneval-dev-4"; do
    set -- $pair
    uuid=$(awk -F'\t' -v r="$1" '$3 == r { print $1 }' "$tmp/m.ids")
    cmp "$tmp/x-m/$uuid.html" "$sample/html/$2.html" || { echo "FAIL: page file $1 differs"; exit 1; }
    grep -q "https://example.org/$1" "$tmp/list-m" || { echo "FAIL: no URL for $1"; exit 1; }
done
if python3 "$src/scripts/make-warc" -o "$tmp/n.warc" "$tmp/nonexistent" 2>/dev/null; then
    echo "FAIL: a missing argument is not an error"; exit 1
fi
echo "ok: $n pages identical from plain, gzip and stdin WARC; page files and folders too"
