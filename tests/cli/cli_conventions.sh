#!/usr/bin/env bash
# tests/cli/cli_conventions.sh — the command line behaves as people expect:
# an unknown option is one line ("unknown option --x; try --help") for every
# tool, an option missing its argument likewise; pagesift with no input at a
# terminal, on an empty folder or on a folder without pages is an error
# (exit 2) with a message, not "0 records read"; --help states the default
# output format rule; --with-comments / --no-comments are the comments=
# option of the passes.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
sample=$src/datasets/sample/html
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- unknown options: one line, exit 2, for every tool ---------------------
tools=$(find "${PS_BINARY_DIR:?}" -maxdepth 1 -type f -perm -u+x -name 'pagesift*' -printf '%f\n' | sort)
[[ $(wc -w <<< "$tools") -ge 9 ]] || fail "the tools are not in $PS_BINARY_DIR: $tools"
for t in $tools; do
    "$t" --no-such-option > "$tmp/out" 2> "$tmp/err"; rc=$?
    [[ $rc == 2 ]] || fail "$t --no-such-option: exit $rc, want 2"
    [[ ! -s $tmp/out ]] || fail "$t --no-such-option wrote to stdout"
    [[ $(wc -l < "$tmp/err") == 1 ]] || fail "$t --no-such-option: not one line: $(cat "$tmp/err")"
    grep -qx "$t: unknown option --no-such-option; try --help" "$tmp/err" ||
        fail "$t: the message is '$(cat "$tmp/err")'"
    "$t" -Z 2> "$tmp/err"; rc=$?
    [[ $rc == 2 ]] && grep -qx "$t: unknown option -Z; try --help" "$tmp/err" ||
        fail "$t -Z: exit $rc, '$(cat "$tmp/err")'"
    "$t" --help > "$tmp/help" 2>&1 || fail "$t --help failed"
    "$t" --version | grep -q "^$t [0-9]" || fail "$t --version"
done
pagesift-template build --bogus 2> "$tmp/err"; rc=$?
[[ $rc == 2 ]] && grep -qx "pagesift-template: unknown option --bogus; try --help" "$tmp/err" ||
    fail "pagesift-template build --bogus: exit $rc, '$(cat "$tmp/err")'"
pagesift --format 2> "$tmp/err"; rc=$?
[[ $rc == 2 ]] && grep -qx "pagesift: option --format needs an argument; try --help" "$tmp/err" ||
    fail "pagesift --format: exit $rc, '$(cat "$tmp/err")'"
pagesift --quiet=yes x.html 2> "$tmp/err"; rc=$?
[[ $rc == 2 ]] && grep -qx "pagesift: option --quiet takes no argument; try --help" "$tmp/err" ||
    fail "pagesift --quiet=yes: exit $rc, '$(cat "$tmp/err")'"

# --- no input at a terminal ------------------------------------------------
if command -v script > /dev/null; then
    script -qec "pagesift; echo \"rc=\$?\"" /dev/null < /dev/null > "$tmp/tty" 2>&1
    grep -q "rc=2" "$tmp/tty" || fail "no input at a terminal: $(cat "$tmp/tty")"
    grep -q "pagesift: no input: give a page, a folder or a WARC file" "$tmp/tty" ||
        fail "no input at a terminal: no message: $(cat "$tmp/tty")"
else
    echo "note: script(1) missing, the terminal case is not checked"
fi
# a page on a pipe is still read
pagesift -m all < "$sample/dragnet-14.html" > "$tmp/stdin.txt" || fail "a page on stdin"
grep -q "Transplanted" "$tmp/stdin.txt" || fail "a page on stdin: not its text"

# --- an empty folder, a folder without pages -------------------------------
mkdir "$tmp/empty" "$tmp/nopages"
pagesift "$tmp/empty" > "$tmp/out" 2> "$tmp/err"; rc=$?
[[ $rc == 2 ]] || fail "empty folder: exit $rc, want 2"
grep -q "no page in the input" "$tmp/err" || fail "empty folder: $(cat "$tmp/err")"
printf 'body{}' > "$tmp/nopages/style.css"
printf 'User-agent: *\n' > "$tmp/nopages/robots.txt"
pagesift "$tmp/nopages" > "$tmp/out" 2> "$tmp/err"; rc=$?
[[ $rc == 2 ]] || fail "folder without pages: exit $rc, want 2"
grep -q "no page in the input: 2 files or records skipped as not HTML (-v names them)" "$tmp/err" ||
    fail "folder without pages: $(cat "$tmp/err")"
pagesift -v "$tmp/nopages" 2> "$tmp/err"
grep -q "skipped $tmp/nopages/robots.txt: not an HTML page" "$tmp/err" ||
    fail "-v does not name the skipped file: $(cat "$tmp/err")"

# --- the default output format rule is in --help, and holds ---------------
pagesift --help > "$tmp/help"
grep -q "Default: text when the input" "$tmp/help" || fail "--help does not state the default format"
mkdir "$tmp/two"
cp "$sample/dragnet-14.html" "$sample/netease-3.html" "$tmp/two/"
pagesift -q -m all "$tmp/two" > "$tmp/several" || fail "several pages"
[[ $(head -c1 "$tmp/several") == '{' ]] || fail "several pages into a file: not jsonl"
pagesift -q -m all "$tmp/two/dragnet-14.html" > "$tmp/one" || fail "one page"
[[ $(head -c1 "$tmp/one") != '{' ]] || fail "one page: not text"
if command -v script > /dev/null; then
    script -qec "pagesift -q -m all '$tmp/two'" /dev/null < /dev/null > "$tmp/tty" 2>&1
    grep -q "==> dragnet-14 <==" "$tmp/tty" || fail "several pages on a terminal: not text with headers"
fi

# --- --with-comments / --no-comments ---------------------------------------
for f in "$sample"/*.html; do
    pagesift -m svm --with-comments "$f" > "$tmp/with" 2>/dev/null
    pagesift -m svm --options comments=0 "$f" > "$tmp/opt0" 2>/dev/null
    cmp -s "$tmp/with" "$tmp/opt0" || fail "--with-comments is not comments=0 on $f"
    pagesift -m svm --no-comments "$f" > "$tmp/without" 2>/dev/null
    pagesift -m svm "$f" > "$tmp/default" 2>/dev/null
    cmp -s "$tmp/without" "$tmp/default" || fail "--no-comments is not the default on $f"
done
pagesift --help > "$tmp/help"   # a file: grep -q in a pipe would cut the long help short (SIGPIPE, pipefail)
grep -q -- "--with-comments" "$tmp/help" || fail "--help lacks --with-comments"
pagesift -m svm --with-comments --options focus=0 "$sample/dragnet-14.html" > /dev/null ||
    fail "--with-comments with --options"
echo "cli_conventions: ok"
