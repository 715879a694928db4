#!/usr/bin/env bash
# Applying site templates is under --page-timeout (issue 32, defect 3).
# A library of 16 000 entries and a page of 16 000 other leaves, all made
# of the same 12 words (the texts the segment index cannot tell apart, so
# every leaf is compared with the ~2 000 entries of its length): the page
# takes about 2.5 s here; with --page-timeout 1 it must fail as over its
# time limit within 4 s wall.  Before: applying ran to its end (10.4 s) and
# the page failed only after it.
set -euo pipefail
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import os, random, sys
d = sys.argv[1]
rng = random.Random(5)
words = ["alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "paper", "light", "green", "house", "water"]
def t(): return " ".join(rng.choice(words) for _ in range(6))
n = 16000
ents = set()
while len(ents) < n:
    ents.add(t())
os.makedirs(os.path.join(d, "lib"))
with open(os.path.join(d, "lib", "s.example.tpl"), "w") as f:
    f.write("pagesift-templates\t1\nsite\ts.example\nn1\t10\nn2\t3\ncount\tpages\nrules\tguarded\n"
            "pages\t10\nbatches\t1\nentries\t%d\n" % n)
    for e in sorted(ents):
        f.write("e\tp\t3\t1\t%s\n" % e)
    f.write("end\t%d\n" % n)
with open(os.path.join(d, "page.html"), "w") as f:
    f.write("<html><body>" + "".join("<p>%s</p>" % t() for _ in range(n)) + "</body></html>")
with open(os.path.join(d, "list"), "w") as f:
    f.write("%s/page.html\thttp://s.example/a\n" % d)
PY
start=$(date +%s.%N)
rc=0
pagesift -v -j 1 --format jsonl --page-timeout 1 -T "$tmp/lib" --list "$tmp/list" > "$tmp/out" 2> "$tmp/err" || rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
echo "pagesift --page-timeout 1: exit $rc after $took s"
[[ $rc == 1 ]] || { cat "$tmp/err"; echo "FAIL: exit $rc, want 1 (the page failed)"; exit 1; }
grep -q "time limit" "$tmp/out" "$tmp/err" || { cat "$tmp/err"; echo "FAIL: no time limit named"; exit 1; }
(( $(echo "$took < 4" | bc) )) || { echo "FAIL: the page timeout of 1 s fired after $took s"; exit 1; }
echo "PASS"
