#!/usr/bin/python3
"""tests/cli/make-snippet-set.py SAMPLE DST — a small snippet set (index.tsv,
html/, evaldata.json) from the first 8 pages of the bundled sample, for the
snippet-set tests: 'with' = the start of the gold's first line (its white
space mangled: newline, NBSP) and the end of its last line, plus a text that
is not on the page; 'without' = the texts of the page's first links and a
text that is not on the page; and a page whose HTML is missing."""
import html.parser, json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
rows = [l.split("\t") for l in open(os.path.join(src, "index.tsv"), encoding="utf-8").read().splitlines()]
head, rows = rows[0], rows[1:9]

class FirstLinks(html.parser.HTMLParser):
    """texts of the first <a> elements: navigation, mostly noise"""
    def __init__(self):
        super().__init__()
        self.depth, self.cur, self.links = 0, [], []
    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.depth += 1
    def handle_endtag(self, tag):
        if tag == "a" and self.depth:
            self.depth -= 1
            t = " ".join("".join(self.cur).split())
            if len(t) > 3:
                self.links.append(t)
            self.cur = []
    def handle_data(self, d):
        if self.depth:
            self.cur.append(d)

ev = {}
out = ["\t".join(head)]
for r in rows:
    pid = r[0]
    shutil.copy(os.path.join(src, "html", pid + ".html"), os.path.join(dst, "html", pid + ".html"))
    gold = [l for l in open(os.path.join(src, "gold", pid + ".txt"), encoding="utf-8").read().splitlines() if l.strip()]
    first = " ".join(gold[0].split()[:8])
    # white space of the snippet differs from the page's: collapsed by the rule
    first = first.replace(" ", " \n\u00a0 ", 1)
    p = FirstLinks()
    p.feed(open(os.path.join(src, "html", pid + ".html"), encoding="utf-8", errors="replace").read())
    ev[pid] = {"url": r[1], "with": [first, " ".join(gold[-1].split()[-6:]), "zz not on the page"],
               "without": p.links[:3] + ["qq absent text"]}
    out.append("\t".join(r))
# a page whose HTML is missing: the method fails on it
out.append("\t".join(["missing-page", "", "", "en"] + [""] * (len(head) - 4)))
ev["missing-page"] = {"url": "", "with": ["a", "b"], "without": ["c"]}
open(os.path.join(dst, "index.tsv"), "w", encoding="utf-8").write("\n".join(out) + "\n")
json.dump(ev, open(os.path.join(dst, "evaldata.json"), "w", encoding="utf-8"), ensure_ascii=False)
