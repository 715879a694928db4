#!/usr/bin/env bash
# --dedup over data sets given twice (issue 31: "drops exactly the second
# copies"): the first copy's records are those of a --dedup run over one
# copy, byte for byte (duplicates inside the sets included: readability's
# test pages share their lorem ipsum, l3s-gn1 holds stories re-published on
# several sites), and every record of the second copy is a duplicate — of
# the same page (0 bits) when the first copy kept it, else of a page at most
# as far as the first copy's (empty and failed pages have no text: they stay
# what they were).  -j 2 writes what -j 1 writes.  Skipped
# without ../shared/datasets.
set -euo pipefail
shared=${PS_SHARED_DIR:-}
sets=()
for s in l3s-gn1 readability netease; do
  [ -d "$shared/datasets/$s" ] && sets+=("$shared/datasets/$s")
done
[ ${#sets[@]} -eq 3 ] || { echo "SKIP: ../shared/datasets not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

pagesift -q --dedup -f jsonl -j 2 "${sets[@]}" > "$tmp/once.jsonl"
pagesift --dedup -f jsonl -j 2 "${sets[@]}" "${sets[@]}" > "$tmp/twice.jsonl" 2> "$tmp/err"
pagesift -q --dedup -f jsonl -j 1 "${sets[@]}" "${sets[@]}" | cmp -s - "$tmp/twice.jsonl" || fail "-j 1 differs from -j 2"
/usr/bin/python3 - "$tmp/once.jsonl" "$tmp/twice.jsonl" "$tmp/err" <<'PY'
import json, re, sys
once = open(sys.argv[1], "rb").read().splitlines()
twice = open(sys.argv[2], "rb").read().splitlines()
n = len(once)
assert len(twice) == 2 * n, (len(twice), n)
assert twice[:n] == once, "the first copy is not a run over one copy"
first = [json.loads(l) for l in once]
second = [json.loads(l) for l in twice[n:]]
within = sum(r["status"] == "duplicate" for r in first)
textless = sum(r["status"] in ("empty", "failed") for r in first)  # no text: never duplicates
for a, b in zip(first, second):
    if a["status"] in ("empty", "failed"):
        assert b["status"] == a["status"], (a["id"], b["status"])
        continue
    assert b["status"] == "duplicate", (b["id"], b["status"])
    if a["status"] == "ok":
        assert (b["duplicate_of"], b["duplicate_distance"]) == (a["id"], 0), (a["id"], b["duplicate_of"])
    else:
        assert a["status"] == "duplicate" and b["duplicate_distance"] <= a["duplicate_distance"], (a, b)
m = re.search(r"(\d+) records read: (\d+) extracted, (\d+) empty, (\d+) failed, (\d+) skipped, (\d+) duplicates",
              open(sys.argv[3]).read())
read, ext, empty, failed, skipped, dup = map(int, m.groups())
assert read == ext + empty + failed + skipped + dup, m.group(0)
assert dup == n - textless + within, (dup, n, textless, within)
print("%d pages per copy: %d duplicates inside the sets, %d of the second copy (%d empty or failed)"
      % (n, within, n - textless, textless))
PY
echo OK
