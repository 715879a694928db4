#!/usr/bin/env bash
# pagesift-annotate without a browser (issue 19): options and exit codes;
# the workspace marks exactly the blocks pagesift-features writes rows for,
# under the same block ids; the page files hold no script but the
# workspace's own, no event handler, and a CSP; the CSV rows are
# pagesift-features'; --templates; a WARC input; --resume; the --serve
# server (loopback, Host check, path check, custom header, size bound,
# saving).
set -euo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
srv=""
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # expect CODE CMD...
  local want=$1; shift
  local rc=0; "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/err" >&2; fail "'$*' exited $rc, expected $want"; }
}
sample="$src/datasets/sample"
page="$sample/html/cleanportaleval-bbc.co.uk_news_01.html"

expect 0 pagesift-annotate --help
grep -q -- '--serve PORT' "$tmp/out" || fail "--help does not document --serve"
expect 0 pagesift-annotate --version
expect 2 pagesift-annotate "$page"                          # no -o
expect 2 pagesift-annotate -o "$tmp/x"                      # no input, no --serve
expect 2 pagesift-annotate --serve 70000 -o "$tmp/x" "$page"
expect 3 pagesift-annotate -m "$tmp/missing.model" -o "$tmp/x" "$page"
mkdir "$tmp/foreign"; echo keep > "$tmp/foreign/notes.txt"
expect 3 pagesift-annotate -o "$tmp/foreign" "$page"
grep -q "not empty" "$tmp/err" || fail "no reason given for refusing a non-empty folder"
[ "$(cat "$tmp/foreign/notes.txt")" = keep ] || fail "a foreign folder was touched"
echo '{"format":"something else"}' > "$tmp/bad.json"
expect 3 pagesift-annotate --resume "$tmp/bad.json" -o "$tmp/x" "$page"
expect 3 pagesift-annotate --serve 0 -o "$tmp/foreign"      # not a workspace
expect 1 pagesift-annotate -q -o "$tmp/partial" "$page" "$tmp/missing.html"  # one bad page
[ -f "$tmp/partial/pages/00001.html" ] || fail "the good page is missing after a bad one"

# the sample data set, pre-labelled by the shipped model (its block tags)
expect 0 pagesift-annotate -x -m "$src/models/default.model" -o "$tmp/ws" "$sample"
grep -q "pre-labelled" "$tmp/err" || fail "no summary"
pagesift-features -q -x --for-annotation -b "$(sed -n "s/^block_tags //p" "$src/models/default.model" | head -1)" "$sample" > "$tmp/blank.csv"
/usr/bin/python3 - "$tmp/ws" "$tmp/blank.csv" <<'PY' || fail "workspace content"
import csv, glob, json, os, re, sys
from html.parser import HTMLParser
ws, blank = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(blank, newline='', encoding='utf-8')))
hdr = rows[0]; bi = hdr.index('block_id'); pi = hdr.index('page_id')
ids = {}
for r in rows[1:]:
    ids.setdefault(r[pi], []).append(r[bi])
data = json.load(open(os.path.join(ws, 'data/blocks.json')))
assert len(data) == len(ids) == 21, (len(data), len(ids))
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.marked = []; s.scripts = []; s.handlers = 0; s.csp = None
    def handle_starttag(s, tag, attrs):
        a = dict(attrs)
        if 'data-ps' in a: s.marked.append(int(a['data-ps']))
        if tag == 'script': s.scripts.append(a)
        s.handlers += sum(1 for k, _ in attrs if k.startswith('on'))
        if tag == 'meta' and a.get('http-equiv', '').lower() == 'content-security-policy': s.csp = a['content']
