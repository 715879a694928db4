"""The Hadoop Streaming / Spark RDD.pipe mapper of docs/PYTHON.md, run as
the docs give it with a local fetch (PAGESIFT_FETCH=cat) instead of `hadoop
fs -cat`: WARC paths in (NLineInputFormat's "offset<TAB>path" lines and bare
paths), the tool's JSON Lines out, the same records as one pagesift run; a
model that cannot be loaded (exit 3) fails the mapper."""
import os
import re
import subprocess
import tempfile
import unittest

from _common import SAMPLE, SRC, make_warc, run, tool


def mapper_script():
    with open(os.path.join(SRC, "docs", "PYTHON.md"), encoding="utf-8") as f:
        doc = f.read()
    m = re.search(r"<!-- example: tests/python/test_pipe_mapper.py[^\n]*\n```sh\n(.*?)```", doc, re.S)
    assert m, "docs/PYTHON.md: the mapper example is gone"
    return m.group(1)


class Mapper(unittest.TestCase):
    def test_mapper(self):
        with tempfile.TemporaryDirectory() as tmp:
            a = make_warc(os.path.join(tmp, "a.warc.gz"), SAMPLE)
            b = os.path.join(tmp, "b.warc")
            make_warc(b, SAMPLE)
            script = os.path.join(tmp, "pagesift-mapper")
            with open(script, "w") as f:
                f.write(mapper_script())
            os.chmod(script, 0o755)
            env = dict(os.environ, PAGESIFT_FETCH="cat")
            stdin = ("0\t%s\n%s\n" % (a, b)).encode()
            p = subprocess.run([script], input=stdin, stdout=subprocess.PIPE, env=env, check=True)
            expect = b""
            for w in (a, b):
                with open(w, "rb") as f:
                    expect += run([tool("pagesift"), "-q", "--format", "jsonl", "-"], input=f.read())
            self.assertEqual(p.stdout, expect)
            self.assertEqual(len(p.stdout.splitlines()), 42)
            env["PAGESIFT_MODEL"] = os.path.join(tmp, "missing.model")
            p = subprocess.run([script], input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env)
            self.assertEqual(p.returncode, 3, p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
