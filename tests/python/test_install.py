"""`cmake --install` puts the package where Debian's /usr/bin/python3 looks
for the prefix -- /usr: lib/python3/dist-packages, /usr/local:
lib/python3.X/dist-packages (both on its sys.path; checked with DESTDIR, the
real folders untouched), any other prefix (~/.local, the user site):
lib/python3.X/site-packages -- and the installed package finds the
installed library by a path relative to itself: it works with no
PAGESIFT_LIBRARY, out of the build, and after the prefix is moved."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from _common import BIN, SAMPLE

PY = "/usr/bin/python3"
VER = "%d.%d" % sys.version_info[:2]


def install(prefix, destdir=None):
    env = dict(os.environ)
    if destdir:
        env["DESTDIR"] = destdir
    subprocess.run(["cmake", "--install", BIN, "--prefix", prefix], check=True, env=env,
                   stdout=subprocess.DEVNULL)


def clean_env(pythonpath=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PAGESIFT_LIBRARY", "PAGESIFT_MODEL", "LD_LIBRARY_PATH")}
    env["PATH"] = "/usr/bin:/bin"
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


PROBE = ("import pagesift, sys; t = pagesift.extract(open(sys.argv[1], 'rb').read()); "
         "print(pagesift._lib.LIBRARY_PATH); print(t[:200])")


class Install(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pagesift-pyinstall-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def probe(self, site, cwd):
        page = os.path.join(SAMPLE, "html", "dragnet-14.html")
        p = subprocess.run([PY, "-c", PROBE, page], cwd=cwd, env=clean_env(site),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        lib, text = p.stdout.decode().split("\n", 1)
        return lib, text

    def test_any_prefix_and_moved(self):
        P = os.path.join(self.tmp, "prefix")
        install(P)
        site = os.path.join(P, "lib", "python" + VER, "site-packages")
        self.assertTrue(os.path.isfile(os.path.join(site, "pagesift", "__init__.py")))
        self.assertTrue(os.path.isfile(os.path.join(site, "pagesift", "dask.py")))
        lib, text = self.probe(site, self.tmp)
        self.assertTrue(os.path.realpath(lib).startswith(os.path.realpath(P)), lib)
        self.assertIn("Transplanted lungs", text)
        # nothing installed names the build or the prefix: move it, it still works
        Q = os.path.join(self.tmp, "moved")
        os.rename(P, Q)
        lib, text = self.probe(os.path.join(Q, "lib", "python" + VER, "site-packages"), self.tmp)
        self.assertTrue(os.path.realpath(lib).startswith(os.path.realpath(Q)), lib)
        self.assertIn("Transplanted lungs", text)

    def test_readme_install(self):
        """The README's install (--prefix ~/.local), then the issue's one-liner
        with Debian's python3 and nothing set: a HOME of its own, so the
        real ~/.local is not touched."""
        home = os.path.join(self.tmp, "home")
        os.makedirs(home)
        install(os.path.join(home, ".local"))
        env = clean_env()
        env["HOME"] = home
        env.pop("PYTHONNOUSERSITE", None)
        page = os.path.join(SAMPLE, "html", "dragnet-14.html")
        p = subprocess.run([PY, "-c", "import pagesift; print(pagesift.extract(open(%r,'rb').read())[:80])"
                            % page], cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertIn("Transplanted lungs", p.stdout.decode())

    def test_debian_folders(self):
        d = os.path.join(self.tmp, "dest")
        install("/usr/local", d)
        install("/usr", d)
        local = os.path.join(d, "usr/local/lib/python%s/dist-packages/pagesift/__init__.py" % VER)
        usr = os.path.join(d, "usr/lib/python3/dist-packages/pagesift/__init__.py")
        self.assertTrue(os.path.isfile(local), local)
        self.assertTrue(os.path.isfile(usr), usr)
        # and those are folders Debian's python3 searches
        paths = subprocess.run([PY, "-c", "import sys; print('\\n'.join(sys.path))"],
                               env=clean_env(), stdout=subprocess.PIPE, check=True).stdout.decode()
        self.assertIn("/usr/local/lib/python%s/dist-packages" % VER, paths.split("\n"))
        self.assertIn("/usr/lib/python3/dist-packages", paths.split("\n"))
        # ~/.local (the README's prefix) is the user site of Debian's python3
        user = subprocess.run([PY, "-m", "site", "--user-site"], env=clean_env(),
                              stdout=subprocess.PIPE, check=True).stdout.decode().strip()
        self.assertEqual(user, os.path.expanduser("~/.local/lib/python%s/site-packages" % VER))


if __name__ == "__main__":
    if os.path.realpath(sys.executable) != os.path.realpath(PY):
        print("note: run by %s; the install is checked for %s" % (sys.executable, PY))
    unittest.main(verbosity=2)