pre = 0
for pg in data:
    p = P(); p.feed(open(os.path.join(ws, pg['file']), encoding='utf-8').read())
    want = ids[pg['page_id']]
    assert [b['id'] for b in pg['blocks']] == want, f"{pg['page_id']}: block ids differ from pagesift-features'"
    # every block is marked on the page exactly once, except blocks the DOM
    # serialisation cannot hold (none in the sample)
    assert sorted(p.marked) == list(range(len(want))), f"{pg['page_id']}: marked {len(p.marked)} of {len(want)}"
    assert p.handlers == 0, f"{pg['page_id']}: event handlers"
    assert p.csp and "default-src 'none'" in p.csp and "script-src 'nonce-" in p.csp, p.csp
    nonce = re.search(r"'nonce-([0-9a-f]+)'", p.csp).group(1)
    types = [s.get('type') for s in p.scripts]
    assert types == ['application/json', None, None, None], types  # data, workspace.js, sync.js, annotate.js
    assert all(s.get('nonce') == nonce for s in p.scripts[1:]), "a script without the nonce"
    pre += sum(1 for b in pg['blocks'] if b.get('pre') in (0, 1))
    for b in pg['blocks']:
        assert len(b['f']) == len(pg['feature_names']), "features and names differ"
assert pre == len(rows) - 1, f"{pre} pre-labels of {len(rows)-1} blocks"
# rows.js: pagesift-features' header, the rows split around the label
js = open(os.path.join(ws, 'data/rows.js'), encoding='utf-8').read()
R = json.loads(js[js.index('=') + 1:].rstrip().rstrip(';'))
assert R['header'] == ','.join(hdr), "rows.js header differs"
raw = open(blank, encoding='utf-8', newline='').read().split('\r\n')[1:-1]
assert len(raw) == len(R['rows'])
for line, r in zip(raw, rows[1:]):
    before, after = R['rows'][r[bi]]
    assert before + ',,' + after == line, f"row of {r[bi]} differs"
print(f"ok: {len(data)} pages, {len(rows)-1} blocks marked and pre-labelled")
PY

