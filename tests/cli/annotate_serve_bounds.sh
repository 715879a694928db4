#!/usr/bin/env bash
# pagesift-annotate --serve and the workspace under attack (issue 32,
# defect 7), with a real server on 127.0.0.1:
#   - a client sending one header line a second (25 lines) is cut off when
#     its request's 10 s are up: a client that comes 1 s after it is served
#     within 13 s of the slow one's start (before: the 10 s limit was per
#     read, so the slow client held the one-connection server for 25 s);
#   - two Host headers are refused (400) in either order (before: the last
#     one counted, so a foreign Host first and ours last passed);
#   - rewriting a workspace whose pages/ (or data/) is a symbolic link is
#     refused, and nothing is written where the link points (before: the
#     pages were written through it).
set -euo pipefail
src=${PS_SOURCE_DIR:?}
tmp=$(mktemp -d)
srv=""
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
page="$src/datasets/sample/html/cleanportaleval-bbc.co.uk_news_01.html"

pagesift-annotate -o "$tmp/ws" "$page" > /dev/null 2>&1 || fail "workspace"

# symbolic links inside the workspace
for sub in pages data; do
    cp -r "$tmp/ws" "$tmp/ws-$sub"
    mkdir "$tmp/elsewhere-$sub"
    rm -rf "$tmp/ws-$sub/$sub"
    ln -s "$tmp/elsewhere-$sub" "$tmp/ws-$sub/$sub"
    rc=0; pagesift-annotate -o "$tmp/ws-$sub" "$page" > "$tmp/out" 2> "$tmp/err" || rc=$?
    [ "$rc" -ne 0 ] || fail "a workspace with $sub/ linked elsewhere was rewritten"
    # pages/: named as a link; data/: the workspace is not recognised through it
    grep -q "symbolic link\|not an annotation workspace" "$tmp/err" || { cat "$tmp/err"; fail "the link is not named"; }
    [ -z "$(ls -A "$tmp/elsewhere-$sub")" ] || fail "files written through the $sub/ link: $(ls "$tmp/elsewhere-$sub")"
done
echo "ok: symbolic links in the workspace refused"

pagesift-annotate --serve 0 -o "$tmp/ws" > "$tmp/serve.out" 2> "$tmp/serve.err" &
srv=$!
for _ in $(seq 100); do grep -q 'http://127.0.0.1:' "$tmp/serve.out" && break; sleep 0.1; done
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/serve.out")
[ -n "$port" ] || fail "the server did not say where it listens"
/usr/bin/python3 - "$port" <<'PY' || fail "server"
import socket, sys, threading, time
port = int(sys.argv[1])
H = f'Host: 127.0.0.1:{port}\r\n'
def req(raw, timeout=30):
    s = socket.create_connection(('127.0.0.1', port), timeout=timeout)
    s.sendall(raw)
    data = b''
    while True:
        b = s.recv(65536)
        if not b: break
        data += b
    s.close()
    return int(data.split(b' ', 2)[1])
assert req(f'GET / HTTP/1.1\r\n{H}\r\n'.encode()) == 200
# two Host headers, ours last or first
for head in (f'Host: evil.example\r\n{H}', f'{H}Host: evil.example\r\n', f'{H}{H}'):
    code = req(f'GET / HTTP/1.1\r\n{head}\r\n'.encode())
    assert code == 400, (head, code)
code = req(f'POST /save HTTP/1.1\r\n{H}X-Pagesift: save\r\nContent-Length: 2\r\nContent-Length: 9\r\n\r\n{{}}'.encode())
assert code == 400, code
print('ok: duplicate Host and Content-Length refused')
# the slow client: one header line a second
held = {}
def slow():
    s = socket.create_connection(('127.0.0.1', port))
    t0 = time.monotonic()
    try:
        s.sendall(f'GET / HTTP/1.1\r\n{H}'.encode())
        for i in range(25):
            time.sleep(1)
            s.sendall(f'X-Slow-{i}: {i}\r\n'.encode())
        s.sendall(b'\r\n')
        s.recv(100)
    except OSError:
        pass
    held['s'] = time.monotonic() - t0
    s.close()
t0 = time.monotonic()
th = threading.Thread(target=slow)
th.start()
time.sleep(1)
code = req(f'GET / HTTP/1.1\r\n{H}\r\n'.encode(), timeout=60)
waited = time.monotonic() - t0
print(f'a request behind a slow client answered after {waited:.1f} s (code {code})')
assert code == 200, code
assert waited < 13, f'the slow client held the server {waited:.1f} s'
th.join()
print(f'the slow client was cut off after {held["s"]:.1f} s')
PY
kill "$srv"; wait "$srv" || fail "the server did not stop cleanly on SIGTERM"
srv=""
echo "PASS"
