#!/usr/bin/env bash
# tests/cli/manifest.sh — `pagesift -o DIR` over a WARC writes DIR/manifest.tsv
# (docs/EXTRACTION.md, "The manifest"): one line per record read, whose
# statuses add up to the summary (read = extracted + empty + failed + skipped
# + filtered), every output file named with its WARC-Target-URI (read from
# the WARC here, not from pagesift), the failed record's line with its
# message; a run SIGKILLed part way and completed by --skip-existing (after a
# line cut short and a page whose line is there but whose file is not, as a
# kill between the two leaves them) ends with the last line of every page
# saying what a clean run says, and every file named; --no-manifest; a
# foreign manifest.tsv is refused; pagesift-eval reads such a folder.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- a WARC: the sample's 21 pages, an empty page, a binary one (fails) ------
mkdir "$tmp/extra"
printf '<html lang="en"><body><div></div></body></html>' > "$tmp/extra/empty.html"
head -c 30000 "$(command -v pagesift)" > "$tmp/extra/binary.html"
"$src/scripts/make-warc" -o "$tmp/s.warc.gz" --url-base https://example.org/x/ \
    "$src/datasets/sample" "$tmp/extra" > /dev/null 2>&1 || fail "make-warc"

# The WARC's own record ids and URLs, and the pagesift summary's counts.
warc_urls() {
    python3 - "$1" <<'PY'
import gzip, re, sys
data = gzip.open(sys.argv[1]).read().decode("utf-8", "replace")
for rec in data.split("WARC/1.0\r\n")[1:]:
    head = rec.split("\r\n\r\n", 1)[0]
    rid = re.search(r"WARC-Record-ID: <urn:uuid:([^>]+)>", head)
    uri = re.search(r"WARC-Target-URI: (\S+)", head)
    if "WARC-Type: response" in head:  # (a page without a URL has none)
        print(rid.group(1) + "\t" + (uri.group(1) if uri else ""))
PY
}
warc_urls "$tmp/s.warc.gz" > "$tmp/urls.tsv"
[[ $(wc -l < "$tmp/urls.tsv") == 23 ]] || fail "23 pages in the WARC: $(wc -l < "$tmp/urls.tsv")"

# check DIR SUMMARY_FILE: the manifest against the folder, the WARC and the
# run's summary.  With LINES_FROM=N only the lines after the N-th are this
# run's (a resumed run appends); EXISTED=N pages were skipped as done.
check() {
    python3 - "$1" "$2" "$tmp/urls.tsv" "${LINES_FROM:-1}" "${EXISTED:-0}" <<'PY'
import os, re, sys
d, errf, urlsf, start, existed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
urls = dict(l.rstrip("\n").split("\t") for l in open(urlsf))
lines = open(os.path.join(d, "manifest.tsv"), encoding="utf-8").read().split("\n")
assert lines[-1] == "", "the manifest does not end with a line break"
lines = lines[:-1]
assert lines[0] == "file\tstatus\turl\tid\torigin\tnote", lines[0]
assert "file\tstatus\turl\tid\torigin\tnote" not in lines[1:], "a second header"
rows = [l.split("\t") for l in lines[1:]]
whole = [r for r in rows if len(r) == 6]
# the run's lines add up to its summary
err = open(errf).read()
m = re.search(r"(\d+) records read: (\d+) extracted, (\d+) empty, (\d+) failed, (\d+) skipped(?:, (\d+) filtered)?", err)
assert m, err
read, ext, empty, failed, skipped = map(int, m.groups()[:5])
filtered = int(m.group(6) or 0)
assert read == ext + empty + failed + skipped + filtered, m.group(0)
mine = rows[start - 1:]
assert all(len(r) == 6 for r in mine), [r for r in mine if len(r) != 6]
st = {}
for r in mine:
    st[r[1]] = st.get(r[1], 0) + 1
want = {"ok": ext, "empty": empty, "failed": failed, "skipped": skipped - existed, "filtered": filtered}
assert {k: st.get(k, 0) for k in want} == want and sum(st.values()) == read - existed, (st, want, m.group(0))
# the last line of each page (id) names its file, and every file is named so
last = {}
for r in whole:
    if r[3]:
        last[r[3]] = r
files = sorted(f for f in os.listdir(d) if f != "manifest.tsv" and not f.startswith("."))
named = sorted(r[0] for r in last.values() if r[0])
assert files == named, ("files without their line", sorted(set(files) - set(named)),
                        "lines naming no file", sorted(set(named) - set(files)))
for pid, r in last.items():
    assert r[2] == urls[pid], (r, urls[pid])          # the WARC-Target-URI of its record
    assert re.search(r"(s\.warc\.gz|stdin)@offset \d+$", r[4]), r  # the origin: where in the WARC
    if r[0]:
        assert r[0] in (pid + ".txt", pid + ".error"), r
    assert (r[1] in ("ok", "empty")) == (r[0] == pid + ".txt"), r
    assert (r[1] == "failed") == (r[0] == pid + ".error"), r
    assert (r[1] in ("failed", "filtered")) == (r[5] != ""), r
print(len(last))
PY
}

