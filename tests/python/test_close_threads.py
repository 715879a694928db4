"""Extractor.close() while other threads extract (issue 32, defect 2).
Before, close() freed the library's extractor under threads still inside
ps_extract_input: a segfault 3 times of 3 (ASan: heap-use-after-free in
chunk_row, train/predict.c, after ps_extractor_free).  Now close() waits
for the calls in flight, and a call made after it (or while it waits)
raises ClosedError (a ValueError too).  Real threads: four workers extract
the sample's pages in a loop while the main thread closes the Extractor
after a random delay, ten rounds; every call either returns a text or
raises ClosedError, and every worker ends.  A property part: random
interleavings of extract, block_tags and close from several threads."""
import os
import random
import threading
import time
import unittest

from _common import SAMPLE, SANITIZE
import pagesift

PAGES = []
for name in sorted(os.listdir(os.path.join(SAMPLE, "html")))[:6]:
    with open(os.path.join(SAMPLE, "html", name), "rb") as f:
        PAGES.append(f.read())


def worker(ex, out, stop_after=None):
    n = 0
    try:
        while stop_after is None or n < stop_after:
            for page in PAGES:
                text = ex.extract(page, "http://example.org/%d" % n)
                if not isinstance(text, str):
                    out.append(("bad result", type(text)))
                    return
                n += 1
        out.append(("done", n))
    except pagesift.ClosedError as e:
        out.append(("closed", n, str(e)))
    except Exception as e:  # anything else is a failure
        out.append(("error", repr(e)))


class CloseWhileExtracting(unittest.TestCase):

    def test_close_waits_for_threads(self):
        rng = random.Random(32)
        rounds = 4 if SANITIZE else 10
        for r in range(rounds):
            ex = pagesift.Extractor()
            out = []
            threads = [threading.Thread(target=worker, args=(ex, out)) for _ in range(4)]
            for t in threads:
                t.start()
            time.sleep(rng.uniform(0.05, 0.4))
            ex.close()
            for t in threads:
                t.join(60)
                self.assertFalse(t.is_alive(), "a worker still runs after close")
            self.assertEqual(len(out), 4, out)
            for o in out:
                self.assertEqual(o[0], "closed", "round %d: %r" % (r, o))
                self.assertIn("closed", o[2])
            # after close: every call raises, close again is a no-op
            with self.assertRaises(pagesift.ClosedError):
                ex.extract(PAGES[0])
            with self.assertRaises(ValueError):  # as before the fix
                ex.block_tags
            ex.close()

    def test_random_interleavings(self):
        rng = random.Random(2)
        for r in range(6 if SANITIZE else 20):
            ex = pagesift.Extractor()
            out = []
            closers = []

            def closer(delay):
                time.sleep(delay)
                ex.close()
                closers.append("closed")

            def tags():
                try:
                    for _ in range(200):
                        self.assertIn("div", ex.block_tags)
                    out.append(("done",))
                except pagesift.ClosedError:
                    out.append(("closed",))

            threads = [threading.Thread(target=worker, args=(ex, out, rng.randrange(1, 8)))
                       for _ in range(rng.randrange(1, 5))]
            threads.append(threading.Thread(target=tags))
            threads += [threading.Thread(target=closer, args=(rng.uniform(0, 0.2),))
                        for _ in range(rng.randrange(1, 3))]
            rng.shuffle(threads)
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
                self.assertFalse(t.is_alive())
            self.assertTrue(closers)
            for o in out:
                self.assertIn(o[0], ("done", "closed"), o)
            with self.assertRaises(pagesift.ClosedError):
                ex.extract(PAGES[0])


if __name__ == "__main__":
    unittest.main()
