"""The ctypes structures of python/pagesift/_lib.py have the size and the
field offsets the C compiler gives the header's structures: a field added to
include/pagesift.h without the binding following fails here, instead of
reading the wrong memory."""
import os
import subprocess
import tempfile
import unittest

from _common import SRC
from pagesift import _lib as L


class Layout(unittest.TestCase):
    def test_structs_match_the_header(self):
        lines = ['#include <stddef.h>', '#include <stdio.h>', '#include <pagesift.h>',
                 '#include <pagesift/batch.h>', 'int main(void) {']
        expect = []
        for name, cls in sorted(L.STRUCTS.items()):
            lines.append('printf("%s %%zu\\n", sizeof(%s));' % (name, name))
            expect.append("%s %d" % (name, ctypes_sizeof(cls)))
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


class Sanitizer(unittest.TestCase):
    def test_asan_is_in_the_interpreter(self):
        """In the sanitizer build the library's calls from Python are
        checked: the ASan runtime is loaded (LD_PRELOAD, tests/CMakeLists.txt)."""
        import ctypes
        from _common import SANITIZE
        if not SANITIZE:
            self.skipTest("not the sanitizer build")
        self.assertTrue(hasattr(ctypes.CDLL(None), "__asan_report_load1"))
        self.assertTrue(hasattr(L.lib, "__asan_report_load1") or
                        hasattr(ctypes.CDLL(None), "__asan_init"))


def ctypes_sizeof(cls):
    import ctypes
    return ctypes.sizeof(cls)


if __name__ == "__main__":
    unittest.main(verbosity=2)
