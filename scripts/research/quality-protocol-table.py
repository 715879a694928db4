#!/usr/bin/env python3
"""scripts/research/quality-protocol-table.py - markdown table of the pagesift-eval
JSONs of scripts/research/quality-protocol.sh: token F1 (P/R) per set and variant,
leave-one-set-out models, the references of issue 9 beside them.

Usage: quality-protocol-table.py WORKDIR
"""
import json
import os
import sys

SETS = ["dragnet", "l3s-gn1", "cleaneval", "cleanportaleval", "netease"]
REF = {"dragnet": 0.904, "l3s-gn1": 0.931, "cleaneval": 0.902, "cleanportaleval": 0.958,
       "netease": 0.925}
w = sys.argv[1]
print("| model | method | passes | " + " | ".join(SETS) + " |")
print("|---|---|---|" + "---|" * len(SETS))
print("| best open-source (issue 9) | | | " + " | ".join("%.3f" % REF[s] for s in SETS) + " |")
for fs, fname in (("paper", "R1-R5"), ("extended", "extended")):
    for meth, mname in (("svm", "svm (no templates)"), ("template-svm", "template-svm (per-site 5)")):
        for passes in ("off", "on"):
            cells = []
            for s in SETS:
                p = os.path.join(w, "%s-%s-%s-%s.json" % (fs, meth, passes, s))
                if not os.path.exists(p):
                    cells.append("–")
                    continue
                try:
                    r = json.load(open(p))["runs"][0]
                except (ValueError, KeyError, IndexError):
                    cells.append("?")
                    continue
                t = r["token"]
                mark = "**" if t["f1"] > REF[s] else ""
                cells.append("%s%.3f%s (%.3f/%.3f)" % (mark, t["f1"], mark, t["p"], t["r"]))
            print("| %s | %s | %s | %s |" % (fname, mname, passes, " | ".join(cells)))
