#!/usr/bin/python3
"""A local HTTP test server for the fetching tests (tests/cli/fetch*.sh).

    fetch_server.py PORTS_FILE LOG_FILE SAMPLE_DIR [N_PORTS]

Listens on 127.0.0.1 only, on N_PORTS ephemeral ports (each port is a host
for pagesift's per-host rules), writes their numbers to PORTS_FILE (one a
line, when ready) and logs every request as "TIME PORT PATH UA" lines to
LOG_FILE.  Paths:
  /page/N            the Nth page of SAMPLE_DIR (sorted), text/html; utf-8
  /tiny/N            a small page (a title and two paragraphs naming N)
  /latin1            an ISO-8859-1 page, charset in the Content-Type only
  /gzip              a page sent with Content-Encoding: gzip
  /br, /zstd         a page sent with Content-Encoding: br or zstd (encoded
                     by libbrotlienc or libzstd through ctypes); 406 when the
                     request's Accept-Encoding does not name that coding
  /chunked           a page sent with Transfer-Encoding: chunked
  /redirect          302 to /page/1
  /flaky             503 the first time (per port), then a page
  /notfound          404
  /text.txt          text/plain (not a page)
  /slow              sleeps 30 s before answering (a stalling server)
  /huge              an endless body (until the client hangs up)
  /private/...       disallowed by /robots.txt (also for "pagesift" alone)
  /robots.txt        the rules above; 503 on the ports whose index (0 = the
                     first) is listed in ROBOTS_503 (environment)
  /sitemap-index.xml a sitemap index: /sitemap-a.xml and /sitemap-b.xml.gz
  /sitemap-a.xml     /page/1 (lastmod 2020-01-01), /page/2 (2024-06-01)
  /sitemap-b.xml.gz  gzipped: /page/3 (2024-07-01), /gzip
  /feed.rss          RSS 2.0: /page/4, /page/5
  /feed.atom         Atom: /page/6, /latin1
A first response is delayed LATENCY seconds (environment, default 0).
"""
import ctypes
import gzip
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ports_file, log_file, sample_dir = sys.argv[1:4]
n_ports = int(sys.argv[4]) if len(sys.argv) > 4 else 1
latency = float(os.environ.get("LATENCY", "0"))
robots_503 = set(int(i) for i in os.environ.get("ROBOTS_503", "").split())
port_index = {}
pages = sorted(os.path.join(sample_dir, f) for f in os.listdir(sample_dir) if f.endswith(".html"))
lock = threading.Lock()
flaky_seen = set()
log = open(log_file, "a", buffering=1)

def encode(coding, data):
    """data in Content-Encoding br or zstd, with Debian's libraries (no
    Python module for either is needed)"""
    out = ctypes.create_string_buffer(len(data) * 2 + 1024)
    if coding == "br":
        n = ctypes.c_size_t(len(out))
        ok = ctypes.CDLL("libbrotlienc.so.1").BrotliEncoderCompress(11, 22, 1, ctypes.c_size_t(len(data)), data,
                                                                     ctypes.byref(n), out)
        assert ok
        return out.raw[:n.value]
    zs = ctypes.CDLL("libzstd.so.1")
    zs.ZSTD_compress.restype = ctypes.c_size_t
    n = zs.ZSTD_compress(out, ctypes.c_size_t(len(out)), data, ctypes.c_size_t(len(data)), 3)
    return out.raw[:n]


ROBOTS = b"""# test rules
User-agent: otherbot
Disallow: /

User-agent: *
Disallow: /private/
Allow: /private/open.html
"""

LATIN1 = ("<html><head><title>Caf\u00e9 latin</title></head><body><article><h1>Caf\u00e9 cr\u00e8me</h1>"
          + "<p>Le caf\u00e9 cr\u00e8me est servi \u00e0 la fran\u00e7aise, avec une mousse \u00e9paisse "
          + "et un go\u00fbt doux que les habitu\u00e9s du quartier connaissent bien depuis des ann\u00e9es.</p>" * 8
          + "</article></body></html>").encode("iso-8859-1")


