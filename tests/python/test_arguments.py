"""Every argument of the Python binding is checked as the tools check their
options (issue 32, defect 10): before, ctypes wrapped max_bytes=-1 and
2**64-1 to a size_t that turned the page cap off (a 100 MB page accepted,
1.2 GB RSS), 2**64 to 0 (the default), and url=123, charset=5 passed as
text.  A wrong type is a TypeError, a value outside the tool's range a
ValueError, each naming the argument; a property test throws random
values of every kind at each numeric argument and checks that exactly the
tool's range is taken."""
import math
import os
import random
import tempfile
import unittest

from _common import SAMPLE  # noqa: F401 (sets the library path)
import pagesift

PAGE = b"<html><head><title>t</title></head><body><p>" + b"Some article text here. " * 40 + b"</p></body></html>"
GiB = 1 << 30

# values of every kind: whole numbers around each range's edges, huge and
# negative ones, bools, floats (nan, inf), strings, None, containers
def values(rng):
    edge = [0, 1, 2, 255, 1024, 1025, 86400, 86401, 10 ** 6, 10 ** 9, GiB - 1, GiB, GiB + 1,
            2 ** 31, 2 ** 32, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, 2 ** 64, 2 ** 100]
    out = edge + [-v for v in edge if v] + [True, False, 0.0, 0.5, 1.5, -0.0, float("nan"),
                                              float("inf"), -float("inf"), "8M", "1", b"1", None,
                                              [1], {}, object()]
    out += [rng.randrange(-2 ** 70, 2 ** 70) for _ in range(40)]
    out += [rng.uniform(-1e6, 1e6) for _ in range(20)]
    return out


def whole(v):
    return isinstance(v, int) and not isinstance(v, bool)


