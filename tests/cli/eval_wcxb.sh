#!/usr/bin/env bash
# pagesift-eval on wcxb-dev (gzipped pages, a page_type column, the WCXB
# rule): the F1w / Pw / Rw figures, overall and --by page_type, equal the
# benchmark's own rule computed independently in Python (lower-case,
# re.findall(r'\w+'), bags of words, each of P, R, F1 averaged over pages)
# on the outputs written with --write; every page is read from its .html.gz.
# Runs on one site fold of ../shared/datasets/wcxb-dev; SKIP without it.
set -euo pipefail
shared=${PS_SHARED_DIR:-$PS_SOURCE_DIR/../shared}
set_dir="$shared/datasets/wcxb-dev"
[ -f "$set_dir/index.tsv" ] || { echo "SKIP: $set_dir missing"; exit 77; }
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pagesift-eval -q -j 2 -d "$set_dir" --fold 3/10 -m all,svm --write "$tmp/w" --by page_type --json > "$tmp/e.json"
"$py" - "$set_dir" "$tmp/e.json" "$tmp/w/wcxb-dev" <<'PY'
import collections, json, os, re, sys
setdir, ej, wdir = sys.argv[1:4]
rows = [l.split("\t") for l in open(os.path.join(setdir, "index.tsv"), encoding="utf-8").read().splitlines()]
head = rows[0]
ptype = {r[0]: r[head.index("page_type")] for r in rows[1:]}
def score(pred, gold):
    p, g = re.findall(r"\w+", pred.lower()), re.findall(r"\w+", gold.lower())
    if not p:
        return (1.0, 1.0, 1.0) if not g else (0.0, 0.0, 0.0)
    ov = sum((collections.Counter(p) & collections.Counter(g)).values())
    P, R = ov / len(p), ov / len(g)
    return P, R, (2 * P * R / (P + R) if P + R else 0.0)
runs = json.load(open(ej))["runs"]
assert {r["label"] for r in runs} == {"all", "svm"}, runs
for r in runs:
    d = os.path.join(wdir, r["label"])
    ids = [f[:-4] for f in os.listdir(d)]
    assert len(ids) == r["pages"] > 100, (len(ids), r["pages"])
    per = collections.defaultdict(list)
    for i in ids:
        s = score(open(os.path.join(d, i + ".txt"), encoding="utf-8").read(),
                  open(os.path.join(setdir, "gold", i + ".txt"), encoding="utf-8").read())
        per[ptype[i]].append(s)
        per["*"].append(s)
    def mean(v, k):
        return sum(x[k] for x in v) / len(v)
    w = r["words"]
    for k, name in enumerate(("p", "r", "f1")):
        assert abs(w[name] - mean(per["*"], k)) < 1e-9, (r["label"], name, w[name], mean(per["*"], k))
    by = r["by_page_type"]
    assert set(by) == set(per) - {"*"}, (set(by), set(per))
    for t, v in by.items():
        assert v["pages"] == len(per[t])
        for k, name in enumerate(("p", "r", "f1")):
            assert abs(v["words"][name] - mean(per[t], k)) < 1e-9, (r["label"], t, name)
    print(r["label"], r["pages"], "pages, F1w %.3f" % w["f1"], {t: round(v["words"]["f1"], 3) for t, v in sorted(by.items())})
# the whole page holds most of the gold: recall near 1 on every type
a = [r for r in runs if r["label"] == "all"][0]
assert a["words"]["r"] > 0.9, a["words"]
PY