def sitemap(entries):
    body = ['<?xml version="1.0" encoding="UTF-8"?>',
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for loc, lastmod in entries:
        body.append("  <url><loc>%s</loc>%s</url>" % (loc, "<lastmod>%s</lastmod>" % lastmod if lastmod else ""))
    body.append("</urlset>")
    return "\n".join(body).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        # headers and body go in two writes: without this, Nagle's algorithm
        # and the client's delayed ACK hold the body back 40 ms per response
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, code, body, ctype="text/html; charset=utf-8", headers=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        port = self.server.server_address[1]
        base = "http://127.0.0.1:%d" % port
        with lock:
            log.write("%.6f %d %s %s\n" % (time.time(), port, self.path, self.headers.get("User-Agent", "")))
        if latency:
            time.sleep(latency)
        p = self.path
        if p == "/robots.txt":
            if port_index.get(port) in robots_503:
                return self.send(503, b"busy", "text/plain")
            return self.send(200, ROBOTS, "text/plain")
        if p.startswith("/page/") or p.startswith("/private/"):
            try:
                n = int(p.rsplit("/", 1)[1].split(".")[0]) if p.startswith("/page/") else 0
            except ValueError:
                n = 0
            with open(pages[n % len(pages)], "rb") as f:
                return self.send(200, f.read())
        if p.startswith("/tiny/"):
            n = p[6:]
            body = ("<html><head><title>Page %s</title></head><body><article><h1>Page %s</h1>"
                    "<p>This is page %s of a small test site, with a paragraph long enough to be kept as the "
                    "main text of the page by the extractor.</p><p>A second paragraph follows, so that the "
                    "article has some body to it, and page %s is done.</p></article></body></html>"
                    % (n, n, n, n)).encode()
            return self.send(200, body)
        if p == "/latin1":
            return self.send(200, LATIN1, "text/html; charset=iso-8859-1")
        if p == "/gzip":
            with open(pages[7], "rb") as f:
                return self.send(200, gzip.compress(f.read()), headers=[("Content-Encoding", "gzip")])
        if p in ("/br", "/zstd"):
            coding = p[1:]
            accepted = [c.strip().split(";")[0] for c in self.headers.get("Accept-Encoding", "").split(",")]
            if coding not in accepted:
                return self.send(406, b"not acceptable", "text/plain")
            with open(pages[7 if coding == "br" else 8], "rb") as f:
                return self.send(200, encode(coding, f.read()), headers=[("Content-Encoding", coding)])
        if p == "/chunked":
            with open(pages[8], "rb") as f:
                data = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(data), 4000):
                part = data[i:i + 4000]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        if p == "/redirect":
            return self.send(302, b"", headers=[("Location", "/page/1")])
        if p == "/flaky":
            with lock:
                first = port not in flaky_seen
                flaky_seen.add(port)
            if first:
                return self.send(503, b"try later", "text/plain", [("Retry-After", "1")])
            with open(pages[2], "rb") as f:
                return self.send(200, f.read())
        if p == "/notfound":
            return self.send(404, b"<html><body>not here</body></html>")
        if p == "/text.txt":
            return self.send(200, b"plain text, not a page\n", "text/plain")
        if p == "/slow":
            time.sleep(30)
            return self.send(200, b"<html><body>late</body></html>")
        if p == "/huge":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            chunk = b"<p>" + b"x" * 65530 + b"</p>"
            try:
                self.wfile.write(b"<html><body>")
                for _ in range(40000):  # up to 2.6 GB
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            return
        if p == "/sitemap-index.xml":
            body = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                    '  <sitemap><loc>%s/sitemap-a.xml</loc></sitemap>\n'
                    '  <sitemap><loc>%s/sitemap-b.xml.gz</loc><lastmod>2024-07-01</lastmod></sitemap>\n'
                    '</sitemapindex>\n' % (base, base)).encode()
            return self.send(200, body, "application/xml")
        if p == "/sitemap-a.xml":
            return self.send(200, sitemap([(base + "/page/1", "2020-01-01"), (base + "/page/2", "2024-06-01")]),
                             "application/xml")
        if p == "/sitemap-b.xml.gz":
            return self.send(200, gzip.compress(sitemap([(base + "/page/3", "2024-07-01T10:00:00+00:00"),
                                                         (base + "/gzip", None)])), "application/x-gzip")
        if p == "/feed.rss":
            body = ('<?xml version="1.0"?>\n<rss version="2.0"><channel><title>t</title>'
                    '<item><title>a</title><link>%s/page/4</link></item>'
                    '<item><title>b</title><link>/page/5</link></item>'
                    '</channel></rss>\n' % base).encode()
            return self.send(200, body, "application/rss+xml")
        if p == "/feed.atom":
            body = ('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
                    '<title>t</title><entry><title>a</title><link href="%s/page/6"/></entry>'
                    '<entry><title>b</title><link rel="alternate" type="text/html" href="/latin1"/>'
                    '<link rel="self" href="/feed-entry-b.xml"/></entry></feed>\n' % base).encode()
            return self.send(200, body, "application/atom+xml")
        return self.send(404, b"<html><body>no such path</body></html>")


servers = [ThreadingHTTPServer(("127.0.0.1", 0), Handler) for _ in range(n_ports)]
for i, s in enumerate(servers):
    port_index[s.server_address[1]] = i
    s.daemon_threads = True
    threading.Thread(target=s.serve_forever, daemon=True).start()
tmp = ports_file + ".tmp"
with open(tmp, "w") as f:
    f.write("".join("%d\n" % s.server_address[1] for s in servers))
os.rename(tmp, ports_file)
threading.Event().wait()
