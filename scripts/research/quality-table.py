#!/usr/bin/env python3
"""scripts/research/quality-table.py - the table of docs/research/QUALITY.md section 1 from
the work folder of scripts/research/quality-search.sh: leave-one-set-out token F1
(block-level proxy, scripts/research/quality-score.py) per variant and set.  (The
second-pass table of section 2 came from Python copies of the passes, removed in
issue 15: the passes are measured on the real pipeline, with the C passes,
by scripts/research/quality-protocol.sh and quality-focus-sweep.sh.)

Usage: quality-table.py WORKDIR
"""
import os
import re
import sys

SETS = ["dragnet", "l3s-gn1", "cleaneval", "cleanportaleval", "netease"]
REF = {"dragnet": 0.904, "l3s-gn1": 0.931, "cleaneval": 0.902, "cleanportaleval": 0.958,
       "netease": 0.925}
BLOCKS = {"A": "body,section,div", "B": "+p,td,table", "C": "+p,td,table, templates",
          "D": "body,section,div, templates"}
w = sys.argv[1]
rows = []
for d in sorted(os.listdir(w)):
    m = re.match(r"r-([A-D])-(paper|ext)(-none|-w)?$", d)
    if not m or not os.path.exists(os.path.join(w, d, "scores.txt")):
        continue
    sc = {}
    for line in open(os.path.join(w, d, "scores.txt")):
        f = line.split()
        if f and f[0] in SETS:
            sc[f[0]] = (float(f[3]), float(f[5]), float(f[7]))
    bal = {"": "undersample", "-none": "none", "-w": "weight"}[m.group(3) or ""]
    rows.append((d[2:], BLOCKS[m.group(1)], "R1-R5" if m.group(2) == "paper" else "extended",
                 bal, sc))
print("| variant | blocks | features | balance | " + " | ".join(SETS) + " |")
print("|---|---|---|---|" + "---|" * len(SETS))
print("| reference (issue 9) | | | | " + " | ".join("%.3f" % REF[s] for s in SETS) + " |")
for v, b, f, bal, sc in rows:
    cells = ["%.3f (%.3f/%.3f)" % (sc[s][2], sc[s][0], sc[s][1]) if s in sc else "–" for s in SETS]
    print("| %s | %s | %s | %s | %s |" % (v, b, f, bal, " | ".join(cells)))
