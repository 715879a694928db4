#!/usr/bin/env bash
# The typed model (docs/PAGE_TYPES.md "The typed model", docs/MODEL_FORMAT.md):
# the shipped default.model has a companion default.typed.model, trained
# with the page-type features, which scores the pages typed documentation,
# forum or product in the model's place: the record's "model" says
# default+typed on the hand-written product page, default+typed+grid on the
# thread (the grid model is averaged in with it), default on the article
# and default+grid on the listing, whose texts are those of a run without
# it (--options typed_model=0: the typed model is not asked there); with
# typed_model=0, or a model without the companion, no page says typed; the
# thread keeps its four posts either way; a companion that is not a block
# bundle is refused, naming it; and a companion is used for a model of
# another name too.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
data="$src/tests/data/page_types"
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$src/models/default.typed.model" ] || { echo "FAIL: models/default.typed.model missing"; exit 1; }
# the four pages with their URLs (tests/data/page_types/urls.tsv), as a pagesift -l list
sed "s#^#$data/#" "$data/urls.tsv" > "$tmp/list.tsv"

pagesift -q -f jsonl -l "$tmp/list.tsv" > "$tmp/on.jsonl"
pagesift -q -f jsonl --options typed_model=0 -l "$tmp/list.tsv" > "$tmp/off.jsonl"
# the main bundle and its grid model alone in a folder: no typed companion
cp "$src/models/default.model" "$tmp/alone.model"
cp "$src/models/default.grid.model" "$tmp/alone.grid.model"
pagesift -q -f jsonl -M "$tmp/alone.model" -l "$tmp/list.tsv" > "$tmp/alone.jsonl"
# another name with its companion: NAME.model + NAME.typed.model
cp "$src/models/default.model" "$tmp/mine.model"
cp "$src/models/default.typed.model" "$tmp/mine.typed.model"
pagesift -q -f jsonl -M "$tmp/mine.model" -l "$tmp/list.tsv" > "$tmp/mine.jsonl"
"$py" - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
load = lambda n: {r["id"]: r for r in map(json.loads, open("%s/%s.jsonl" % (d, n)))}
on, off, alone, mine = load("on"), load("off"), load("alone"), load("mine")
want = {"product": "default+typed", "forum": "default+typed+grid", "article": "default", "listing": "default+grid"}
for n, m in want.items():
    assert on[n]["model"] == m, (n, on[n]["page_type"], on[n]["model"])
    assert off[n]["model"] == m.replace("+typed", ""), (n, off[n]["model"])
    assert alone[n]["model"] == off[n]["model"], (n, alone[n]["model"])
for n in ("article", "listing"):
    assert on[n]["text"] == off[n]["text"], n
for post in ("Where should I look first?", "the valve or the expansion vessel", "with a bike pump?",
             "lose it again within a week"):
    assert post in on["forum"]["text"], post
assert mine["product"]["model"] == "default+typed" and mine["product"]["text"] == on["product"]["text"]
print("product: %d characters with the typed model, %d without" % (len(on["product"]["text"]), len(off["product"]["text"])))
PY

# a companion that is not a block bundle is refused, naming it
cp "$src/models/page-types.model" "$tmp/mine.typed.model"
rc=0
pagesift -q -f jsonl -M "$tmp/mine.model" "$data/product.html" > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" -ne 0 ] || { echo "FAIL: a wrong companion was used"; exit 1; }
grep -q "mine.typed.model" "$tmp/err" || { echo "FAIL: message does not name it: $(cat "$tmp/err")"; exit 1; }
echo "OK"
