"""The Python binding gives what the CLI gives: the same text, JSON record,
Markdown and counts for the same pages and options (over the bundled
sample), errors as exceptions with the library's message, threads sharing
an Extractor agree with one thread, and bytes that are not a page never
crash the interpreter."""
import concurrent.futures
import io
import json
import os
import random
import sys
import tempfile
import unittest

from _common import SAMPLE, cli_records, make_warc, run, sample_pages, tool
import pagesift


def read(path):
    with open(path, "rb") as f:
        return f.read()


def without_origin(rec):
    return {k: v for k, v in rec.items() if k != "origin"}


class SameAsCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pages = sample_pages()
        cls.html = {pid: read(path) for pid, _, path, _ in cls.pages}
        cls.url = {pid: url for pid, url, _, _ in cls.pages}
        cls.site = {p[0]: p[3] for p in cls.pages}

    def check_records(self, cli_args, **opts):
        recs = cli_records(cli_args + [SAMPLE])
        self.assertEqual([r["id"] for r in recs], [p[0] for p in self.pages])
        for rec in recs:
            got = pagesift.extract(self.html[rec["id"]], self.url[rec["id"]], output="json",
                                   id=rec["id"], site=self.site[rec["id"]], **opts)
            self.assertEqual(without_origin(got), without_origin(rec), rec["id"])
            text = pagesift.extract(self.html[rec["id"]], self.url[rec["id"]],
                                    site=self.site[rec["id"]], **opts)
            self.assertEqual(text, rec["text"], rec["id"])
        return recs

    def test_default(self):
        recs = self.check_records([])
        self.assertTrue(all(r["status"] == "ok" for r in recs))

    def test_favor_and_comments(self):
        for favor in ("precision", "recall"):
            self.check_records(["--favor", favor], favor=favor)
        self.check_records(["--with-comments"], with_comments=True)

    def test_templates(self):
        with tempfile.TemporaryDirectory() as tmp:
            # exit 1: a page of the sample has no URL (named, skipped)
            run([tool("pagesift-template"), "build", "-q", "-o", tmp, SAMPLE], ok=(0, 1))
            self.assertTrue(any(n.endswith(".tpl") for n in os.listdir(tmp)))
            recs = self.check_records(["--templates", tmp], templates=tmp)
            # the templates did something on this sample: not the svm records
            plain = cli_records([SAMPLE])
            self.assertNotEqual([r["text"] for r in recs], [r["text"] for r in plain])

    def test_markdown(self):
        for pid, _, path, _ in self.pages[:8]:
            md = run([tool("pagesift"), "-q", "--format", "markdown", path]).decode()
            self.assertEqual(pagesift.extract(self.html[pid], output="markdown"), md, pid)
            md = run([tool("pagesift"), "-q", "--format", "markdown", "--links", path]).decode()
            self.assertEqual(pagesift.extract(self.html[pid], output="markdown", links=True), md, pid)

    def test_str_is_unicode(self):
        pid = self.pages[0][0]
        as_bytes = pagesift.extract(self.html[pid], self.url[pid])
        as_str = pagesift.extract(self.html[pid].decode("utf-8"), self.url[pid])
        self.assertEqual(as_bytes, as_str)
        self.assertEqual(pagesift.extract(self.html[pid], output="json")["charset"].lower(), "utf-8")


