"""pagesift.dask on a real distributed.LocalCluster of 2 worker processes:
the sample WARC in shards (whole files and byte ranges) gives exactly the
records and counts of one `pagesift --format jsonl` run over the same files,
also when a worker is killed (SIGKILL) in the middle of a shard: Dask runs
the task again elsewhere, and nothing is lost or written twice.  A second
run resumes (every shard skipped); learn_templates equals the CLI's
--learn-templates."""
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from _common import SAMPLE, SANITIZE, make_warc, run, tool

try:
    from distributed import Client, LocalCluster
except ImportError:  # scripts/install-deps installs python3-distributed
    print("SKIP: python3-distributed is not installed (scripts/install-deps installs it)")
    sys.exit(77)

import pagesift.dask as psd


def cli(args):
    """(stdout bytes, summary dict) of the CLI over args."""
    p = subprocess.run([tool("pagesift"), "--format", "jsonl"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=True)
    m = re.search(rb"(\d+) records read: (\d+) extracted, (\d+) empty, (\d+) failed, (\d+) skipped",
                  p.stderr)
    keys = ("read", "extracted", "empty", "failed", "skipped")
    return p.stdout, dict(zip(keys, map(int, m.groups())))


def concatenated(summary):
    out = b""
    for path in summary["files"]:
        with open(path, "rb") as f:
            out += f.read()
    return out


def attempts(out):
    with open(os.path.join(out, "_work", "attempts.log")) as f:
        return [l.split() for l in f]


class DaskCluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pagesift-dask-test-")
        one = make_warc(os.path.join(cls.tmp, "sample.warc.gz"), SAMPLE)
        with open(one, "rb") as f:
            data = f.read()
        # four crawl files of six copies of the sample each (gzip members
        # concatenate): a shard (half a file) takes long enough to be killed
        # in the middle; two copies in the sanitizer build, 3-4 times slower
        copies = 2 if SANITIZE else 6
        cls.paths = []
        for i in range(4):
            p = os.path.join(cls.tmp, "crawl-%d.warc.gz" % i)
            with open(p, "wb") as f:
                f.write(data * copies)
            cls.paths.append(p)
        cls.size = len(data) * copies
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.CRITICAL)
        cls.client = Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_1_killed_worker_and_resume(self):
        out = os.path.join(self.tmp, "out")
        expect, expect_counts = cli(self.paths)
        pids = set(self.client.run(os.getpid).values())
        self.assertEqual(len(pids), 2)
        result = {}

        def go():
            try:
                result["summary"] = psd.extract_warcs(self.paths, out, client=self.client,
                                                      split_bytes=self.size // 2 + 1)
            except BaseException as e:  # reported by the main thread
                result["error"] = e

        t = threading.Thread(target=go)
        t.start()
        killed = None
        deadline = time.time() + 120
        while killed is None and t.is_alive() and time.time() < deadline:
            try:
                lines = attempts(out)
            except FileNotFoundError:
                lines = []
            done = {l[2] for l in lines if l[0] == "done"}
            running = [l for l in lines if l[0] == "start" and l[2] not in done]
            if done and running and int(running[-1][3]) in pids:
                # the latest started: the most of its shard still to do
                killed = (running[-1][2], int(running[-1][3]))
                os.kill(killed[1], signal.SIGKILL)
            time.sleep(0.01)
        t.join(300)
        self.assertFalse(t.is_alive(), "the run did not end")
        if "error" in result:
            raise result["error"]
        self.assertIsNotNone(killed, "no shard was seen running after another had finished")
        s = result["summary"]
        # the killed shard was started twice (second time elsewhere) and finished once
        lines = attempts(out)
        starts = [l for l in lines if l[0] == "start" and l[2] == killed[0]]
        dones = [l for l in lines if l[0] == "done" and l[2] == killed[0]]
        self.assertEqual(len(starts), 2, lines)
        self.assertEqual(len(dones), 1, lines)
        self.assertEqual(int(starts[0][3]), killed[1])
        self.assertNotEqual(int(dones[0][3]), killed[1])
        # nothing lost, nothing twice: the CLI's records, byte for byte, in order
        self.assertEqual(s["shards"], 8)
        self.assertEqual(concatenated(s), expect)
        for k in ("read", "extracted", "empty", "failed", "skipped"):
            self.assertEqual(s[k], expect_counts[k], k)
        self.assertEqual(s["read"], s["extracted"] + s["empty"] + s["failed"] + s["skipped"])
        leftovers = [n for n in os.listdir(os.path.join(out, "shards")) if ".tmp." in n or n.endswith(".raw")]
        self.assertEqual(leftovers, [])
        # run again: every shard is done, nothing is redone
        n_lines = len(attempts(out))
        s2 = psd.extract_warcs(self.paths, out, client=self.client, split_bytes=self.size // 2 + 1)
        self.assertEqual(s2["shards_resumed"], 8)
        self.assertEqual(len(attempts(out)), n_lines)
        self.assertEqual(concatenated(s2), expect)
        # other inputs into the same folder: refused, not mixed
        with self.assertRaises(Exception):
            psd.extract_warcs(self.paths[:2], out, client=self.client)

    def test_2_learnt_templates(self):
        out = os.path.join(self.tmp, "out-learn")
        expect, expect_counts = cli(["--learn-templates"] + self.paths[:2])
        s = psd.extract_warcs(self.paths[:2], out, client=self.client, learn_templates=True,
                              buckets=2)
        self.assertEqual(concatenated(s), expect)
        self.assertEqual(s["read"], expect_counts["read"])
        self.assertGreater(s["learnt_sites"], 0)
        # as many pages and sites learnt from as one run learns from
        import pagesift
        it = pagesift.iter_warc(self.paths[:2], learn_templates=True)
        self.assertEqual(sum(1 for _ in it), len(expect.splitlines()))
        self.assertEqual((s["learnt_pages"], s["learnt_sites"]),
                         (it.summary["learnt_pages"], it.summary["learnt_sites"]))
        self.assertTrue(os.listdir(os.path.join(out, "templates")))
        # the templates changed the records: not the plain svm ones
        plain, _ = cli(self.paths[:2])
        self.assertNotEqual(expect, plain)


class ByteRanges(unittest.TestCase):
    """Ranges of a plain WARC and of a WARC gzipped as one member (Dask's
    local threaded scheduler): every record once, the CLI's records."""

    def test_ranges(self):
        import gzip
        with tempfile.TemporaryDirectory() as tmp:
            plain = make_warc(os.path.join(tmp, "s.warc"), SAMPLE)
            whole = os.path.join(tmp, "one-member.warc.gz")
            with open(plain, "rb") as f, gzip.open(whole, "wb") as g:
                g.write(f.read())
            for path, split in ((plain, 40000), (whole, 20000)):
                expect, counts = cli([path])
                out = os.path.join(tmp, "out-" + os.path.basename(path))
                s = psd.extract_warcs([path], out, split_bytes=split)
                self.assertGreater(s["shards"], 5)
                self.assertEqual(concatenated(s), expect, path)
                self.assertEqual(s["read"], counts["read"])
                self.assertEqual(s["read"], s["extracted"] + s["empty"] + s["failed"] + s["skipped"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
