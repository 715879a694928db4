#!/usr/bin/env bash
# tests/cli/html_view_safe.sh — `pagesift --format html` of a hostile page is
# safe to open: no script element, no event-handler attribute, no
# javascript:/vbscript:/data: URL in a link or source, no object/embed/
# applet/iframe/base/meta refresh, and a Content-Security-Policy in the head
# forbidding scripts and remote loads; the page's text and a good link stay.
# Each block carries its class, block_id (the block CSV's) and path as data
# attributes and a tooltip; a summary bar counts kept / removed / template
# blocks; a link list is collapsed.  With Chromium installed, the view is
# also opened headless and must not run any of the page's scripts.
set -uo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$tmp/hostile.html" <<'HTML'
<html><head><title>Hostile</title><script>document.title='PWNED-head'</script>
<base href="http://evil.example/"><meta http-equiv="refresh" content="0;url=http://evil.example/">
<link rel="stylesheet" href="http://evil.example/x.css"></head>
<body onload="document.title='PWNED-onload'">
<div id="main"><h1 onclick="alert('h1')">A headline of the article</h1>
<p onmouseover="alert(2)">The first paragraph of the article has enough words to be content for the classifier here, with more text following it.</p>
<p>Another long paragraph: <a href="javascript:alert(3)">click</a> and <a href=" JaVa&#x09;ScRiPt:alert(4)">tab</a>,
<a href="data:text/html,<script>alert(5)</script>">data link</a>, <img src="x" onerror="document.title='PWNED-onerror'">
<img src="data:image/svg+xml,<svg onload=alert(7)>"> <img src="http://tracker.example/pixel.gif">,
<a href="https://example.com/ok">a good link</a>. More sentences follow to make it long enough to keep.</p>
<object data="evil.swf"><embed src="evil.swf"></object><applet code="Evil.class"></applet>
<iframe src="http://evil.example/"></iframe><iframe srcdoc="<script>alert(1)</script>"></iframe>
<form action="javascript:alert(8)"><button formaction="javascript:alert(9)">go</button></form>
<div style="background:url(javascript:alert(10))">A styled text block of the article</div>
<svg><script>alert(11)</script></svg><math><a xlink:href="javascript:alert(12)">m</a></math>
<a href="vbscript:msgbox(13)">vb</a> <img srcset="ok.png 1x, data:image/png;base64,AAAA 2x">
<video src="x.mp4" onloadstart="alert(14)"></video><!--[if IE]><script>alert(15)</script><![endif]-->
<p><A HREF="JAVASCRIPT:alert(16)" ONCLICK="alert(17)">upper case</A></p>
</div>
<ul><li><a href="/1">Home</a></li><li><a href="/2">News</a></li><li><a href="/3">Sport</a></li><li><a href="/4">About</a></li></ul>
</body></html>
HTML
pagesift -m svm --format html "$tmp/hostile.html" > "$tmp/view.html" 2> "$tmp/err" || fail "pagesift: $(cat "$tmp/err")"
v=$tmp/view.html
low=$(tr 'A-Z' 'a-z' < "$v")
for bad in '<script' '<object' '<embed' '<applet' '<iframe' '<base' 'javascript:' 'vbscript:' \
           'data:text' 'data:image' 'srcdoc' 'http-equiv="refresh"' '<link' '<video' '<svg' 'pwned' \
           'expression('; do
    [[ $low != *"$bad"* ]] || fail "the view holds '$bad'"
done
grep -Eiq '\son[a-z]+=' "$v" && fail "the view holds an event-handler attribute: $(grep -Eio '\son[a-z]+=[^ >]*' "$v" | head -3)"
grep -q '<meta http-equiv="Content-Security-Policy" content="default-src '"'"'none'"'"'; script-src '"'"'none'"'"'' "$v" ||
    fail "no Content-Security-Policy forbidding scripts"
csp=$(grep -o 'Content-Security-Policy" content="[^"]*"' "$v")
for d in "img-src 'none'" "form-action 'none'" "base-uri 'none'" "object-src 'none'"; do
    [[ $csp == *"$d"* ]] || fail "the policy lacks $d: $csp"
done
[[ $(grep -o '<head>.*</head>' "$v" | head -c 80) == '<head><meta http-equiv="Content-Security-Policy"'* ]] ||
    fail "the policy is not the first thing in the head"
grep -q 'The first paragraph of the article' "$v" || fail "the article's text is gone"
grep -q 'href="https://example.com/ok"' "$v" || fail "a good link lost its address"

# --- block marks, summary bar, collapsed navigation ------------------------
grep -q 'data-pagesift-block="b[0-9a-f]\{16\}" data-pagesift-path="html/body/div\[1\]/p\[1\]" title="content b[0-9a-f]\{16\} html/body/div\[1\]/p\[1\]"' "$v" ||
    fail "the article's first paragraph block lacks its block_id, path and tooltip"
id=$(grep -o 'data-pagesift-block="b[0-9a-f]*" data-pagesift-path="html/body/div\[1\]"' "$v" | head -1 | cut -d'"' -f2)
# the same block_id as the block CSV of pagesift-features
pagesift-features "$tmp/hostile.html" -o "$tmp/blocks.csv" 2>/dev/null || fail "pagesift-features"
grep -q "$id,\"html/body/div\[1\]\"," "$tmp/blocks.csv" || fail "block_id $id is not the CSV's"
grep -Eq 'data-pagesift-count="content">[0-9]+ kept' "$v" || fail "no kept count in the summary bar"
grep -Eq 'data-pagesift-count="noise">[0-9]+ removed' "$v" || fail "no removed count in the summary bar"
grep -Eq 'data-pagesift-count="template">[0-9]+ template' "$v" || fail "no template count in the summary bar"
grep -q '<ul style="display:flex;[^"]*max-height:[^"]*"[^>]* data-pagesift-collapsed="links"' "$v" ||
    fail "the link list is not collapsed"

# --- a real browser runs none of it ----------------------------------------
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -n $chrome ]]; then
    timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --dump-dom "file://$v" \
        > "$tmp/dom.html" 2>/dev/null
    if [[ -s $tmp/dom.html ]]; then
        grep -qi 'pwned' "$tmp/dom.html" && fail "Chromium ran a script of the page"
        grep -q '<title>pagesift: Hostile</title>' "$tmp/dom.html" || fail "Chromium: the title changed"
    fi
else
    echo "note: no Chromium, the browser check is skipped"
fi
echo "html_view_safe: ok"
