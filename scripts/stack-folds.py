#!/usr/bin/env python3
"""scripts/stack-folds.py - split a block CSV into K folds of whole sites for
the out-of-fold first-stage scores a second stage trains on (stacking,
scripts/train-default-model STACK=K).

A second stage learns from what the first stage says about a block's
neighbours; if that first stage had seen the block's page, its scores would be
better than on any new page and the second stage would learn to trust them
too much. So each fold's rows get their context features from a first stage
trained on the other folds only. Folds keep sites whole (a row without a site
keeps its page whole), as pagesift-train -g site does; a site goes to the
fold of a seeded hash of its key, so the split does not depend on row order.

Writes DIR/fold-K.csv (the fold's rows) and DIR/rest-K.csv (every other
row), K = 1..N, each with the input's header.

Usage: stack-folds.py --folds N [--seed S] -o DIR IN.csv
"""
import argparse
import csv
import hashlib
import os
import sys

csv.field_size_limit(1 << 30)
ap = argparse.ArgumentParser()
ap.add_argument("--folds", type=int, required=True)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("-o", "--output", required=True)
ap.add_argument("input")
a = ap.parse_args()
if a.folds < 2:
    sys.exit("stack-folds.py: --folds wants 2 or more")
os.makedirs(a.output, exist_ok=True)


def fold_of(key):
    h = hashlib.sha1(("%d\0%s" % (a.seed, key)).encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big") % a.folds


with open(a.input, newline="", encoding="utf-8") as f:
    r = csv.reader(f)
    head = next(r)
    si, di, pi = head.index("site"), head.index("dataset"), head.index("page_id")
    outs = []
    for k in range(a.folds):
        fo = open(os.path.join(a.output, "fold-%d.csv" % (k + 1)), "w", newline="", encoding="utf-8")
        ro = open(os.path.join(a.output, "rest-%d.csv" % (k + 1)), "w", newline="", encoding="utf-8")
        outs.append((fo, csv.writer(fo), ro, csv.writer(ro)))
        outs[-1][1].writerow(head)
        outs[-1][3].writerow(head)
    rows = [0] * a.folds
    for row in r:
        key = row[si] or (row[di] + "\0" + row[pi])
        k = fold_of(key)
        rows[k] += 1
        for j, (_, fw, _, rw) in enumerate(outs):
            (fw if j == k else rw).writerow(row)
    for fo, _, ro, _ in outs:
        fo.close()
        ro.close()
print("stack-folds.py: %s rows per fold" % " ".join(str(n) for n in rows), file=sys.stderr)
