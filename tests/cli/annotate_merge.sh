#!/usr/bin/env bash
# pagesift-annotate --serve merges saves (issue 32's two-browser gap): the
# protocol over HTTP (Python's http.client against 127.0.0.1 only), as the
# workspace's sync.js speaks it.  Two clients with their own view of the
# server (revision and labels, as each browser keeps it):
#  - A labels a block, B (based on revision 0) labels another: labels.json
#    holds both, the revision counts the saves, each answer carries the
#    merged labels of every page (B gets A's);
#  - both label one block differently: the label saved first stays, the
#    later save is told (conflicts: page, block, yours, saved), the file is
#    not rewritten; the same label from both is no conflict;
#  - clearing a label, a save of no change (nothing written);
#  - labels.csv only from a save based on the current revision without
#    conflict; bad bodies (old whole-labels format, bad ids or labels, not
#    JSON) are 400 naming the fault and change nothing; a damaged
#    labels.json is never overwritten (500).
set -uo pipefail
tmp=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill "$srv" 2> /dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
src=${PS_SOURCE_DIR:?}
p1="$src/datasets/sample/html/cleanportaleval-bbc.co.uk_news_01.html"
p2="$src/datasets/sample/html/cleanportaleval-bbc.co.uk_news_02.html"
pagesift-annotate -q -o "$tmp/ws" "$p1" "$p2" || fail "pagesift-annotate"
pagesift-annotate --serve 0 -o "$tmp/ws" > "$tmp/serve.out" 2> "$tmp/serve.err" &
srv=$!
for _ in $(seq 100); do grep -q 'http://127.0.0.1:' "$tmp/serve.out" && break; sleep 0.1; done
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/serve.out")
[ -n "$port" ] || fail "the server did not say where it listens"
/usr/bin/python3 - "$port" "$tmp/ws" <<'PY' || fail "merge protocol"
import http.client, json, os, sys
port, ws = int(sys.argv[1]), sys.argv[2]
data = json.load(open(os.path.join(ws, 'data/blocks.json')))
pages = {p['n']: p for p in data}
b1 = [b['id'] for b in pages[1]['blocks']]
b2 = [b['id'] for b in pages[2]['blocks']]
LJ = os.path.join(ws, 'labels.json')

def post(body, raw=None):
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=20)
    c.request('POST', '/save', body=raw if raw is not None else json.dumps(body),
              headers={'X-Pagesift': 'save', 'Content-Type': 'application/json'})
    r = c.getresponse()
    out = r.status, r.read()
    c.close()
    return out

class Client:
    """A browser's state: its labels, and its view of the server."""
    def __init__(self):
        self.rev, self.view, self.mine = 0, {}, {}
    def label(self, n, bid, v):
        self.mine.setdefault(n, dict(self.view.get(n, {})))
        if v is None: self.mine[n].pop(bid, None)
        else: self.mine[n][bid] = v
    def save(self, csv=None):
        body = {'format': 'pagesift-annotate-save', 'version': 1, 'base': self.rev, 'pages': []}
        for n, l in self.mine.items():
            was = self.view.get(n, {})
            ch = {b: {'label': l.get(b), 'was': was.get(b)} for b in set(l) | set(was) if l.get(b) != was.get(b)}
            if ch:
                body['pages'].append({'n': n, 'page_id': pages[n]['page_id'], 'dataset': None, 'url': None,
                                      'site': None, 'changes': ch})
        if csv is not None:
            body['csv'] = csv
        code, raw = post(body)
        assert code == 200, (code, raw)
        a = json.loads(raw)
        self.rev = a['revision']
        self.view = {p['n']: dict(p['labels']) for p in a['labels']['pages']}
        self.mine = {n: dict(l) for n, l in self.view.items()}
        return a

def disk():
    j = json.load(open(LJ))
    return j['revision'], {p['n']: p['labels'] for p in j['pages']}

A, B = Client(), Client()
A.label(1, b1[0], 1)
a = A.save()
assert (a['revision'], a['changed'], a['conflicts']) == (1, 1, []), a
B.label(2, b2[0], 0)
b = B.save()
assert (b['revision'], b['changed'], b['conflicts']) == (2, 1, []), b
assert B.view == {1: {b1[0]: 1}, 2: {b2[0]: 0}}, B.view      # B got A's label with its own
assert disk() == (2, {1: {b1[0]: 1}, 2: {b2[0]: 0}}), disk()
j = json.load(open(LJ))
assert [p['page_id'] for p in j['pages']] == [pages[1]['page_id'], pages[2]['page_id']], j['pages']
print('ok: two clients label different blocks: both on disk, revision 2')

