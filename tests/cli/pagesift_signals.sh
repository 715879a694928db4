#!/usr/bin/env bash
# tests/cli/pagesift_signals.sh — SIGINT/SIGTERM in the middle of a real
# batch run (1 008 pages made from the sample): the run stops cleanly, exit
# 130 / 143, the summary still adds up (read = extracted + empty + failed +
# skipped) and says how many pages in flight were abandoned, no temporary
# file is left, JSON Lines end on a whole line with the records in input
# order; then the same command with --skip-existing completes the run with
# every page once and each output equal to a run that was never stopped.
set -uo pipefail
set -m   # background jobs keep SIGINT (a script's '&' would ignore it)
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample/html
tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 48 copies of the 21 sample pages (symbolic links: no copied megabytes)
mkdir "$tmp/in"
n_pages=0
for k in $(seq -w 1 48); do
    for f in "$sample"/*.html; do
        ln -s "$f" "$tmp/in/$k-$(basename "$f")"
        n_pages=$((n_pages + 1))
    done
done

# summary "N records read: E extracted, M empty, F failed, S skipped" -> vars
summary() {
    local line
    line=$(grep -E "records read:" "$1" | tail -1)
    [[ -n $line ]] || fail "no summary in $(cat "$1")"
    read -r S_READ S_EXT S_EMPTY S_FAIL S_SKIP < <(sed -E \
        's/.* ([0-9]+) records read: ([0-9]+) extracted, ([0-9]+) empty, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3 \4 \5/' \
        <<< "$line")
    (( S_READ == S_EXT + S_EMPTY + S_FAIL + S_SKIP )) || fail "summary does not add up: $line"
}

# wait until $1 (a command printing a number) reaches $2, the run still going
wait_for() {
    local i
    for i in $(seq 1 3000); do
        (( $($1) >= $2 )) && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.01
    done
    return 1
}

# send signal $1 to the run, wait for it; it must exit 128 + the signal
# ($2: what to call the case; $3: its stderr, shown on failure)
stop_run() {
    local want
    case $1 in INT) want=130 ;; TERM) want=143 ;; esac
    kill -"$1" "$pid"
    wait "$pid"
    rc=$?
    pid=
    [[ $rc == "$want" ]] || fail "$2: exit $rc (want $want); $(cat "$3" 2>/dev/null)"
}

# --- SIGINT, one file per page ------------------------------------------------
n_out() { find "$tmp/out" -name '*.txt' 2>/dev/null | wc -l; }
pagesift -j 2 -o "$tmp/out" "$tmp/in" 2> "$tmp/err1" &
pid=$!
wait_for n_out 30 || fail "the run ended before the signal (input too small for this machine?)"
stop_run INT SIGINT "$tmp/err1"
summary "$tmp/err1"
(( S_READ < n_pages )) || fail "SIGINT did not stop the run: $S_READ of $n_pages read"
grep -q "interrupted by SIGINT" "$tmp/err1" || fail "the summary does not say it was interrupted: $(cat "$tmp/err1")"
grep -q -- "--skip-existing" "$tmp/err1" || fail "no hint how to complete the run"
leftover=$(find "$tmp/out" -name '*.tmp.*' | head -3)
[[ -z $leftover ]] || fail "temporary files left: $leftover"
written=$(n_out)
(( written == S_EXT + S_EMPTY )) || fail "$written output files, the summary says $S_EXT extracted + $S_EMPTY empty"
(( $(find "$tmp/out" -name '*.error' | wc -l) == S_FAIL )) || fail "failed records and .error files differ"
first_written=$written

# --- the same command with --skip-existing completes it ----------------------
# (with the temporary file a run killed while writing would leave: removed)
last=$(LC_ALL=C ls "$tmp/in" | tail -1)
echo partial > "$tmp/out/${last%.html}.txt.tmp.Ab12Cd"
echo mine > "$tmp/out/notes.tmp.Ab12Cd"   # not a page's temporary file: stays
pagesift -j 2 --skip-existing -o "$tmp/out" "$tmp/in" 2> "$tmp/err2"
rc=$?
[[ $rc == 0 ]] || fail "resume: exit $rc; $(cat "$tmp/err2")"
summary "$tmp/err2"
[[ ! -e $tmp/out/${last%.html}.txt.tmp.Ab12Cd ]] || fail "the resume left a killed run's temporary file"
[[ -e $tmp/out/notes.tmp.Ab12Cd ]] || fail "the resume removed a file that is not a page's temporary"
grep -q "removed 1 temporary file" "$tmp/err2" || fail "the resume does not say it removed it: $(cat "$tmp/err2")"
(( S_READ == n_pages )) || fail "resume read $S_READ of $n_pages"
(( S_SKIP == first_written )) || fail "resume skipped $S_SKIP, the stopped run wrote $first_written"
(( S_EXT + S_EMPTY == n_pages - first_written )) || fail "resume extracted $S_EXT + $S_EMPTY"
(( $(n_out) == n_pages )) || fail "$(n_out) output files after the resume, want $n_pages"
# every page once, each as a run that was never stopped writes it
pagesift -q -j 2 -o "$tmp/ref" "$sample" || fail "reference run"
for f in "$tmp"/in/*.html; do
    b=$(basename "$f" .html)
    cmp -s "$tmp/out/$b.txt" "$tmp/ref/${b#*-}.txt" || fail "$b.txt differs from an uninterrupted run"
done

# --- SIGTERM, JSON Lines into a file ------------------------------------------
n_lines() { wc -l < "$tmp/out.jsonl"; }
pagesift -j 2 --format jsonl "$tmp/in" > "$tmp/out.jsonl" 2> "$tmp/err3" &
pid=$!
wait_for n_lines 30 || fail "the JSON Lines run ended before the signal"
stop_run TERM SIGTERM "$tmp/err3"
summary "$tmp/err3"
grep -q "interrupted by SIGTERM" "$tmp/err3" || fail "the summary does not say SIGTERM: $(cat "$tmp/err3")"
(( S_READ < n_pages )) || fail "SIGTERM did not stop the run"
[[ $(tail -c 1 "$tmp/out.jsonl" | od -An -c | tr -d ' ') == '\n' ]] || fail "JSON Lines do not end on a whole line"
(( $(n_lines) == S_READ )) || fail "$(n_lines) JSON lines, $S_READ records read"
# every line a whole record, in input order with no gap
LC_ALL=C ls "$tmp/in" | sed 's/\.html$//' | head -n "$S_READ" > "$tmp/want_ids"
/usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    print(json.loads(line)["id"])' "$tmp/out.jsonl" > "$tmp/ids" || fail "a JSON line does not parse"
cmp -s "$tmp/ids" "$tmp/want_ids" || fail "JSON records are not the first $S_READ pages in order"

# --- --learn-templates, stopped in its first pass: nothing written ----------
# four times the pages: the sample has no URLs, so learning is quick and the
# whole run of 1 008 pages could end within the 1.5 s below
for k in 1 2 3 4; do
    mkdir -p "$tmp/in4/$k" && cp -P "$tmp"/in/*.html "$tmp/in4/$k/"   # the links, copied as links
done
pagesift -j 2 --learn-templates -o "$tmp/out-learn" "$tmp/in4" 2> "$tmp/err5" &
pid=$!
sleep 1.5   # past the set-up (model load), when the handler is in place
stop_run INT "--learn-templates SIGINT" "$tmp/err5"
if grep -q "while learning the templates" "$tmp/err5"; then
    (( $(find "$tmp/out-learn" -type f | wc -l) == 0 )) || fail "files written in the learning pass"
else   # a fast machine may be in the second pass already: then it adds up as above
    summary "$tmp/err5"
    grep -q "interrupted by SIGINT" "$tmp/err5" || fail "--learn-templates: $(cat "$tmp/err5")"
fi

# --- ... stopped just as its second pass begins: that pass's summary --------
# (read 0 and a manifest written: not the learning pass's message)
rm -rf "$tmp/out-learn"
: > "$tmp/err6"
pagesift -j 2 --learn-templates -o "$tmp/out-learn" "$tmp/in4" 2> "$tmp/err6" &
pid=$!
n_learnt() { grep -c "templates learnt" "$tmp/err6"; }
wait_for n_learnt 1 || fail "--learn-templates ended before its second pass: $(cat "$tmp/err6")"
stop_run INT "--learn-templates SIGINT in the second pass" "$tmp/err6"
summary "$tmp/err6"
grep -q "interrupted by SIGINT: " "$tmp/err6" || fail "second pass: $(cat "$tmp/err6")"
! grep -q "while learning" "$tmp/err6" || fail "the second pass called the first: $(cat "$tmp/err6")"

# --- -q: no message, the exit status still says it ----------------------------
pagesift -q -j 2 --format jsonl "$tmp/in" > "$tmp/q.jsonl" 2> "$tmp/err4" &
pid=$!
n_q() { wc -l < "$tmp/q.jsonl"; }
wait_for n_q 10 || fail "the quiet run ended before the signal"
stop_run INT "-q SIGINT" /dev/null
[[ ! -s $tmp/err4 ]] || fail "-q printed: $(cat "$tmp/err4")"
echo "ok: stopped at $first_written of $n_pages pages, resumed; SIGTERM at $(n_lines) JSON lines"
