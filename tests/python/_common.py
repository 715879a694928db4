"""Shared by the Python tests: where the source, build and data are (ctest
sets PS_SOURCE_DIR, PS_BINARY_DIR, PYTHONPATH and PAGESIFT_LIBRARY; run by
hand, they default to the source tree and its build/ folder)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("PS_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))
BIN = os.environ.get("PS_BINARY_DIR") or os.path.join(SRC, "build")
os.environ.setdefault("PAGESIFT_LIBRARY", os.path.join(BIN, "libpagesift.so.0"))
if os.path.join(SRC, "python") not in sys.path:
    sys.path.insert(0, os.path.join(SRC, "python"))
SAMPLE = os.path.join(SRC, "datasets", "sample")
SANITIZE = os.environ.get("PS_SANITIZE") == "1"


def tool(name):
    return os.path.join(BIN, name)


def run(args, ok=(0,), **kw):
    """A tool's stdout (bytes); fails the test with its stderr when it fails."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if p.returncode not in ok:
        raise AssertionError("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                                   p.stderr.decode(errors="replace")))
    return p.stdout


def cli_records(args):
    return [json.loads(l) for l in run([tool("pagesift"), "-q", "--format", "jsonl"] + args).splitlines()]


def sample_pages():
    """(id, url, html path, site) of the sample's pages, in index order."""
    out = []
    with open(os.path.join(SAMPLE, "index.tsv"), encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(head, line.rstrip("\n").split("\t")))
            out.append((row["id"], row.get("url", ""), os.path.join(SAMPLE, "html", row["id"] + ".html"),
                        row.get("site", "")))
    return out


def make_warc(out, *sets):
    run([sys.executable, os.path.join(SRC, "scripts", "make-warc"), "-o", out] + list(sets))
    return out