class Batches(unittest.TestCase):
    def test_iter_warc_is_the_cli_output(self):
        with tempfile.TemporaryDirectory() as tmp:
            warc = make_warc(os.path.join(tmp, "s.warc.gz"), SAMPLE)
            cli = cli_records([warc])
            it = pagesift.iter_warc(warc, workers=2)
            recs = list(it)
            self.assertEqual(recs, cli)
            self.assertEqual(it.summary["read"], len(cli) + 1)  # + the warcinfo record
            self.assertEqual(it.summary["skipped"], 1)
            self.assertTrue(it.summary.adds_up())
            # a file object (streamed through a pipe): the same records
            with open(warc, "rb") as f:
                data = f.read()
            recs2 = list(pagesift.iter_warc(io.BytesIO(data)))
            self.assertEqual([without_origin(r) for r in recs2], [without_origin(r) for r in cli])
            # learnt templates: the CLI's --learn-templates
            cli_l = cli_records(["--learn-templates", warc])
            it = pagesift.iter_warc(warc, learn_templates=True)
            self.assertEqual(list(it), cli_l)
            self.assertGreater(it.summary["learnt_sites"], 0)
            # stopping early does not hang and leaves nothing running
            it = pagesift.iter_warc(warc)
            next(it)
            it.close()
            # run(): the CLI's bytes, written atomically
            out = os.path.join(tmp, "out.jsonl")
            s = pagesift.run(warc, out)
            with open(out, "rb") as f:
                self.assertEqual(f.read(), run([tool("pagesift"), "-q", "--format", "jsonl", warc]))
            self.assertEqual(s["extracted"] + s["empty"] + s["failed"] + s["skipped"], s["read"])
            self.assertEqual([n for n in os.listdir(tmp) if ".tmp." in n], [])
            # lang: the CLI's --lang; the others counted as filtered, not yielded
            it = pagesift.iter_warc(warc, lang=["xx"])
            self.assertEqual(list(it), [])
            self.assertEqual(it.summary["filtered"], it.summary["read"] - it.summary["skipped"])
            self.assertTrue(it.summary.adds_up())
            s = pagesift.run(warc, out, lang="en,zh")
            with open(out, "rb") as f:
                self.assertEqual(f.read(), run([tool("pagesift"), "-q", "--format", "jsonl", "--lang", "en,zh", warc]))
            self.assertTrue(s.adds_up())

    def test_dedup(self):
        """dedup=: the CLI's --dedup, bytes and counts (tests/cli/dedup.sh's pages)."""
        src = os.environ["PS_SOURCE_DIR"]
        with tempfile.TemporaryDirectory() as tmp:
            run([sys.executable, os.path.join(src, "tests/data/dedup/make-pages.py"), tmp,
                 os.path.join(src, "datasets/sample/gold")])
            pages = [os.path.join(tmp, n) for n in ("a1.html", "b1.html", "a2.html", "a3.html", "b2.html")]
            pages.append(pages[0])  # the same file again
            out = os.path.join(tmp, "out.jsonl")
            s = pagesift.run(pages, out, dedup=True, workers=2)
            with open(out, "rb") as f:
                got = f.read()
            self.assertEqual(got, run([tool("pagesift"), "-q", "-f", "jsonl", "--dedup", *pages]))
            self.assertEqual((s["extracted"], s["duplicates"]), (3, 3))
            self.assertTrue(s.adds_up())
            recs = [json.loads(line) for line in got.splitlines()]
            self.assertEqual([(r["status"], r["duplicate_of"]) for r in recs],
                             [("ok", None), ("ok", None), ("duplicate", "a1"), ("duplicate", "a1"),
                              ("ok", None), ("duplicate", "a1")])
            # dedup_distance: --dedup-distance (implies dedup); 3 keeps the changed sentence
            it = pagesift.iter_warc(pages, dedup_distance=3)
            self.assertEqual([r["status"] for r in it], ["ok", "ok", "duplicate", "ok", "ok", "duplicate"])
            self.assertEqual(it.summary["duplicates"], 2)
            self.assertTrue(it.summary.adds_up())
            self.assertEqual(pagesift.run(pages, out)["duplicates"], 0)

    def test_failed_pages_are_records(self):
        with tempfile.TemporaryDirectory() as tmp:
            big = os.path.join(tmp, "big.html")
            with open(big, "wb") as f:
                f.write(b"<html><body><p>" + b"x" * 5000 + b"</p></body></html>")
            ok = os.path.join(tmp, "ok.html")
            with open(ok, "wb") as f:
                f.write(b"<html><body><p>A sentence of text that is long enough.</p></body></html>")
            it = pagesift.iter_warc(tmp, max_bytes=1000)
            recs = {r["id"]: r for r in it}
            self.assertEqual(recs["big"]["status"], "failed")
            self.assertIn("big.html", recs["big"]["error"])
            self.assertIsNone(recs["big"]["text"])
            self.assertEqual(it.summary["failed"], 1)
            self.assertTrue(it.summary.adds_up())


