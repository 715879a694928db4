#!/usr/bin/env bash
# tests/cli/pagesift_failures.sh — no record vanishes: an output file that
# cannot be written fails that record and the run goes on (or stops with
# --fail-fast), the summary counts it failed; a page that fails on a rerun
# removes its old ID.txt; --skip-existing resumes a run; --page-timeout fails
# a page past it; --max-bytes -1 / too large / overflowing are usage errors.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample/html
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$tmp/in"
cp "$sample/dragnet-14.html" "$tmp/in/a.html"
cp "$sample/dragnet-R121.html" "$tmp/in/b.html"
cp "$sample/netease-3.html" "$tmp/in/c.html"

# --- sizes: -1 was "no cap" (strtoull), 16E overflowed silently -------------
for bad in -1 0 16E 99999999999999999999 2G 1.5M 10x; do
    pagesift --max-bytes "$bad" "$tmp/in/a.html" > /dev/null 2>&1
    [[ $? == 2 ]] || fail "--max-bytes $bad is not a usage error"
done
pagesift --max-bytes 1G -q "$tmp/in/a.html" > /dev/null || fail "--max-bytes 1G refused"
for bad in -1 abc 1e9; do
    pagesift --page-timeout "$bad" "$tmp/in/a.html" > /dev/null 2>&1
    [[ $? == 2 ]] || fail "--page-timeout $bad is not a usage error"
done

# --- a write that fails: that record fails, the run goes on -----------------
mkdir -p "$tmp/out/b.txt"   # a folder in the way of b's output file
pagesift -j 1 -o "$tmp/out" "$tmp/in" 2> "$tmp/err.txt"
rc=$?
[[ $rc == 1 ]] || fail "exit $rc with a record that could not be written (want 1)"
grep -q "1 failed" "$tmp/err.txt" || fail "summary does not count the unwritten record: $(tail -1 "$tmp/err.txt")"
grep -q "2 extracted" "$tmp/err.txt" || fail "summary: $(tail -1 "$tmp/err.txt")"
grep -q "b.txt" "$tmp/err.txt" || fail "the failed write is not named"
[[ -s $tmp/out/a.txt && -s $tmp/out/c.txt ]] || fail "the pages after the failed write are missing"
# --fail-fast: stops there, exit 1
rm -f "$tmp/out/a.txt" "$tmp/out/c.txt"
pagesift -j 1 --fail-fast -o "$tmp/out" "$tmp/in" 2> "$tmp/err.txt"
[[ $? == 1 ]] || fail "--fail-fast: exit not 1"
grep -q "fail-fast" "$tmp/err.txt" || fail "--fail-fast: no message"
[[ -e $tmp/out/c.txt ]] && fail "--fail-fast went on past the failed write"
rmdir "$tmp/out/b.txt"

# --- stream output that cannot be written: exit 1, said ---------------------
if [[ -w /dev/full ]]; then
    pagesift -j 1 --format jsonl "$tmp/in" > /dev/full 2> "$tmp/err.txt"
    [[ $? == 1 ]] || fail "output to /dev/full: exit not 1"
    grep -q "cannot write the output" "$tmp/err.txt" || fail "output to /dev/full: not said"
    # small records: nothing reached the output, so nothing counts as
    # extracted (records held in stdio's buffer were counted extracted, then
    # lost: "5 extracted, 0 failed")
    mkdir "$tmp/small"
    for i in 1 2 3 4 5; do echo "<html><body><p>Short page $i with a sentence.</p></body></html>" > "$tmp/small/p$i.html"; done
    pagesift -j 1 --format jsonl "$tmp/small" > /dev/full 2> "$tmp/err.txt"
    grep -q "5 records read: 0 extracted, 0 empty, 5 failed" "$tmp/err.txt" ||
        fail "output to /dev/full: counts: $(tail -1 "$tmp/err.txt")"
fi

# --- a rerun where a page now fails removes its old ID.txt -------------------
pagesift -j 1 -q -o "$tmp/out" "$tmp/in" || fail "clean run failed"
[[ -s $tmp/out/b.txt ]] || fail "b.txt not written"
head -c 30000 "$(command -v pagesift)" > "$tmp/in/b.html"   # b is now binary: it fails
pagesift -j 1 -q -o "$tmp/out" "$tmp/in"
[[ -e $tmp/out/b.error ]] || fail "b.error not written"
[[ -e $tmp/out/b.txt ]] && fail "the old b.txt of a page that now fails is still there"
cp "$sample/dragnet-R121.html" "$tmp/in/b.html"
pagesift -j 1 -q -o "$tmp/out" "$tmp/in" || fail "third run failed"
[[ -s $tmp/out/b.txt && ! -e $tmp/out/b.error ]] || fail "b.error stays after b succeeds again"

# --- --skip-existing: resume ------------------------------------------------
rm "$tmp/out/c.txt"
pagesift -j 2 --skip-existing -o "$tmp/out" "$tmp/in" 2> "$tmp/err.txt" || fail "--skip-existing run failed"
grep -q "3 records read: 1 extracted, 0 empty, 0 failed, 2 skipped" "$tmp/err.txt" ||
    fail "--skip-existing: $(tail -1 "$tmp/err.txt")"
[[ -s $tmp/out/c.txt ]] || fail "--skip-existing did not write the missing page"
pagesift --skip-existing "$tmp/in/a.html" > /dev/null 2>&1
[[ $? == 2 ]] || fail "--skip-existing without --output-dir is not a usage error"

# --- --page-timeout: a page past it fails, the run goes on -------------------
pagesift -j 1 --page-timeout 0.000001 --format jsonl "$tmp/in" > "$tmp/t.jsonl" 2> /dev/null
[[ $? == 1 ]] || fail "--page-timeout: exit not 1"
[[ $(wc -l < "$tmp/t.jsonl") == 3 ]] || fail "--page-timeout: not one record per page"
[[ $(grep -c '"status":"failed".*time limit' "$tmp/t.jsonl") == 3 ]] || fail "--page-timeout: $(head -c 300 "$tmp/t.jsonl")"
pagesift -j 1 --page-timeout 0 -q --format jsonl "$tmp/in" > /dev/null || fail "--page-timeout 0 (no limit) failed"
echo ok
