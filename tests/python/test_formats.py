"""The binding's output formats are the library's format table: OUTPUTS is
what `pagesift --format help` lists (and "json"), every one renders a page
as the CLI writes it for that page alone, and the CSV row reads back as the
JSON record (docs/CSV.md)."""
import csv
import io
import json
import os
import tempfile
import unittest

from _common import SAMPLE, run, sample_pages, tool
import pagesift


def without_origin(fmt, s):
    """A one-page jsonl or csv output as a dict without its origin (the
    CLI's is the file's path, the binding's is absent: None, or "" in CSV)."""
    rec = json.loads(s) if fmt == "jsonl" else next(csv.DictReader(io.StringIO(s, newline="")))
    return {k: v for k, v in rec.items() if k != "origin"}, rec["origin"]


class Formats(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pages = sample_pages()[:4]

    def test_outputs_are_the_table(self):
        listed = [l.split()[0] for l in run([tool("pagesift"), "--format", "help"]).decode().splitlines()[1:]
                  if l.startswith("  ") and not l.startswith("   ")]
        self.assertIn("csv", listed)
        self.assertEqual(list(pagesift.OUTPUTS), listed + ["json"])

    def test_each_format_as_the_cli(self):
        for pid, url, path, site in self.pages:
            with open(path, "rb") as f:
                html = f.read()
            for fmt in pagesift.OUTPUTS:
                if fmt in ("json", "text"):
                    continue
                cli = run([tool("pagesift"), "-q", "-f", fmt, path]).decode("utf-8")
                got = pagesift.extract(html, None, output=fmt, id=pid)
                if fmt in ("jsonl", "csv"):  # the records' origin: the CLI's path, None here
                    (cli, _), (got, origin) = without_origin(fmt, cli), without_origin(fmt, got)
                    self.assertIn(origin, (None, ""))
                self.assertEqual(got, cli, (pid, fmt))

    def test_csv_row_is_the_record(self):
        for pid, url, path, site in self.pages:
            with open(path, "rb") as f:
                html = f.read()
            rec = pagesift.extract(html, url, output="json", id=pid, site=site)
            rows = list(csv.DictReader(io.StringIO(pagesift.extract(html, url, output="csv", id=pid,
                                                                   site=site), newline="")))
            self.assertEqual(len(rows), 1)
            self.assertEqual(list(rows[0]), [k for k in rec if k != "text"] + ["text"])
            for k, v in rec.items():
                want = "" if v is None else ",".join(v) if isinstance(v, list) else \
                    ("%.2f" % v if k == "lang_confidence" else "%.3f" % v if k == "page_type_prob" else str(v))
                self.assertEqual(rows[0][k], want, (pid, k))

    def test_run_csv(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "sample.csv")
            summary = pagesift.run(SAMPLE, out, output="csv")
            with open(out, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), summary["read"])
            self.assertEqual(set(r["status"] for r in rows), {"ok"})


if __name__ == "__main__":
    unittest.main()