# the same block, differently: the label saved first stays, the later save is told
A.label(1, b1[1], 1); A.save()                         # revision 3
B.label(1, b1[1], 0); B.label(1, b1[2], 1)             # B had not seen A's b1[1]
st = os.stat(LJ)
b = B.save()
assert b['conflicts'] == [{'page': 1, 'block': b1[1], 'yours': 0, 'saved': 1}], b['conflicts']
assert b['changed'] == 1 and b['revision'] == 4, b      # b1[2] applied, b1[1] not
assert disk()[1][1] == {b1[0]: 1, b1[1]: 1, b1[2]: 1}, disk()
assert B.view[1][b1[1]] == 1, "the answer does not give the kept label"
# a conflict alone: nothing written
A.label(1, b1[3], 0); A_rev = A.rev
C = Client(); C.label(1, b1[1], 0)
st = os.stat(LJ)
c = C.save()
assert c['changed'] == 0 and len(c['conflicts']) == 1 and c['revision'] == 4, c
assert os.stat(LJ).st_ino == st.st_ino and os.stat(LJ).st_mtime_ns == st.st_mtime_ns, "rewritten without a change"
# the same label from two clients is no conflict
D = Client(); D.label(1, b1[0], 1)
d = D.save()
assert d['conflicts'] == [] and d['changed'] == 0, d
print('ok: one block labelled differently: first save kept, the second told:', b['conflicts'][0])

# clearing a label (label null, was its value)
A.save()
A.label(1, b1[0], None)
a = A.save()
assert a['changed'] == 1 and b1[0] not in disk()[1][1], disk()
# B clears b1[2] but A set it meanwhile to 0: a conflict, told with yours = null
A.label(1, b1[2], 0); A.save()
B.label(1, b1[2], None)
b = B.save()
assert b['conflicts'] == [{'page': 1, 'block': b1[2], 'yours': None, 'saved': 0}], b['conflicts']

# labels.csv: only from a save based on the current revision, without conflict
csv_path = os.path.join(ws, 'labels.csv')
E = Client()                                           # base 0: stale
e = E.save(csv='stale\r\n')
assert e['csv'] is False and not os.path.exists(csv_path), e
e = E.save(csv='current\r\n')                          # now based on the current revision
assert e['csv'] is True and open(csv_path, newline='').read() == 'current\r\n', e
print('ok: labels.csv only from a current save')

# bad bodies: 400 naming the fault, nothing changed
before = open(LJ, 'rb').read()
good = {'format': 'pagesift-annotate-save', 'base': 0, 'pages': [{'n': 1, 'changes': {b1[5]: {'label': 1, 'was': None}}}]}
def bad(mut):
    x = json.loads(json.dumps(good)); mut(x); return x
cases = [
    ('whole labels', {'labels': {'format': 'pagesift-annotate-labels', 'version': 1, 'pages': []}}),
    ('format', bad(lambda x: x.pop('format'))),
    ('base', bad(lambda x: x.update(base=-1))),
    ('base', bad(lambda x: x.update(base='3'))),
    ('pages', bad(lambda x: x.update(pages={}))),
    ('page number', bad(lambda x: x['pages'][0].update(n=0))),
    ('block id', bad(lambda x: x['pages'][0].update(changes={'../../etc': {'label': 1, 'was': None}}))),
    ('block id', bad(lambda x: x['pages'][0].update(changes={b1[5].upper(): {'label': 1, 'was': None}}))),
    ('label', bad(lambda x: x['pages'][0]['changes'][b1[5]].update(label=2))),
    ('label', bad(lambda x: x['pages'][0]['changes'][b1[5]].update(was='1'))),
    ('changes', bad(lambda x: x['pages'][0].pop('changes'))),
    ('csv', bad(lambda x: x.update(csv=5))),
    ('not a string', bad(lambda x: x['pages'][0].update(page_id=7))),
]
for what, body in cases:
    code, raw = post(body)
    assert code == 400 and what.encode() in raw, (what, code, raw)
for raw in (b'not json', b'[1, 2]', b'{"format": "pagesift-annotate-save", "base": 0, "pages": [' * 1 + b'1]}'):
    code, out = post(None, raw=raw)
    assert code == 400, (raw, code, out)
assert open(LJ, 'rb').read() == before, "a bad body changed labels.json"
print(f'ok: {len(cases) + 3} bad bodies refused (400), labels.json unchanged')

# a damaged labels.json is never overwritten
open(LJ, 'w').write('{"format": "pagesift-annotate-labels", "pages": [')
code, raw = post(good)
assert code == 500 and b'labels.json' in raw, (code, raw)
assert open(LJ).read() == '{"format": "pagesift-annotate-labels", "pages": [', "a damaged labels.json was overwritten"
huge = '{"format": "pagesift-annotate-labels", "revision": 9223372036854775807, "pages": []}'
open(LJ, 'w').write(huge)                                # no revision can follow it
code, raw = post(good)
assert code == 500 and open(LJ).read() == huge, (code, raw)
os.unlink(LJ)
code, raw = post(good)                                   # none: a new file, revision 1
assert code == 200 and disk() == (1, {1: {b1[5]: 1}}), (code, raw)
print('ok: a damaged labels.json answered 500 and left as it was')
PY
kill "$srv"; wait "$srv" || fail "the server did not stop cleanly on SIGTERM"
srv=
echo "ok: saves merged"