# --templates: the leaves of the site libraries are removed first, as
# pagesift-features --templates does; blocks they empty are shown as template
pagesift-template build -q -o "$tmp/tpl" "$sample" 2> /dev/null || true
ls "$tmp/tpl"/*.tpl > /dev/null 2>&1 || fail "no template library built"
expect 0 pagesift-annotate -T "$tmp/tpl" -o "$tmp/wst" "$sample"
pagesift-features -q -T "$tmp/tpl" --for-annotation "$sample" > "$tmp/tblank.csv"
/usr/bin/python3 - "$tmp/wst" "$tmp/tblank.csv" <<'PY' || fail "workspace with templates"
import csv, glob, json, os, sys
ws = sys.argv[1]
rows = list(csv.DictReader(open(sys.argv[2], newline='', encoding='utf-8')))
got = [b['id'] for p in json.load(open(os.path.join(ws, 'data/blocks.json'))) for b in p['blocks']]
assert got == [r['block_id'] for r in rows], "block ids differ from pagesift-features --templates"
tpl = sum(open(f, encoding='utf-8').read().count('data-ps-tpl=') for f in glob.glob(os.path.join(ws, 'pages/*.html')))
assert tpl > 0, "no block marked as emptied by templates"
PY

# a WARC file as input (the pages of its HTML responses)
scripts_dir="$src/scripts"
/usr/bin/python3 "$scripts_dir/make-warc" -o "$tmp/sample.warc.gz" "$sample" > /dev/null 2>&1 || fail "make-warc"
expect 0 pagesift-annotate -o "$tmp/wsw" "$tmp/sample.warc.gz"
[ "$(ls "$tmp/wsw/pages" | wc -l)" -eq 21 ] || fail "not every WARC page in the workspace"

# --resume: labels of a labels JSON become the workspace's
/usr/bin/python3 - "$tmp/ws/data/blocks.json" "$tmp/labels.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
labels = {b['id']: i % 2 for i, b in enumerate(d[0]['blocks'][:5])}
json.dump({"format": "pagesift-annotate-labels", "version": 1,
           "pages": [{"page_id": d[0]['page_id'], "labels": labels}]}, open(sys.argv[2], 'w'))
PY
expect 0 pagesift-annotate --resume "$tmp/labels.json" -m "$src/models/default.model" -o "$tmp/ws2" "$sample"
grep -q "5 labels resumed" "$tmp/err" || { cat "$tmp/err"; fail "resume count"; }

# --serve: loopback only, paths checked, Host and X-Pagesift checked, bounded
pagesift-annotate --serve 0 -o "$tmp/ws" > "$tmp/serve.out" 2> "$tmp/serve.err" &
srv=$!
for _ in $(seq 100); do grep -q 'http://127.0.0.1:' "$tmp/serve.out" && break; sleep 0.1; done
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/serve.out")
[ -n "$port" ] || fail "the server did not say where it listens"
/usr/bin/python3 - "$port" "$tmp/ws" <<'PY' || fail "server"
import json, os, socket, sys
port, ws = int(sys.argv[1]), sys.argv[2]
def req(raw):
    s = socket.create_connection(('127.0.0.1', port), timeout=10)
    s.sendall(raw)
    data = b''
    while True:
        b = s.recv(65536)
        if not b: break
        data += b
    s.close()
    return int(data.split(b' ', 2)[1]), data.split(b'\r\n\r\n', 1)[1]
H = f'Host: 127.0.0.1:{port}\r\n'
code, body = req(f'GET / HTTP/1.1\r\n{H}\r\n'.encode())
assert code == 200 and b'pagesift-annotate' in body, code
code, body = req(f'GET /pages/00001.html HTTP/1.1\r\n{H}\r\n'.encode())
assert code == 200 and b'data-ps=' in body
for bad in ['/../../../etc/passwd', '/pages/../../x', '/%2e%2e/etc/passwd', '/.hidden', '//etc/passwd']:
    code, _ = req(f'GET {bad} HTTP/1.1\r\n{H}\r\n'.encode())
    assert code in (400, 404), (bad, code)
code, _ = req(f'GET /missing.html HTTP/1.1\r\n{H}\r\n'.encode()); assert code == 404
code, _ = req(b'GET / HTTP/1.1\r\nHost: evil.example:80\r\n\r\n'); assert code == 403, code
bid = json.load(open(os.path.join(ws, 'data/blocks.json')))[0]['blocks'][0]['id']
doc = json.dumps({"format": "pagesift-annotate-save", "version": 1, "base": 0, "csv": "a,b\r\n",
                  "pages": [{"n": 1, "page_id": "p", "changes": {bid: {"label": 1, "was": None}}}]}).encode()
old = json.dumps({"labels": {"format": "pagesift-annotate-labels", "version": 1, "pages": []}}).encode()
code, _ = req(f'POST /save HTTP/1.1\r\n{H}Content-Length: {len(doc)}\r\n\r\n'.encode() + doc)
assert code == 403, code   # no X-Pagesift: a form of another site cannot post
assert not os.path.exists(os.path.join(ws, 'labels.json'))
code, _ = req(f'POST /save HTTP/1.1\r\n{H}X-Pagesift: save\r\nContent-Length: 99999999999\r\n\r\n'.encode())
assert code == 413, code
code, _ = req(f'POST /save HTTP/1.1\r\n{H}X-Pagesift: save\r\nContent-Length: 9\r\n\r\nnot json!'.encode())
assert code == 400, code
code, body = req(f'POST /save HTTP/1.1\r\n{H}X-Pagesift: save\r\nContent-Length: {len(doc)}\r\n\r\n'.encode() + doc)
assert code == 200, (code, body)
assert json.load(open(os.path.join(ws, 'labels.json')))['format'] == 'pagesift-annotate-labels'
assert open(os.path.join(ws, 'labels.csv'), newline='').read() == 'a,b\r\n'
# a save of the whole labels (a workspace's scripts of before merging): refused, saying why
code, body = req(f'POST /save HTTP/1.1\r\n{H}X-Pagesift: save\r\nContent-Length: {len(old)}\r\n\r\n'.encode() + old)
assert code == 400 and b'whole labels' in body, (code, body)
code, _ = req(f'DELETE / HTTP/1.1\r\n{H}\r\n'.encode()); assert code == 405
# a request that never ends its head does not keep the server from others for long
s = socket.create_connection(('127.0.0.1', port)); s.sendall(b'GET / HTTP/1.1\r\n')
s.close()
code, _ = req(f'GET / HTTP/1.1\r\n{H}\r\n'.encode()); assert code == 200
print('ok: server')
PY
kill "$srv"; wait "$srv" || fail "the server did not stop cleanly on SIGTERM"
srv=""
echo "ok: pagesift-annotate workspace, resume and server"
