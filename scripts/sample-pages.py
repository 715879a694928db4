#!/usr/bin/env python3
"""scripts/sample-pages.py - a seeded sample of whole pages from block CSVs.

Keeps the training of the issue-9 recipe search fast on 2 cores: from every
input CSV (one data set each), whole pages in a seeded random order until
about ROWS labelled rows, written as one CSV without the text column.  Only
rows with a label count toward ROWS: a snippet set (trafilatura-eval) labels
a few blocks per page and leaves the rest empty; its unlabelled rows are
written too (pagesift-train skips them).  In a gold set every row is
labelled, so its sample is the same as when every row counted.

Usage: sample-pages.py --rows N [--seed S] -o OUT IN.csv...
"""
import argparse
import csv
import random
import sys

csv.field_size_limit(1 << 30)
ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, required=True)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("-o", "--output", required=True)
ap.add_argument("inputs", nargs="+")
a = ap.parse_args()
w = None
with open(a.output, "w", newline="", encoding="utf-8") as out:
    for path in a.inputs:
        with open(path, newline="", encoding="utf-8") as f:
            r = csv.reader(f)
            head = next(r)
            keep = [i for i, h in enumerate(head) if h not in ("text",)]
            pi = head.index("page_id")
            li = head.index("label")
            if w is None:
                w = csv.writer(out)
                w.writerow([head[i] for i in keep])
            pages = {}
            order = []
            for row in r:
                k = row[pi]
                if k not in pages:
                    pages[k] = []
                    order.append(k)
                pages[k].append([row[i] for i in keep])
        rnd = random.Random(a.seed)
        rnd.shuffle(order)
        li = keep.index(li)
        n = rows = taken = 0
        for k in order:
            if n >= a.rows:
                break
            w.writerows(pages[k])
            n += sum(1 for row in pages[k] if row[li] != "")
            rows += len(pages[k])
            taken += 1
        print("%s: %d labelled rows (%d in all) of %d of %d pages" % (path, n, rows, taken, len(order)),
              file=sys.stderr)