class Errors(unittest.TestCase):
    def test_missing_model(self):
        with self.assertRaises(pagesift.ModelError) as c:
            pagesift.Extractor(model="/nonexistent/x.model")
        self.assertIn("/nonexistent/x.model", str(c.exception))
        self.assertEqual(c.exception.status, "io")

    def test_corrupt_model(self):
        with tempfile.NamedTemporaryFile(suffix=".model") as f:
            f.write(b"pagesift-model 1\nfeatures R1\n")
            f.flush()
            with self.assertRaises(pagesift.ModelError) as c:
                pagesift.extract(b"<p>x</p>", model=f.name)
            self.assertIn(f.name, str(c.exception))

    def test_missing_templates(self):
        with self.assertRaises(pagesift.ModelError) as c:
            pagesift.Extractor(templates="/nonexistent/tpl")
        self.assertIn("/nonexistent/tpl", str(c.exception))

    def test_options_table(self):
        # the library's table, as `pagesift --options help` prints it; a value
        # it refuses is an OptionError (a ValueError and an Error) naming the
        # option and what it accepts, whichever keyword it came from
        for method in ("svm", "punct-lines", "all"):
            help_ = run([tool("pagesift"), "--method", method, "--options", "help"]).decode()
            keys = [line.split()[0] for line in help_.splitlines()[1:]
                    if line.startswith("  ") and not line.startswith("   ") and line.strip() != "(none)"]
            table = pagesift.options(method)
            self.assertEqual([o["key"] for o in table], keys, method)
            for o in table:
                self.assertIn(o["accepts"], help_)
                self.assertTrue(o["doc"])
        fill = [o for o in pagesift.options("svm") if o["key"] == "fill"][0]
        self.assertEqual((fill["accepts"], fill["default"]), ("a number in [0, 100]", "1"))
        for kw, says in (({"favor": "more"}, "option favor=more: expected one of balanced, precision, recall"),
                         ({"options": "fill=300"}, "option fill=300: expected a number in [0, 100]"),
                         ({"options": "colour=red"}, "unknown option 'colour' (known: favor,"),
                         ({"method": "punct-lines", "with_comments": True}, "unknown option 'comments'")):
            with self.assertRaises(pagesift.OptionError) as c:
                pagesift.Extractor(**kw)
            self.assertIn(says, str(c.exception))
            self.assertIsInstance(c.exception, ValueError)
            self.assertEqual(c.exception.status, "usage")
        with self.assertRaises(ValueError):
            pagesift.options("no-such-method")

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            pagesift.extract(b"<p>x</p>", favor="more")
        with self.assertRaises(ValueError):
            pagesift.extract(b"<p>x</p>", output="pdf")
        with self.assertRaises(TypeError):
            pagesift.extract(12)
        with self.assertRaises(pagesift.Error) as c:
            pagesift.Extractor(method="no-such-method")
        self.assertIn("no-such-method", str(c.exception))
        ex = pagesift.Extractor()
        ex.close()
        with self.assertRaises(ValueError):
            ex.extract(b"<p>x</p>")

    def test_page_too_large(self):
        ex = pagesift.Extractor(max_bytes=100)
        with self.assertRaises(pagesift.PageError) as c:
            ex.extract(b"<p>" + b"y" * 200 + b"</p>")
        self.assertEqual(c.exception.status, "too_large")
        self.assertTrue(str(c.exception))

    def test_empty_page(self):
        self.assertEqual(pagesift.extract(b""), "")
        self.assertEqual(pagesift.extract(b"", output="json")["status"], "empty")

    def test_missing_input(self):
        recs = list(pagesift.iter_warc("/nonexistent/c.warc.gz"))
        self.assertEqual(len(recs), 1)
        self.assertEqual(recs[0]["status"], "failed")
        self.assertIn("/nonexistent/c.warc.gz", recs[0]["error"])


