#!/usr/bin/env bash
# The grid model (docs/PAGE_TYPES.md, docs/MODEL_FORMAT.md "The grid
# model"): the shipped default.model has a companion default.grid.model,
# averaged in on pages typed listing, collection, service or forum (g >=
# 0.7): the record's "model" says default+grid on the hand-written listing,
# default+typed+grid on the thread (whose four posts all come out; the typed
# companion scores it first: tests/cli/typed_model.sh), and no +grid on the
# product and article (whose content the shipped models find: no rescue); --options
# grid_model=0, or a
# model without a companion, never uses it (default on every page); the
# listing's text then differs (the grid model scores its blocks); a
# companion that is not a block bundle of the same features is refused,
# naming it; and a companion is used for a model of another name too.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
data="$src/tests/data/page_types"
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$src/models/default.grid.model" ] || { echo "FAIL: models/default.grid.model missing"; exit 1; }
# the four pages with their URLs (tests/data/page_types/urls.tsv), as a pagesift -l list
sed "s#^#$data/#" "$data/urls.tsv" > "$tmp/list.tsv"

pagesift -q -f jsonl -l "$tmp/list.tsv" > "$tmp/on.jsonl"
pagesift -q -f jsonl --options grid_model=0 -l "$tmp/list.tsv" > "$tmp/off.jsonl"
# the main bundle alone in a folder: no companion
cp "$src/models/default.model" "$tmp/alone.model"
pagesift -q -f jsonl -M "$tmp/alone.model" -l "$tmp/list.tsv" > "$tmp/alone.jsonl"
# another name with its companion: NAME.model + NAME.grid.model
cp "$src/models/default.model" "$tmp/mine.model"
cp "$src/models/default.grid.model" "$tmp/mine.grid.model"
pagesift -q -f jsonl -M "$tmp/mine.model" -l "$tmp/list.tsv" > "$tmp/mine.jsonl"
"$py" - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
load = lambda n: {r["id"]: r for r in map(json.loads, open("%s/%s.jsonl" % (d, n)))}
on, off, alone, mine = load("on"), load("off"), load("alone"), load("mine")
assert on["listing"]["page_type"] == "listing" and on["listing"]["page_type_prob"] >= 0.7, on["listing"]
assert on["listing"]["model"] == "default+grid", on["listing"]["model"]
# the product page's model is the typed companion (tests/cli/typed_model.sh)
for n, m in (("product", "default+typed"), ("article", "default")):
    assert on[n]["model"] == m, (n, on[n]["model"])
    assert on[n]["text"] == off[n]["text"], n
assert on["forum"]["page_type"] == "forum" and on["forum"]["model"] == "default+typed+grid", on["forum"]
for post in ("Where should I look first?", "the valve or the expansion vessel", "with a bike pump?",
             "lose it again within a week"):
    assert post in on["forum"]["text"], post
assert all(r["model"] == "default" for r in alone.values()), [r["model"] for r in alone.values()]
assert all(r["model"] == ("default+typed" if n in ("product", "forum") else "default") for n, r in off.items()), \
    [r["model"] for r in off.values()]
assert on["listing"]["text"] != off["listing"]["text"], "the grid model changed nothing on the listing"
assert alone["listing"]["text"] == off["listing"]["text"]
assert mine["listing"]["model"] == "default+grid" and mine["listing"]["text"] == on["listing"]["text"]
print("listing: %d characters with the grid model, %d without" % (len(on["listing"]["text"]), len(off["listing"]["text"])))
PY

# a companion that is not a block bundle of the model's features is refused, naming it
cp "$src/models/page-types.model" "$tmp/mine.grid.model"
rc=0
pagesift -q -f jsonl -M "$tmp/mine.model" "$data/listing.html" > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" -ne 0 ] || { echo "FAIL: a wrong companion was used"; exit 1; }
grep -q "mine.grid.model" "$tmp/err" || { echo "FAIL: message does not name it: $(cat "$tmp/err")"; exit 1; }
echo "OK"
