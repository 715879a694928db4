#!/usr/bin/env python3
"""scripts/research/quality-score.py - token-level F1 of block predictions, per data set.

Block-level proxy of the benchmark metric (docs/RESULTS.md, issue 7), used by
the recipe search of issue 9 before the whole pipeline runs: a page's output
is the text of its blocks predicted content (block CSV of pagesift-features
written with a large --preview, so the text column is the whole own text),
joined in CSV (document) order, one block a line.  The outputs are written to
a temporary folder and scored by pagesift-eval --pred, the C metric every
figure of the project uses (4-gram token shingles as multisets per page, P
and R averaged over the pages of index.tsv, F1 of the averages; a page
without a block predicted content is an empty output, P = R = 0).  It differs
from pagesift-eval on the real pipeline only in text the block CSV leaves
out (blocks without own text) and in the second passes, which need the page:
score those with the real pipeline (scripts/research/quality-protocol.sh,
pagesift-eval --options).

Usage: quality-score.py FEATURES.csv [PRED.csv] [--shared DIR] [--sets a,b]
         [--threshold T] [--json] [--keep DIR]
PRED.csv is pagesift-classify's output (rows in the same order as FEATURES);
without it the CSV's own label column is scored (the ceiling of the blocks).
--threshold T: content when score > T (default: the pred column).
--keep DIR: write the outputs to DIR/<set>/<id>.txt and keep them.
Environment: PS_BINARY_DIR (pagesift-eval; default build/ of the tree).
"""
import argparse
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile

csv.field_size_limit(1 << 30)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("features")
    ap.add_argument("pred", nargs="?")
    ap.add_argument("--shared", default=os.environ.get("PS_SHARED_DIR",
                                                       os.path.join(ROOT, "..", "shared")))
    ap.add_argument("--sets", default="")
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    want = set(s for s in a.sets.split(",") if s)
    ev = os.path.join(os.environ.get("PS_BINARY_DIR", os.path.join(ROOT, "build")), "pagesift-eval")

    pages = collections.defaultdict(list)  # (ds, id) -> texts of the blocks kept
    seen = set()
    f = open(a.features, newline="", encoding="utf-8")
    r = csv.DictReader(f)
    pr = None
    if a.pred:
        pf = open(a.pred, newline="", encoding="utf-8")
        pr = csv.DictReader(pf)
    for row in r:
        ds = row["dataset"]
        if want and ds not in want:
            if pr:
                next(pr)
            continue
        seen.add(ds)
        if pr:
            prow = next(pr)
            if prow["block_id"] != row["block_id"]:
                sys.exit("quality-score: %s and %s are not in the same order (%s)"
                         % (a.features, a.pred, row["block_id"]))
            if a.threshold is not None:
                lab = 1 if float(prow["score"]) > a.threshold else 0
            else:
                lab = int(prow["pred"])
        else:
            lab = 1 if row["label"] == "1" else 0
        if lab:
            pages[(ds, row["page_id"])].append(row["text"])
    sets = sorted(want) if want else sorted(seen)

    tmp = None if a.keep else tempfile.TemporaryDirectory(prefix="quality-score.")
    out = a.keep or tmp.name
    cmd = [ev, "-q", "--json", "--pred", "proxy=" + out]
    for ds in sets:
        root = os.path.join(a.shared, "datasets", ds)
        os.makedirs(os.path.join(out, ds), exist_ok=True)
        with open(os.path.join(root, "index.tsv"), encoding="utf-8") as ix:
            for line in list(ix)[1:]:
                pid = line.split("\t", 1)[0]
                with open(os.path.join(out, ds, pid + ".txt"), "w", encoding="utf-8") as o:
                    o.write("".join(t + "\n" for t in pages.get((ds, pid), [])))
        cmd += ["--dataset", root]
    runs = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["runs"]
    res = {}
    for run in runs:
        t = run["token"]
        res[run["set"]] = {"pages": run["pages"], "P": t["p"], "R": t["r"], "F1": t["f1"]}
    if tmp:
        tmp.cleanup()
    if a.json:
        print(json.dumps(res))
    else:
        for ds in sets:
            v = res[ds]
            print("%-16s %5d  P %.3f  R %.3f  F1 %.3f" % (ds, v["pages"], v["P"], v["R"], v["F1"]))


if __name__ == "__main__":
    main()