class Fuzz(unittest.TestCase):
    """Random bytes and damaged real pages through every output: a result
    or a PageError, never a crash (a crash kills this process: the test
    fails)."""

    def test_random_bytes(self):
        rnd = random.Random(18)
        pages = [read(p[2]) for p in sample_pages()[:6]]
        ex = pagesift.Extractor()
        n = 0
        for i in range(400):
            kind = i % 4
            if kind == 0:
                data = bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 3000)))
            else:
                data = bytearray(rnd.choice(pages))
                if kind == 1:  # cut anywhere
                    data = data[:rnd.randrange(len(data))]
                for _ in range(rnd.randrange(1, 40)):  # flip bytes, insert NULs and markup
                    pos = rnd.randrange(len(data) + 1)
                    what = rnd.choice([b"\x00", b"<", b"</div>", b"<script>", b"\xff\xfe",
                                       b"<meta charset=utf-16>", bytes([rnd.getrandbits(8)])])
                    data[pos:pos] = what
                data = bytes(data)
            output = ("text", "json", "markdown", "xml")[i % 4]
            try:
                r = ex.extract(data, "http://fuzz.example/%d" % i, output=output)
            except pagesift.PageError as e:
                self.assertTrue(str(e))
                continue
            n += 1
            if output == "json":
                json.dumps(r)
                self.assertIn(r["status"], ("ok", "empty"))
            else:
                self.assertIsInstance(r, str)
        self.assertGreater(n, 300)  # most of them are pages of some kind


    def test_damaged_warc_streams(self):
        """Cut and flipped WARC bytes through iter_warc (a file object, so
        the pipe path): records and counts that add up, no hang, no crash."""
        rnd = random.Random(1818)
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("s.warc", "s.warc.gz"):
                data = read(make_warc(os.path.join(tmp, name), SAMPLE))
                for i in range(6):
                    d = bytearray(data)
                    if i % 2 == 0:
                        d = d[:rnd.randrange(len(d))]
                    for _ in range(rnd.randrange(1, 30)):
                        d[rnd.randrange(len(d))] = rnd.getrandbits(8)
                    it = pagesift.iter_warc(io.BytesIO(bytes(d)))
                    recs = list(it)
                    s = it.summary
                    self.assertTrue(s.adds_up(), s)
                    self.assertEqual(len(recs), s["extracted"] + s["empty"] + s["failed"])
                    for r in recs:
                        self.assertIn(r["status"], ("ok", "empty", "failed"))


class Threads(unittest.TestCase):
    def test_threads_agree_with_one(self):
        pages = [(read(p[2]), p[1]) for p in sample_pages()]
        ex = pagesift.Extractor()
        one = [ex.extract(h, u, output="json") for h, u in pages]
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            for _ in range(3):
                many = list(pool.map(lambda hu: ex.extract(hu[0], hu[1], output="json"), pages))
                self.assertEqual(many, one)


    def test_gil_released_while_extracting(self):
        """Python code runs in another thread while one page is being
        extracted: the main thread makes progress in the middle of one long
        library call.  (If the call held the GIL, no bytecode of another
        thread could run before it returned.)  No timing threshold: it holds
        on a loaded machine too."""
        import threading
        import time
        paras = "".join("<div class=c%d><p>Paragraph %d of a long article, with words "
                        "enough to be a sentence of text.</p></div>" % (i % 7, i)
                        for i in range(40000))
        page = ("<html><body><article>%s</article></body></html>" % paras).encode()
        ex = pagesift.Extractor()
        window = []

        def work():
            t0 = time.monotonic()
            ex.extract(page)
            window.extend((t0, time.monotonic()))

        t = threading.Thread(target=work)
        t.start()
        stamps = []
        while t.is_alive():
            stamps.append(time.monotonic())
            time.sleep(0.001)
        t.join()
        t0, t1 = window
        d = t1 - t0
        self.assertGreater(d, 0.05)
        middle = [x for x in stamps if t0 + 0.25 * d < x < t0 + 0.75 * d]
        self.assertTrue(middle, "no progress of the main thread during %.2f s of extraction" % d)


