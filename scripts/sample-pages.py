#!/usr/bin/env python3
"""scripts/sample-pages.py - a seeded training sample from block CSVs.

Keeps the training of the recipe fast on 2 cores: from every input CSV (one
data set each) about ROWS labelled rows, written as one CSV without the text
column.  Only rows with a label count toward ROWS: a snippet set
(trafilatura-eval) labels a few blocks per page and leaves the rest empty;
its unlabelled rows are written too (pagesift-train skips them).

Two ways to pick the rows:
  --spread (the recipe's): pages in a seeded random order, and from each page
      at most ceil(ROWS / labelled pages of the set) of its labelled rows, a
      seeded random choice; the page's other rows are written with an empty
      label.  So the sample reaches every page of a set when ROWS allows
      (dragnet at ROWS 1400: 2 rows from each of 700 pages instead of every
      row of 30),
      and a page is still written whole, in document order, for the context
      features of a second stage (pagesift-classify --context reads a
      block's neighbours, labelled or not).
  whole pages (without --spread): pages in a seeded random order, every row
      of each, until ROWS labelled rows (dragnet: 30 of 1 378 pages).

  --groups NAME=INDEX.tsv:COLUMN (with --spread): the set NAME's pages fall
      into groups by that column of its index (wcxb-dev's page_type), and
      each group gets an equal share of ROWS, spread over its pages as above;
      so the set's 791 articles do not crowd out its 94 listings.

Usage: sample-pages.py --rows N [--seed S] [--spread] [--set-rows NAME=N]...
                       [--groups NAME=INDEX:COLUMN]... -o OUT IN.csv...
(--set-rows: another ROWS for the input NAME.csv)
"""
import argparse
import csv
import random
import sys

csv.field_size_limit(1 << 30)
ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, required=True)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--spread", action="store_true")
ap.add_argument("--set-rows", action="append", default=[], metavar="NAME=N",
                help="ROWS for the input file NAME.csv (its stem, e.g. trafilatura-eval)")
ap.add_argument("--groups", action="append", default=[], metavar="NAME=INDEX.tsv:COLUMN",
                help="with --spread: equal shares of ROWS for the groups of the set NAME's pages")
ap.add_argument("-o", "--output", required=True)
ap.add_argument("inputs", nargs="+")
a = ap.parse_args()
set_rows = {}
for x in a.set_rows:
    k, _, v = x.partition("=")
    set_rows[k] = int(v)
groups = {}
for x in a.groups:
    k, _, v = x.partition("=")
    index, _, column = v.rpartition(":")
    with open(index, encoding="utf-8") as f:
        rows = [l.rstrip("\n").split("\t") for l in f]
    ci, ii = rows[0].index(column), rows[0].index("id")
    groups[k] = {r[ii]: r[ci] for r in rows[1:] if len(r) > ci}
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
        stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
        want = set_rows.get(stem, a.rows)
        rnd = random.Random(a.seed)
        rnd.shuffle(order)
        li = keep.index(li)
        group_of = groups.get(stem)
        if group_of is not None and not a.spread:
            sys.exit("sample-pages.py: --groups needs --spread")
        # the pages' groups (one group for a set without --groups), each with
        # its share of want and its quota a page
        gkey = (lambda k: group_of.get(k, "")) if group_of is not None else (lambda k: "")
        labelled = {}
        for k in order:
            if any(row[li] != "" for row in pages[k]):
                labelled[gkey(k)] = labelled.get(gkey(k), 0) + 1
        share = {g: -(-want // len(labelled)) for g in labelled}
        quota = {g: -(-share[g] // c) for g, c in labelled.items()} if a.spread else None
        taken_g = {g: 0 for g in labelled}
        n = rows = taken = 0
        for k in order:
            if n >= want:
                break
            page = pages[k]
            if quota is not None:
                g = gkey(k)
                have = [i for i, row in enumerate(page) if row[li] != ""]
                if not have or taken_g[g] >= share[g]:
                    continue
                chosen = set(rnd.sample(have, min(quota[g], len(have), want - n, share[g] - taken_g[g])))
                for i in have:
                    if i not in chosen:
                        page[i][li] = ""
                n += len(chosen)
                taken_g[g] += len(chosen)
            else:
                n += sum(1 for row in page if row[li] != "")
            w.writerows(page)
            rows += len(page)
            taken += 1
        if quota and group_of is not None:
            how = " (%s)" % ", ".join("%s %d, at most %d a page" % (g or "?", taken_g[g], quota[g])
                                      for g in sorted(quota))
        elif quota:
            how = " (at most %d a page)" % quota[""]
        else:
            how = ""
        print("%s: %d labelled rows (%d in all) of %d of %d pages%s" % (path, n, rows, taken, len(order), how),
              file=sys.stderr)