def real(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


class Arguments(unittest.TestCase):
    def refused(self, fn, exc=(TypeError, ValueError), name=None):
        with self.assertRaises(exc) as cm:
            fn()
        if name:
            self.assertIn(name, str(cm.exception))

    def test_max_bytes_the_defect(self):
        # the reported values: the cap turned off, or wrapped to the default
        for v in (-1, 2 ** 64 - 1, 2 ** 64, GiB + 1):
            self.refused(lambda: pagesift.Extractor(method="all", max_bytes=v), ValueError, "max_bytes")
        for v in (True, 1.5, "8M", None):
            self.refused(lambda: pagesift.Extractor(method="all", max_bytes=v), TypeError, "max_bytes")
        # a cap that is taken holds
        with pagesift.Extractor(method="all", max_bytes=100) as ex:
            with self.assertRaises(pagesift.PageError) as cm:
                ex.extract(PAGE)
            self.assertEqual(cm.exception.status, "too_large")
        with pagesift.Extractor(method="all", max_bytes=0) as ex:
            self.assertIn("Some article text", ex.extract(PAGE))

    def test_text_arguments(self):
        with pagesift.Extractor(method="all") as ex:
            for kw in ({"url": 123}, {"charset": 5}, {"id": 7}, {"site": ["a"]}, {"url": 1.5},
                       {"charset": object()}):
                name = next(iter(kw))
                self.refused(lambda: ex.extract(PAGE, **kw), TypeError, name)
            for kw in ({"url": "http://a\0b/"}, {"charset": "utf-8\0"}, {"id": "x\0"}):
                self.refused(lambda: ex.extract(PAGE, **kw), ValueError, next(iter(kw)))
            for kw in ({"links": 2}, {"images": "yes"}, {"output": 3}, {"output": ["text"]}):
                self.refused(lambda: ex.extract(PAGE, **kw))
            # what is right is taken: str and bytes, None
            self.assertIn("Some article text", ex.extract(PAGE, url="http://example.org/a",
                                                           charset="utf-8", id="p1", site="example.org"))
            self.assertIn("Some article text", ex.extract(PAGE, url=b"http://example.org/a"))
            rec = ex.extract(PAGE, output="json", id="p1", url=None)
            self.assertEqual(rec["id"], "p1")
        for kw in ({"model": 5}, {"templates": 1.0}, {"method": 3}, {"options": 1},
                   {"favor": 1}, {"favor": ["precision"]}, {"with_comments": "yes"}, {"site_rule": 1},
                   {"site_rule": ["host"]}):
            self.refused(lambda: pagesift.Extractor(**kw))
        self.refused(lambda: pagesift.extract(PAGE, url=123), TypeError, "url")

    def test_batch_arguments(self):
        with tempfile.TemporaryDirectory() as d:
            page = os.path.join(d, "p.html")
            with open(page, "wb") as f:
                f.write(PAGE)
            out = os.path.join(d, "out.jsonl")
            bad = [{"workers": 0}, {"workers": -1}, {"workers": 2 ** 64}, {"workers": 1025},
                   {"workers": 1.0}, {"max_bytes": -1}, {"max_bytes": 2 ** 64 - 1},
                   {"max_bytes": 2 ** 64}, {"page_timeout": -1}, {"page_timeout": float("nan")},
                   {"page_timeout": float("inf")}, {"page_timeout": 86401}, {"page_timeout": "5"},
                   {"learn_templates": "no"}, {"output": 1}, {"method": 1}, {"lang": ""},
                   {"lang": "e"}, {"lang": "de,"}, {"lang": ["de", 5]}, {"lang": 5},
                   {"dedup": "yes"}, {"dedup": 2}, {"dedup_distance": 9}, {"dedup_distance": -1},
                   {"dedup_distance": 1.5}, {"dedup_distance": True}]
            for kw in bad:
                self.refused(lambda: pagesift.run([page], out, **kw), name=next(iter(kw)))
                self.refused(lambda: pagesift.iter_warc(page, **kw), name=next(iter(kw)))
                self.assertFalse(os.path.exists(out))
            self.refused(lambda: pagesift.run(page, 5), TypeError, "output_path")
            self.refused(lambda: pagesift.run(5, out), TypeError, "inputs")
            self.refused(lambda: pagesift.run([page, 5], out), TypeError, "input")
            s = pagesift.run([page], out, method="all", workers=2, max_bytes=GiB, page_timeout=0.5)
            self.assertEqual(s["extracted"], 1)
            recs = list(pagesift.iter_warc(page, method="all", max_bytes=100))
            self.assertEqual([r["status"] for r in recs], ["failed"])  # the cap holds

    def test_features_and_train_arguments(self):
        for kw in ({"min_text": -1}, {"min_text": 1.5}, {"threshold": 0}, {"threshold": 1.5},
                   {"threshold": float("nan")}, {"preview_chars": -1}, {"preview_chars": 10 ** 7},
                   {"extended": "yes"}, {"block_tags": "div"}, {"block_tags": []},
                   {"block_tags": [1]}, {"url": 5}, {"templates": 5}):
            self.refused(lambda: pagesift.features(PAGE, **kw), name=next(iter(kw)))
        rows = pagesift.features(PAGE, url="http://example.org/", min_text=0, threshold=1)
        self.assertTrue(rows)
        for kw in ({"seed": -1}, {"seed": 2 ** 64}, {"folds": 1}, {"folds": 1001}, {"threads": -1},
                   {"cv_max_rows": -5}, {"select": "best"}, {"group": 1}, {"balance": None}):
            self.refused(lambda: pagesift.train("/nonexistent.csv", "/nonexistent/x.model", **kw),
                         name=next(iter(kw)))

    def test_random_values_take_exactly_the_range(self):
        rng = random.Random(32)
        checks = [
            # (argument, call, accepted when)
            ("max_bytes", lambda v: pagesift.Extractor(method="all", max_bytes=v).close(),
             lambda v: whole(v) and 0 <= v <= GiB),
            ("workers", lambda v: pagesift.iter_warc([], method="all", workers=v).close(),
             lambda v: whole(v) and 1 <= v <= 1024),
            ("page_timeout", lambda v: pagesift.iter_warc([], method="all", page_timeout=v).close(),
             lambda v: v is None or (real(v) and 0 <= v <= 86400)),
            ("min_text", lambda v: pagesift.features(PAGE, min_text=v),
             lambda v: whole(v) and 0 <= v <= 10 ** 9),
            ("threshold", lambda v: pagesift.features(PAGE, threshold=v),
             lambda v: real(v) and 0 < v <= 1),
        ]
        for name, call, ok in checks:
            for v in values(rng):
                try:
                    call(v)
                    took = True
                except (TypeError, ValueError) as e:
                    self.assertIn(name, str(e))
                    took = False
                except pagesift.InputError:  # iter_warc([]): no input, after the checks
                    took = True
                self.assertEqual(took, ok(v), "%s=%r: %s" % (name, v, "taken" if took else "refused"))


if __name__ == "__main__":
    unittest.main()
