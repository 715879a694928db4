#!/usr/bin/env bash
# --lang (issue 31): a German and an English article page; --lang de keeps
# the German one's record only, the summary counts the other as filtered
# (read = extracted + empty + failed + skipped + filtered); with -o no file
# is written for it; --lang de,en keeps both (and no "filtered" without
# --lang); a malformed list is a usage error (exit 2).
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
de="Die Stadtverwaltung hat am Montag den neuen Plan für die Uferpromenade vorgestellt. Nach Angaben des Bürgermeisters sollen die Arbeiten im Frühjahr beginnen und etwa zwei Jahre dauern. Die Anwohner hatten sich lange für mehr Grünflächen und sichere Radwege eingesetzt, und viele von ihnen begrüßten die Entscheidung des Stadtrats ausdrücklich."
en="The city council presented the new plan for the riverside promenade on Monday. According to the mayor, the work should begin in the spring and take about two years. Residents had long campaigned for more green space and safe cycle lanes, and many of them welcomed the decision of the council."
for l in de en; do
  text=${!l}
  printf '<html><head><title>Plan %s</title></head><body><article><h1>Plan</h1><p>%s</p><p>%s</p></article></body></html>\n' \
    "$l" "$text" "$text" > "$tmp/$l.html"
done

pagesift -f jsonl --lang de "$tmp/de.html" "$tmp/en.html" > "$tmp/out.jsonl" 2> "$tmp/err"
cat "$tmp/err"
[ "$(wc -l < "$tmp/out.jsonl")" -eq 1 ] || { echo "FAIL: want one record"; cat "$tmp/out.jsonl"; exit 1; }
/usr/bin/python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).read())
assert r["id"] == "de" and r["lang"] == "de" and r["status"] == "ok", r
' "$tmp/out.jsonl"
grep -q "2 records read: 1 extracted, 0 empty, 0 failed, 0 skipped, 1 filtered" "$tmp/err" \
  || { echo "FAIL: summary"; exit 1; }

pagesift -q -o "$tmp/dir" --lang de "$tmp/de.html" "$tmp/en.html"
[ -f "$tmp/dir/de.txt" ] && [ ! -e "$tmp/dir/en.txt" ] && [ ! -e "$tmp/dir/en.error" ] \
  || { echo "FAIL: -o files"; ls "$tmp/dir"; exit 1; }

pagesift -f jsonl --lang de,EN "$tmp/de.html" "$tmp/en.html" > "$tmp/both.jsonl" 2> "$tmp/err2"
[ "$(wc -l < "$tmp/both.jsonl")" -eq 2 ] || { echo "FAIL: --lang de,EN keeps both"; exit 1; }
grep -q "0 filtered" "$tmp/err2" || { echo "FAIL: summary with --lang"; cat "$tmp/err2"; exit 1; }
pagesift -f jsonl "$tmp/de.html" "$tmp/en.html" 2>&1 > /dev/null | grep -q filtered \
  && { echo "FAIL: 'filtered' without --lang"; exit 1; }

# a single page filtered says so on standard error, nothing on standard output
pagesift --lang de "$tmp/en.html" > "$tmp/one.out" 2> "$tmp/one.err"
[ ! -s "$tmp/one.out" ] && grep -q "en.html: not in a language of --lang de (filtered)" "$tmp/one.err" \
  || { echo "FAIL: single page"; cat "$tmp/one.err"; exit 1; }

for bad in "" "e" "de," "d1" "de,,en"; do
  rc=0
  pagesift --lang "$bad" "$tmp/de.html" > /dev/null 2> "$tmp/err3" || rc=$?
  [ "$rc" -eq 2 ] || { echo "FAIL: --lang '$bad' exit $rc"; exit 1; }
  grep -q -- "--lang" "$tmp/err3" || { echo "FAIL: message"; exit 1; }
done
echo "OK"
