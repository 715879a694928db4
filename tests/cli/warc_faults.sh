#!/usr/bin/env bash
# scripts/warc-faults, a small run (issue 32, defect 4): the sample WARC
# (scripts/make-warc on datasets/sample, 22 records) damaged at records 1, 5
# and 21 by every fault (absurd, long, short and unreadable Content-Length,
# 5 000 garbage bytes after the record or between gzip members, scrambled
# deflate data, a gzip member cut in half, the file cut at the record's end
# and in its middle), plain and gzip: each copy must keep records read =
# extracted + empty + failed + skipped, one JSON record per record read not
# skipped, and every record the fault did not touch with its clean status.
# Before: an absurd length or garbage between members ended the file.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$src/scripts/make-warc" -o "$tmp/s.warc.gz" "$src/datasets/sample" 2>/dev/null
python3 "$src/scripts/warc-faults" --pagesift "$(command -v pagesift)" --records 1,5,21 "$tmp/s.warc.gz" > "$tmp/out" || {
    grep -E 'FAIL|damaged files' "$tmp/out"; echo "FAIL: warc-faults"; exit 1; }
tail -1 "$tmp/out"
grep -q '^warc-faults: 48 damaged files, 0 failing' "$tmp/out" || { tail -3 "$tmp/out"; echo "FAIL: not 48 files checked"; exit 1; }
echo "PASS"
