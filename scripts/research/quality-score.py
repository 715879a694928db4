#!/usr/bin/env python3
"""scripts/research/quality-score.py - token-level F1 of block predictions, per data set.

Block-level proxy of the benchmark metric (docs/RESULTS.md, issue 7), used by
the recipe search of issue 9 before the whole pipeline runs: a page's output
is the text of its blocks predicted content (block CSV of pagesift-features
written with a large --preview, so the text column is the whole own text),
joined in CSV (document) order.  Tokens are \\w+ runs with each CJK ideograph
and kana a token of its own; items are 4-gram shingles compared as multisets
per page; P and R are averaged over the pages of index.tsv (a page with empty
output and empty gold is perfect, a page with no output has P = R = 0) and F1
is taken of the two averages.  It differs from pagesift-eval on the real
pipeline only where blocks are joined (shingles across block borders) and in
text the block CSV leaves out (blocks without own text).

Usage: quality-score.py FEATURES.csv [PRED.csv] [--shared DIR] [--sets a,b]
         [--threshold T] [--smooth] [--json]
PRED.csv is pagesift-classify's output (rows in the same order as FEATURES);
without it the CSV's own label column is scored (the ceiling of the blocks).
--threshold T: content when score > T (default: the pred column).
"""
import argparse
import collections
import csv
import json
import os
import re
import sys

csv.field_size_limit(1 << 30)
WORD = re.compile(r"\w+")


def is_cjk(c):
    o = ord(c)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x2FFFF)


def tokenize(text):
    out = []
    for w in WORD.findall(text):
        if any(is_cjk(c) for c in w):
            run = []
            for c in w:
                if is_cjk(c):
                    if run:
                        out.append("".join(run))
                        run = []
                    out.append(c)
                else:
                    run.append(c)
            if run:
                out.append("".join(run))
        else:
            out.append(w)
    return out


def shingles(tokens, n=4):
    if not tokens:
        return collections.Counter()
    if len(tokens) < n:
        return collections.Counter([tuple(tokens)])
    return collections.Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def page_pr(pred_text, gold_text):
    p, g = shingles(tokenize(pred_text)), shingles(tokenize(gold_text))
    if not p and not g:
        return 1.0, 1.0
    if not p:
        return 0.0, 0.0
    tp = sum((p & g).values())
    prec = tp / sum(p.values())
    rec = tp / sum(g.values()) if g else 1.0
    return prec, rec


def smooth(blocks):
    """blocks: list of [pred, text]; fill a noise block between two content
    blocks, drop an isolated short content block (second pass, issue 9)."""
    n = len(blocks)
    out = [b[0] for b in blocks]
    for i in range(1, n - 1):
        if blocks[i][0] == 0 and blocks[i - 1][0] == 1 and blocks[i + 1][0] == 1 and \
                len(blocks[i][1]) >= 80:
            out[i] = 1
    return out


def path_parts(path):
    return path.split("/")


def focus(blocks, labs, share):
    """Keep only the predicted content inside the deepest DOM element that
    holds at least `share` of the page's predicted content characters."""
    total = sum(len(b[1]) for b, l in zip(blocks, labs) if l)
    if total == 0:
        return labs
    mass = collections.Counter()
    for b, l in zip(blocks, labs):
        if l:
            parts = path_parts(b[2])
            for k in range(1, len(parts) + 1):
                mass["/".join(parts[:k])] += len(b[1])
    best = max((p for p, m in mass.items() if m >= share * total), key=lambda p: p.count("/"))
    pre = best + "/"
    return [l if (b[2] == best or b[2].startswith(pre)) else 0 for b, l in zip(blocks, labs)]


def headline(blocks, labs):
    """Keep the last heading block that shares >= half its words with the
    page's <title> among the blocks before the first content block."""
    first = next((i for i, l in enumerate(labs) if l), len(labs))
    for i in range(first - 1, -1, -1):
        if blocks[i][3]:
            labs = list(labs)
            labs[i] = 1
            break
    return labs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("features")
    ap.add_argument("pred", nargs="?")
    ap.add_argument("--shared", default=os.environ.get("PS_SHARED_DIR", "/work/shared"))
    ap.add_argument("--sets", default="")
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--smooth", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--focus", type=float, default=0.0)
    ap.add_argument("--headline", action="store_true")
    ap.add_argument("--anc-noise", action="store_true")
    a = ap.parse_args()
    want = set(s for s in a.sets.split(",") if s)

    pages = collections.defaultdict(list)  # (ds, id) -> [[pred, text]]
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
        hl = row.get("x_heading") == "1" and float(row.get("x_title_words") or 0) >= 0.5
        if a.anc_noise and row.get("x_anc_noise") == "1" and row.get("x_anc_content") != "1":
            lab = 0
        pages[(ds, row["page_id"])].append([lab, row["text"], row["block_path"], hl])
    sets = sorted(want) if want else sorted({k[0] for k in pages})
    res = {}
    for ds in sets:
        root = os.path.join(a.shared, "datasets", ds)
        sp = sr = 0.0
        n = 0
        with open(os.path.join(root, "index.tsv"), encoding="utf-8") as ix:
            for line in list(ix)[1:]:
                pid = line.split("\t", 1)[0]
                with open(os.path.join(root, "gold", pid + ".txt"), encoding="utf-8") as g:
                    gold = g.read()
                blocks = pages.get((ds, pid), [])
                labs = smooth(blocks) if a.smooth else [b[0] for b in blocks]
                if a.focus > 0:
                    labs = focus(blocks, labs, a.focus)
                if a.headline:
                    labs = headline(blocks, labs)
                text = "\n".join(b[1] for b, l in zip(blocks, labs) if l)
                p, rr = page_pr(text, gold)
                sp += p
                sr += rr
                n += 1
        P, R = sp / max(n, 1), sr / max(n, 1)
        F = 2 * P * R / (P + R) if P + R else 0.0
        res[ds] = {"pages": n, "P": P, "R": R, "F1": F}
    if a.json:
        print(json.dumps(res))
    else:
        for ds, v in res.items():
            print("%-16s %5d  P %.3f  R %.3f  F1 %.3f" % (ds, v["pages"], v["P"], v["R"], v["F1"]))


if __name__ == "__main__":
    main()