# --- a run: every record a line, every file named with its URL ----------------
pagesift -j 2 --lang en -o "$tmp/ref" "$tmp/s.warc.gz" 2> "$tmp/err.ref"
rc=$?
[[ $rc == 1 ]] || fail "exit $rc with a failing page, want 1: $(cat "$tmp/err.ref")"
n=$(check "$tmp/ref" "$tmp/err.ref") || fail "the manifest of a run"
[[ $n == 23 ]] || fail "$n pages in the manifest, want 23"
grep -q "3 filtered" "$tmp/err.ref" || fail "the Chinese pages are not filtered: $(cat "$tmp/err.ref")"
bin_id=$(awk -F'\t' '$2 == "https://example.org/x/binary.html" {print $1}' "$tmp/urls.tsv")
line=$(awk -F'\t' -v id="$bin_id" '$4 == id' "$tmp/ref/manifest.tsv")
[[ $(cut -f1,2,3 <<< "$line") == "$bin_id.error	failed	https://example.org/x/binary.html" ]] ||
    fail "the failed record's line: '$line'"
[[ $(cut -f6 <<< "$line") == *binary* ]] || fail "the failed record's note: '$line'"
grep -qP '^\tskipped\t\t\t[^\t]*s\.warc\.gz@offset 0\tWARC warcinfo record' "$tmp/ref/manifest.tsv" ||
    fail "no line for the skipped warcinfo record"
grep -qP '^\tfiltered\t[^\t]*\t[0-9a-f-]+\t[^\t]+\tlanguage zh' "$tmp/ref/manifest.tsv" ||
    fail "no line for a filtered page: $(grep filtered "$tmp/ref/manifest.tsv" | head -1)"
# the summary's last line of the clean run, per page: what every run must end with
awk -F'\t' 'NR > 1 && NF == 6 && $4 != "" {s[$4] = $1 "\t" $2 "\t" $3} END {for (k in s) print k "\t" s[k]}' \
    "$tmp/ref/manifest.tsv" | sort > "$tmp/ref.last"

# --- SIGKILL part way, then --skip-existing completes it -----------------------
# The WARC comes through a pipe that stays open: pagesift extracts the first
# pages, the kill comes while the rest have not arrived yet.
zcat "$tmp/s.warc.gz" > "$tmp/s.warc"
half=$(grep -abo $'^WARC/1.0\r$' "$tmp/s.warc" | sed -n 14p | cut -d: -f1)
mkfifo "$tmp/fifo"
( head -c "$half" "$tmp/s.warc"; exec sleep 60 ) > "$tmp/fifo" 2> /dev/null &
feeder=$!
pagesift -j 2 --lang en -o "$tmp/out" - < "$tmp/fifo" 2> "$tmp/err.killed" &
pid=$!
for _ in $(seq 1 1000); do
    (( $(find "$tmp/out" -name '*.txt' 2>/dev/null | wc -l) >= 8 )) && break
    sleep 0.01
