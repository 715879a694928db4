"""test_layout.py for the headers beyond pagesift.h and pagesift/batch.h:
the ctypes structures of python/pagesift/_lib.py that mirror a structure of
one of OTHER_HEADERS (OTHER_STRUCTS: the page's decoding, training, the block
CSV) have the size and field offsets the C compiler gives it."""
import ctypes
import os
import subprocess
import tempfile
import unittest

from _common import SRC
from pagesift import _lib as L


class OtherLayout(unittest.TestCase):
    def test_structs_match_the_headers(self):
        lines = ['#include <stddef.h>', '#include <stdio.h>', '#include <pagesift.h>']
        lines += ['#include <%s>' % h for h in L.OTHER_HEADERS]
        lines.append('int main(void) {')
        expect = []
        for name, cls in sorted(L.OTHER_STRUCTS.items()):
            lines.append('printf("%s %%zu\\n", sizeof(%s));' % (name, name))
            expect.append("%s %d" % (name, ctypes.sizeof(cls)))
            for field in cls._fields_:
                f = field[0]
                lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (name, f, name, f))
                expect.append("%s.%s %d" % (name, f, getattr(cls, f).offset))
        lines.append("return 0; }")
        with tempfile.TemporaryDirectory() as tmp:
            c = os.path.join(tmp, "layout.c")
            with open(c, "w") as fh:
                fh.write("\n".join(lines) + "\n")
            exe = os.path.join(tmp, "layout")
            subprocess.run(["cc", "-std=c11", "-I", os.path.join(SRC, "include"), c, "-o", exe],
                           check=True)
            got = subprocess.run([exe], check=True, stdout=subprocess.PIPE).stdout.decode().split("\n")
        self.assertEqual([g for g in got if g], expect)

    def test_every_mirror_is_checked(self):
        """No structure of the binding escapes both layout tests."""
        mirrors = {n for n, v in vars(L).items()
                   if isinstance(v, type) and issubclass(v, ctypes.Structure) and n.startswith("ps_")}
        self.assertEqual(mirrors, set(L.STRUCTS) | set(L.OTHER_STRUCTS))


if __name__ == "__main__":
    unittest.main(verbosity=2)