class Features(unittest.TestCase):
    def test_features_are_the_tools(self):
        with tempfile.TemporaryDirectory() as tmp:
            csv_path = os.path.join(tmp, "b.csv")
            run([tool("pagesift-features"), "-q", "-x", "-o", csv_path, SAMPLE])
            rows = pagesift.features(SAMPLE, extended=True, csv_path=os.path.join(tmp, "p.csv"))
            with open(csv_path, "rb") as a, open(os.path.join(tmp, "p.csv"), "rb") as b:
                self.assertEqual(a.read(), b.read())
            self.assertGreater(len(rows), 100)
            self.assertEqual({r["label"] for r in rows} - {None}, {0, 1})
            self.assertIsInstance(rows[0]["R1"], (int, float))
            # one page in memory, with its gold
            pid, url, path, _ = sample_pages()[0]
            gold = read(os.path.join(SAMPLE, "gold", pid + ".txt"))
            one = pagesift.features(read(path), url, gold=gold, extended=True)
            self.assertEqual(one, pagesift.features(read(path).decode("utf-8"), url,
                                                    gold=gold.decode("utf-8"), extended=True))
            mine = [r for r in rows if r["page_id"] == pid]
            strip = lambda r: {k: v for k, v in r.items() if k not in ("dataset", "page_id", "block_id")}
            self.assertEqual([strip(r) for r in one], [strip(r) for r in mine])

    def test_train_is_the_tools(self):
        with tempfile.TemporaryDirectory() as tmp:
            csv_path = os.path.join(tmp, "b.csv")
            run([tool("pagesift-features"), "-q", "-o", csv_path, SAMPLE])
            grid = ["--c-range", "0:2:2", "--gamma-range", "-3:-1:2", "-k", "3", "-j", "1"]
            run([tool("pagesift-train"), "-q", "-o", os.path.join(tmp, "cli.model"), csv_path] + grid)
            kw = dict(c_range=(0, 2, 2), gamma_range=(-3, -1, 2), folds=3, threads=1)
            info = pagesift.train(csv_path, os.path.join(tmp, "py.model"), **kw)
            with open(os.path.join(tmp, "cli.model"), "rb") as a, \
                    open(os.path.join(tmp, "py.model"), "rb") as b:
                self.assertEqual(a.read(), b.read())
            # from rows in memory: the same model but for the file name it
            # records (and the bundle's checksum, which covers that line)
            pagesift.train(pagesift.features(SAMPLE), os.path.join(tmp, "rows.model"), **kw)
            with open(os.path.join(tmp, "cli.model")) as a, open(os.path.join(tmp, "rows.model")) as b:
                strip = lambda f: [l for l in f if not l.startswith(("data_files ", "checksum "))]
                self.assertEqual(strip(a), strip(b))
            self.assertGreater(info["f1"], 0.3)
            self.assertEqual(info["features"], "R1,R2,R3,R4,R5")
            self.assertEqual(info["block_tags"], "body,section,div")
            # rows cut with other block tags: the bundle records them
            tagged = pagesift.train(pagesift.features(SAMPLE, block_tags=["body", "div", "p"]),
                                    os.path.join(tmp, "p.model"), **kw)
            self.assertEqual(tagged["block_tags"], "body,div,p")
            with open(os.path.join(tmp, "p.model")) as f:
                self.assertIn("block_tags body,div,p\n", f.read())
            # the model works for extraction
            text = pagesift.extract(read(sample_pages()[1][2]),
                                    model=os.path.join(tmp, "py.model"))
            self.assertTrue(text)
            with self.assertRaises(pagesift.Error) as c:
                pagesift.train(os.path.join(tmp, "missing.csv"), os.path.join(tmp, "x.model"))
            self.assertIn("missing.csv", str(c.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
