#!/usr/bin/env bash
# Applying and learning site templates are under --page-timeout (issue 32, defect 3).
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

# Learning is under --page-timeout too (pagesift --learn-templates): eight
# pages of one site, 8 000 leaves each of the same 12 words; learning them
# took 15.5 s for six here before (no limit; the batch cache's similarity
# search slows with every page); with --page-timeout 1 a page that takes
# longer is left out of learning with a message naming it, the run goes on,
# every page is still extracted or failed, and learning stays under 12 s.
python3 - "$tmp" <<'PY'
import os, random, sys
d = sys.argv[1]
rng = random.Random(7)
words = ["alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "paper", "light", "green", "house", "water"]
def t(): return " ".join(rng.choice(words) for _ in range(6))
with open(os.path.join(d, "learn.list"), "w") as lf:
    for k in range(8):
        with open(os.path.join(d, "l%d.html" % k), "w") as f:
            f.write("<html><body>" + "".join("<p>%s</p>" % t() for _ in range(8000)) + "</body></html>")
        lf.write("%s/l%d.html\thttp://l.example/p%d\n" % (d, k, k))
PY
rc=0
pagesift -j 1 --format jsonl --learn-templates --page-timeout 1 --list "$tmp/learn.list" > "$tmp/learn.out" 2> "$tmp/learn.err" || rc=$?
cat "$tmp/learn.err"
[[ $rc == 0 || $rc == 1 ]] || { echo "FAIL: exit $rc"; exit 1; }
grep -q "learning site templates from the page took longer than 1 s" "$tmp/learn.err" \
  || { echo "FAIL: no page was left out of learning by its time limit"; exit 1; }
learn_s=$(sed -n 's/.*templates learnt from [0-9]* pages of [0-9]* sites (\([0-9.]*\) s).*/\1/p' "$tmp/learn.err")
[ -n "$learn_s" ] || { echo "FAIL: no learning summary"; exit 1; }
(( $(echo "$learn_s < 12" | bc) )) || { echo "FAIL: learning took $learn_s s"; exit 1; }
grep -q "8 records read" "$tmp/learn.err" || { echo "FAIL: not every page read"; exit 1; }
[ "$(wc -l < "$tmp/learn.out")" -eq 8 ] || { echo "FAIL: not a record per page"; exit 1; }
echo "PASS"