done
kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=
kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null
done_before=$(find "$tmp/out" -name '*.txt' | wc -l)
(( done_before >= 8 && done_before < 21 )) || fail "$done_before pages written before the kill"
before=$(wc -l < "$tmp/out/manifest.tsv")
# what a kill between a page's line and its rename leaves: a line, no file
victim=$(awk -F'\t' 'NR > 1 && $2 == "ok" {print $1; exit}' "$tmp/out/manifest.tsv")
rm "$tmp/out/$victim"
# and one cut part way through writing it
printf 'deadbeef.txt\tok\thttps://exa' >> "$tmp/out/manifest.tsv"
pagesift -j 2 --lang en --skip-existing -o "$tmp/out" "$tmp/s.warc.gz" 2> "$tmp/err.resumed"
rc=$?
[[ $rc == 1 ]] || fail "the resumed run: exit $rc, want 1 (the failing page): $(cat "$tmp/err.resumed")"
LINES_FROM=$((before + 1)) EXISTED=$((done_before - 1)) check "$tmp/out" "$tmp/err.resumed" > /dev/null ||
    fail "the manifest after a kill and a resume"
grep -qxP 'deadbeef.txt\tok\thttps://exa' "$tmp/out/manifest.tsv" || fail "the cut line is not a line of its own"
awk -F'\t' 'NR > 1 && NF == 6 && $4 != "" {s[$4] = $1 "\t" $2 "\t" $3} END {for (k in s) print k "\t" s[k]}' \
    "$tmp/out/manifest.tsv" | sort > "$tmp/out.last"
cmp -s "$tmp/ref.last" "$tmp/out.last" || fail "after the resume, pages' last lines differ from a clean run's: $(diff "$tmp/ref.last" "$tmp/out.last" | head -5)"
[[ $(cd "$tmp/ref" && ls | sort) == $(cd "$tmp/out" && ls | sort) ]] || fail "the files differ from a clean run's"
# every page once more: nothing left, no line added
lines=$(wc -l < "$tmp/out/manifest.tsv")
pagesift -q --lang en --skip-existing -o "$tmp/out" "$tmp/s.warc.gz" 2> /dev/null
(( $(wc -l < "$tmp/out/manifest.tsv") == lines + 5 )) ||
    fail "a finished run resumed added $(( $(wc -l < "$tmp/out/manifest.tsv") - lines )) lines, want 5 (warcinfo, the failed page and the 3 filtered ones, done again)"

# --- --no-manifest; a foreign manifest.tsv is left alone ---------------------
pagesift -q --no-manifest -o "$tmp/none" "$tmp/s.warc.gz"
[[ ! -e $tmp/none/manifest.tsv ]] || fail "--no-manifest wrote one"
[[ $(ls "$tmp/none" | wc -l) == 23 ]] || fail "--no-manifest: $(ls "$tmp/none" | wc -l) files"
pagesift --no-manifest "$tmp/extra/empty.html" > /dev/null 2> "$tmp/err"
[[ $? == 2 ]] && grep -q "no-manifest goes with --output-dir" "$tmp/err" || fail "--no-manifest without -o"
mkdir "$tmp/foreign"
printf 'my own notes\n' > "$tmp/foreign/manifest.tsv"
pagesift -q -o "$tmp/foreign" "$tmp/s.warc.gz" 2> "$tmp/err"
[[ $? == 3 ]] || fail "a foreign manifest.tsv: exit $?, want 3"
grep -q "not the header of pagesift's manifest" "$tmp/err" || fail "$(cat "$tmp/err")"
[[ $(cat "$tmp/foreign/manifest.tsv") == "my own notes" ]] || fail "the foreign manifest.tsv was touched"

# --- a folder with a manifest read back: pagesift-eval scores it ------------
pagesift -q -o "$tmp/pred" "$src/datasets/sample"
pagesift-eval --json -d "$src/datasets/sample" -p "$tmp/pred" > "$tmp/eval.json" || fail "pagesift-eval -p"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["pages"] == 21 and r["failed"] == 0 and r["token"]["f1"] > 0.8, r
' "$tmp/eval.json" || fail "pagesift-eval over a folder with a manifest"
echo "manifest: ok"
