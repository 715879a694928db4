"""pagesift: strip the boilerplate from web pages -- the Python binding of
libpagesift (ctypes over the library's public API; docs/PYTHON.md).

    import pagesift
    text = pagesift.extract(open("page.html", "rb").read(), "https://example.org/a")
    rec = pagesift.extract(html, url, output="json")      # the CLI's JSON Lines record
    ex = pagesift.Extractor(model="my.model")              # load once, use from many threads
    for rec in pagesift.iter_warc("crawl.warc.gz"):        # records of a WARC file
        ...

The C library does the work: the GIL is released while a page is parsed and
extracted, so threads that share an Extractor run in parallel.
"""
import ctypes
import csv
import io
import json
import math
import numbers
import os
import re
import stat
import tempfile
import threading

from . import _lib as L

__all__ = [
    "extract", "Extractor", "iter_warc", "Records", "run", "Summary", "features", "train",
    "Error", "ModelError", "PageError", "InputError", "ClosedError", "OptionError", "version",
    "methods", "options", "OUTPUTS",
]



def _format_names():
    """The library's output formats, in the order of its format table."""
    names, i = [], 0
    while L.ps_format_name(i) is not None:
        names.append(L.ps_format_name(i).decode("ascii"))
        i += 1
    return tuple(names)


# Every format of the library (`pagesift --format help`), and "json": the
# JSON Lines record as a dict (extract) or JSON Lines (run).
OUTPUTS = _format_names() + ("json",)
_BATCH_FORMAT = {name: L.ps_format_find(name.encode("ascii")) for name in OUTPUTS}
_BATCH_FORMAT["json"] = L.ps_format_find(b"jsonl")
_SITE_RULES = {"host": L.PS_SITE_HOST, "host-path1": L.PS_SITE_HOST_PATH1}


class Error(Exception):
    """An error of libpagesift: str(e) is the library's message; e.status
    names its code ("io", "format", "too_large", "parse", "usage",
    "version", "timeout", "nomem")."""

    def __init__(self, msg, status="usage"):
        super().__init__(msg)
        self.status = status


class ModelError(Error):
    """The model bundle or template library cannot be loaded (missing,
    truncated, foreign, other version): the CLI's exit code 3."""


class ClosedError(Error, ValueError):
    """A call on an Extractor that is closed (or being closed by another
    thread).  A ValueError too, as before."""


class OptionError(Error, ValueError):
    """An option the method's table refuses (unknown, or a value it does
    not accept): the message names the option and what it accepts.  A
    ValueError too."""


class PageError(Error):
    """One page could not be made into a document or extracted (too large,
    over a bound, no document, timeout)."""


class InputError(Error):
    """An input (file, folder, WARC) cannot be read."""


def _raise(err, cls=Error):
    status = L.STATUS_NAMES[err.code] if 0 <= err.code < len(L.STATUS_NAMES) else str(err.code)
    msg = err.msg.decode("utf-8", "replace") or "pagesift: unknown error"
    if status == "nomem":
        raise MemoryError(msg)
    raise cls(msg, status)


def version():
    """The library's version, e.g. "0.1.0"."""
    return L.ps_version().decode()


def methods():
    """Names of the extraction methods (as --method takes them)."""
    return [L.ps_method_name(i).decode() for i in range(L.ps_method_count())]


def options(method="svm"):
    """The options of a method (`pagesift --method METHOD --options help`),
    from its table in the library, in order: dicts with key, accepts (what
    values it takes), default (as options= takes it; "" when the method
    decides) and doc."""
    if not isinstance(method, str) or method not in methods():
        raise ValueError("method: %r is not one of %s" % (method, ", ".join(methods())))
    out, info = [], L.ps_option_info()
    while L.ps_method_option(method.encode(), len(out), ctypes.byref(info)) == 0:
        out.append({"key": info.key.decode(), "accepts": info.accepts.decode(),
                    "default": info.default_value.decode(), "doc": info.doc.decode()})
    return out


# ---------------------------------------------------------------------------
# Arguments, checked as the tools check their options (a wrong type is a
# TypeError, a value outside the tool's range a ValueError): ctypes would
# otherwise wrap -1 or 2**64 - 1 to a size_t that turns a cap off, wrap
# 2**64 to 0 (the default) and pass str(123) as a URL.

_MAX_BYTES_CAP = 1 << 30  # pagesift --max-bytes: 1 byte to 1 GiB


def _whole(name, v, lo, hi, none_ok=False):
    """An int (not a bool) from lo to hi; None when none_ok."""
    if v is None and none_ok:
        return None
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError("%s: %r is not a whole number" % (name, v))
    v = int(v)
    if not lo <= v <= hi:
        raise ValueError("%s: %r is not a number from %d to %d" % (name, v, lo, hi))
    return v


def _max_bytes(v):
    """0 (the default, 64 MiB) or, as --max-bytes, 1 byte to 1 GiB."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError("max_bytes: %r is not a whole number" % (v,))
    if v != 0 and not 1 <= v <= _MAX_BYTES_CAP:
        raise ValueError("max_bytes: %r is not a size from 1 byte to 1 GiB (0: the default, "
                         "64 MiB)" % (v,))
    return int(v)


def _seconds(name, v, hi=86400.0):
    """None, or a finite number of seconds from 0 to hi (--page-timeout)."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError("%s: %r is not a number of seconds" % (name, v))
    f = float(v)
    if not (math.isfinite(f) and 0 <= f <= hi):
        raise ValueError("%s: %r is not a number of seconds from 0 to %g" % (name, v, hi))
    return f


def _fraction(name, v, lo_open, hi):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError("%s: %r is not a number" % (name, v))
    f = float(v)
    if not (math.isfinite(f) and lo_open < f <= hi):
        raise ValueError("%s: %r is not in (%g, %g]" % (name, v, lo_open, hi))
    return f


def _text(name, v, binary=True):
    """None, or a str (bytes too when binary) without NUL (a C string ends
    at the first)."""
    if v is None:
        return None
    if isinstance(v, str) or (binary and isinstance(v, (bytes, bytearray))):
        if ("\0" if isinstance(v, str) else b"\0") in v:
            raise ValueError("%s: %r holds a NUL character" % (name, v))
        return v
    raise TypeError("%s must be a str%s, not %s" % (name, " or bytes" if binary else "",
                                                    type(v).__name__))


def _path(name, v):
    """None, or a str, bytes or os.PathLike path."""
    if v is None:
        return None
    if not isinstance(v, (str, bytes, os.PathLike)):
        raise TypeError("%s must be a path (str, bytes or os.PathLike), not %s"
                        % (name, type(v).__name__))
    p = os.fspath(v)
    _text(name, p)
    return p


def _flag(name, v):
    """A bool (0 and 1 taken as False and True)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, numbers.Integral) and v in (0, 1):
        return bool(v)
    raise TypeError("%s: %r is not True or False" % (name, v))


def _bytes_of(html):
    """(bytes, charset): str is encoded UTF-8 and declared so (the text is
    Unicode already: a <meta charset> inside it no longer applies)."""
    if isinstance(html, str):
        return html.encode("utf-8", "surrogatepass"), "utf-8"
    if isinstance(html, (bytes, bytearray, memoryview)):
        return bytes(html), None
    raise TypeError("html must be bytes or str, not %s" % type(html).__name__)


def _enc(s):
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    return os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode("utf-8")


class _Options:
    """A method's options, typed: the library's ps_options, each value
    checked against the method's table as it is set (options= first, then
    with_comments and favor, as the CLI's flags after --options)."""

    def __init__(self, method, favor, with_comments, options):
        options = _text("options", options, binary=False)
        comments = _flag("with_comments", with_comments)
        favor = _text("favor", favor, binary=False)
        err = L.ps_error()
        self._o = L.ps_options_new(method.encode(), ctypes.byref(err))
        if not self._o:
            _raise(err)
        if options and L.ps_options_parse(self._o, options.encode(), ctypes.byref(err)) != 0:
            _raise(err, OptionError)
        if comments and L.ps_options_set(self._o, b"comments", b"0", ctypes.byref(err)) != 0:
            _raise(err, OptionError)
        if favor is not None and L.ps_options_set(self._o, b"favor", favor.encode(),
                                                  ctypes.byref(err)) != 0:
            _raise(err, OptionError)

    def __del__(self):
        if getattr(self, "_o", None):
            L.ps_options_free(self._o)
            self._o = None


def _free_str(p):
    if p:
        L.free(p)


class Extractor:
    """An extraction method set up once -- model loaded, template libraries
    opened -- for many pages.  Thread-safe: extract() may be called from
    several threads at once; the GIL is released while the library works.

    model: a model bundle (None: the shipped one, as the CLI finds it);
    templates: a folder of per-site template libraries (pagesift-template
    build); the method is then template-svm, else svm, as the CLI chooses;
    favor: "precision" | "recall" | "balanced" (None: the default);
    with_comments: keep comment threads under the article;
    method, options: the CLI's --method and --options;
    site_rule: "host" | "host-path1"; max_bytes: page size cap (0: 64 MB).
    """

    def __init__(self, model=None, templates=None, *, favor=None, with_comments=False,
                 method=None, options=None, site_rule="host", max_bytes=0):
        self._ex = None
        # calls in flight (extract, block_tags) under _cv: close() waits for
        # them to end before it frees the library's extractor, and a call
        # after close() (or while it waits) raises ClosedError
        self._cv = threading.Condition(threading.Lock())
        self._users = 0
        self._closing = False
        L.ps_init()
        if not isinstance(site_rule, str) or site_rule not in _SITE_RULES:
            raise ValueError("site_rule: %r is not host or host-path1" % (site_rule,))
        self.method = _text("method", method, binary=False) or ("template-svm" if templates else "svm")
        self.model = _path("model", model)
        self.templates = _path("templates", templates)
        self.options = _text("options", options, binary=False)
        opts = _Options(self.method, favor, with_comments, options)
        self._site_rule = _SITE_RULES[site_rule]
        self._max_bytes = _max_bytes(max_bytes)
        # the strings kept alive for the extractor's life (the config holds pointers)
        self._cfg_strings = (_enc(self.model), _enc(self.templates))
        cfg = L.ps_extractor_config(*self._cfg_strings)
        cfg.method_options = opts._o
        err = L.ps_error()
        ex = L.ps_extractor_new(self.method.encode(), ctypes.byref(cfg), ctypes.byref(err))
        if not ex:
            _raise(err, Error if err.code == 6 else ModelError)
        self._ex = ex
        self._stateful = bool(L.ps_extractor_is_stateful(ex))
        self._lock = threading.Lock() if self._stateful else None

    @property
    def block_tags(self):
        """The block tags pages are parsed with (the model's)."""
        ex = self._enter()
        try:
            tags = L.ps_extractor_block_tags(ex)
            out, i = [], 0
            while tags[i]:
                out.append(tags[i].decode())
                i += 1
            return out
        finally:
            self._leave()

    def _enter(self):
        """Count a call in flight; the library's extractor, or ClosedError."""
        with self._cv:
            if not self._ex or self._closing:
                raise ClosedError("the Extractor is closed")
            self._users += 1
            return self._ex

    def _leave(self):
        with self._cv:
            self._users -= 1
            if not self._users:
                self._cv.notify_all()

    def _check(self):
        if not self._ex or self._closing:
            raise ClosedError("the Extractor is closed")

    def close(self):
        """Free the library's extractor (also done when it is collected).
        Calls in flight in other threads end first (close waits for them);
        calls made after close, or while it waits, raise ClosedError.
        Closing twice does nothing."""
        with self._cv:
            if not self._ex:
                return
            self._closing = True
            while self._users:
                self._cv.wait()
            ex, self._ex = self._ex, None
            L.ps_extractor_free(ex)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def extract(self, html, url=None, *, output="text", charset=None, id=None, site=None,
                links=False, images=False):
        """The main text of one page.

        html: bytes (decoded as the CLI decodes a file: BOM, charset, <meta>,
        detection) or str; url: the page's address (site templates,
        metadata URLs); charset: from an HTTP header; site: the site key
        when the page has no URL (a data set's site column).  output: "text" (str,
        one paragraph per line), any other format of OUTPUTS (str, what
        `pagesift --format NAME` writes for the page: "markdown", "xml",
        "clean-html" with structure, links/images keep those), or "json"
        (dict: the CLI's JSON Lines record, docs/JSONL.md; id sets its "id").  An empty result is
        "" (status "empty").  Raises PageError when no document can be made
        of the bytes (the message is the library's).
        """
        self._check()
        if not isinstance(output, str) or output not in OUTPUTS:
            raise ValueError("output: %r is not one of %s" % (output, ", ".join(OUTPUTS)))
        data, cs = _bytes_of(html)
        url, id, site = _text("url", url), _text("id", id), _text("site", site)
        links, images = _flag("links", links), _flag("images", images)
        if _text("charset", charset) is not None:
            cs = charset
        ex = self._enter()
        try:
            return self._extract(ex, data, cs, url, id, site, output, links, images)
        finally:
            self._leave()

    def _extract(self, ex, data, cs, url, id, site, output, links, images):
        inp = L.ps_input()
        buf = L.malloc(len(data) + 1)
        if not buf:
            raise MemoryError("out of memory")
        ctypes.memmove(buf, data, len(data))
        ctypes.memset(buf + len(data), 0, 1)
        inp.data = buf
        inp.len = len(data)
        inp.id = L.strdup(_enc(id or ""))
        inp.url = L.strdup(_enc(url or ""))
        inp.charset = L.strdup(_enc(cs)) if cs else None
        inp.site = L.strdup(_enc(site)) if site else None
        so = L.ps_step_options(self._site_rule, self._max_bytes, 0.0)
        site = ctypes.create_string_buffer(512)
        page = ctypes.c_void_p()
        x = L.ps_extraction()
        err = L.ps_error()
        try:
            if self._lock:
                with self._lock:
                    rc = L.ps_extract_input(ex, inp, so, site, 512, ctypes.byref(page), x, err)
            else:
                rc = L.ps_extract_input(ex, inp, so, site, 512, ctypes.byref(page), x, err)
            if rc != 0:
                _raise(err, PageError)
            if output == "text":
                return ctypes.string_at(x.text, x.len).decode("utf-8", "replace")
            flags = (L.PS_RENDER_LINKS if links else 0) | (L.PS_RENDER_IMAGES if images else 0)
            n = ctypes.c_size_t()
            p = L.ps_format_page(_BATCH_FORMAT[output], page, x, inp, site.value or None,
                                 L.ps_extractor_method(ex), flags, ctypes.byref(n), err)
            if not p:
                _raise(err)
            try:
                s = ctypes.string_at(p, n.value).decode("utf-8", "replace")
            finally:
                L.free(p)
            return json.loads(s) if output == "json" else s
        finally:
            L.ps_extraction_free(x)
            L.ps_page_free(page)
            L.ps_input_clear(inp)


_shared = {}
_shared_lock = threading.Lock()


def _shared_extractor(model, templates, favor, with_comments):
    key = (None if model is None else os.fspath(model),
           None if templates is None else os.fspath(templates), favor, bool(with_comments))
    ex = _shared.get(key)
    if ex is None:
        with _shared_lock:
            ex = _shared.get(key)
            if ex is None:
                ex = Extractor(key[0], key[1], favor=favor, with_comments=with_comments)
                _shared[key] = ex
    return ex


def extract(html, url=None, *, model=None, templates=None, favor=None, with_comments=False,
            output="text", charset=None, id=None, site=None, links=False, images=False):
    """The main text of one page: bytes or str in, str out (output "text",
    "markdown", "xml", "clean-html", any format of OUTPUTS) or the CLI's JSON
    record as a dict (output "json").  The Extractor for (model, templates, favor,
    with_comments) is made on the first call and reused by later ones (and
    by other threads).  See Extractor.extract."""
    ex = _shared_extractor(model, templates, favor, with_comments)
    return ex.extract(html, url, output=output, charset=charset, id=id, site=site, links=links,
                      images=images)


# ---------------------------------------------------------------------------
# Batches: ps_batch_run, what the pagesift tool runs


class Summary(dict):
    """Counts of a run: read = extracted + empty + failed + skipped +
    filtered + duplicates (the CLI's summary; filtered: pages of another
    language than lang's; duplicates: pages dropped by dedup), bytes,
    learnt_pages / learnt_sites with templates learnt."""

    KEYS = ("read", "extracted", "empty", "failed", "skipped", "filtered", "duplicates", "bytes",
            "learnt_pages", "learnt_sites")

    @classmethod
    def of(cls, counts):
        return cls({k: getattr(counts, k) for k in cls.KEYS})

    def __add__(self, other):
        return Summary({k: self.get(k, 0) + other.get(k, 0) for k in self.KEYS})

    def adds_up(self):
        return self["read"] == (self["extracted"] + self["empty"] + self["failed"] + self["skipped"] +
                                self.get("filtered", 0) + self.get("duplicates", 0))


_LANG_CODE = re.compile(r"[A-Za-z]{2,3}\Z")


def _langs(lang):
    """None, or "de,en" from "de,en" or ["de", "en"] (pagesift --lang)."""
    if lang is None:
        return None
    codes = lang.split(",") if isinstance(lang, str) else list(lang) if isinstance(lang, (list, tuple)) else None
    if not codes or not all(isinstance(c, str) and _LANG_CODE.match(c) for c in codes):
        raise ValueError("lang: %r is not a language code or a list of them (e.g. 'de,en', ['de', 'en'])"
                         % (lang,))
    return ",".join(codes)


def _dedup(cfg, dedup, dedup_distance):
    """pagesift --dedup [--dedup-distance N] into @cfg: dedup a bool,
    dedup_distance None (the default, 6) or 0 (the same words only) to 8;
    a distance implies dedup."""
    dedup = _flag("dedup", dedup)
    d = _whole("dedup_distance", dedup_distance, 0, 8, none_ok=True)
    if dedup or d is not None:
        cfg.dedup = 1
        cfg.dedup_distance = 0 if d is None else d if d else L.PS_DEDUP_EXACT


def _batch_config(model, templates, learn_templates, favor, with_comments, method, options,
                  output, workers, max_bytes, page_timeout, keep, lang=None, dedup=False,
                  dedup_distance=None):
    """(ps_batch_config, extractor or None); @keep collects what must stay alive."""
    if not isinstance(output, str) or output not in _BATCH_FORMAT:
        raise ValueError("output: %r is not one of %s" % (output, ", ".join(sorted(_BATCH_FORMAT))))
    learn_templates = _flag("learn_templates", learn_templates)
    workers = _whole("workers", workers, 1, 1024)  # pagesift -j
    max_bytes = _max_bytes(max_bytes)
    page_timeout = _seconds("page_timeout", page_timeout)
    model, templates = _path("model", model), _path("templates", templates)
    method = _text("method", method, binary=False)
    if learn_templates and templates:
        raise ValueError("templates and learn_templates exclude each other")
    meth = method or ("template-svm" if (templates or learn_templates) else "svm")
    cfg = L.ps_batch_config()
    cfg.format = _BATCH_FORMAT[output]
    cfg.site_rule = L.PS_SITE_HOST
    cfg.max_bytes = max_bytes
    cfg.workers = workers
    cfg.quiet = 1
    cfg.page_timeout = page_timeout or 0.0
    langs = _langs(lang)
    if langs:
        b = _enc(langs)
        keep.append(b)
        cfg.langs = b
    _dedup(cfg, dedup, dedup_distance)
    ex = None
    if learn_templates:
        opts = _Options(meth, favor, with_comments, options)
        xc = L.ps_extractor_config(_enc(model))
        xc.method_options = opts._o
        keep.extend((opts, xc))
        m = _enc(meth)
        keep.append(m)
        cfg.learn_templates = 1
        cfg.method = m
        cfg.extractor_config = ctypes.pointer(xc)
    else:
        ex = Extractor(model, templates, favor=favor, with_comments=with_comments, method=meth,
                       options=options, max_bytes=max_bytes)
        cfg.extractor = ex._ex
    return cfg, ex


def _source(paths, max_bytes, keep):
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)):
        raise TypeError("inputs must be a path or a list of paths, not %s" % type(paths).__name__)
    max_bytes = _max_bytes(max_bytes)
    args = [_enc(_path("input", p)) for p in paths]
    arr = (ctypes.c_char_p * max(1, len(args)))(*args)
    keep.append(arr)
    so = L.ps_source_options(max_bytes, 0, L.ps_fold(0, 0, 0))
    err = L.ps_error()
    src = L.ps_source_open(arr, len(args), None, so, err)
    if not src:
        _raise(err, InputError)
    return src


def run(inputs, output_path, *, output="json", model=None, templates=None,
        learn_templates=False, favor=None, with_comments=False, method=None, options=None,
        workers=1, max_bytes=0, page_timeout=None, lang=None, dedup=False, dedup_distance=None):
    """`pagesift --format FORMAT -o FILE INPUTS...` in-process: every page
    of @inputs (files, folders, WARC files, data sets: docs/INPUTS.md) into
    one file written atomically (a temporary file renamed at the end, so a
    reader never sees half of it).  Returns the Summary.  Raises Error on a
    setup error (model, templates, unreadable output folder); one bad page is
    a failed record, never an exception."""
    keep = []
    path = _enc(_path("output_path", output_path))
    if path is None:
        raise TypeError("output_path must be a path, not None")
    cfg, ex = _batch_config(model, templates, learn_templates, favor, with_comments, method,
                            options, output, workers, max_bytes, page_timeout, keep, lang, dedup,
                            dedup_distance)
    err = L.ps_error()
    try:
        src = _source(inputs, max_bytes, keep)
    except BaseException:
        if ex:
            ex.close()
        raise
    tmp = ctypes.create_string_buffer(4096)
    fp = L.ps_atomic_open(path, tmp, 4096, err)
    if not fp:
        L.ps_source_free(src)
        _raise(err, InputError)
    cfg.out = fp
    counts = L.ps_batch_counts()
    try:
        rc = L.ps_batch_run(cfg, src, counts, err)
    finally:
        L.ps_source_free(src)
        if ex:
            ex.close()
    if rc != 0:
        L.ps_atomic_abort(fp, tmp.value)
        _raise(err)
    if L.ps_atomic_commit(fp, tmp.value, path, err) != 0:
        _raise(err, InputError)
    return Summary.of(counts)


class Records:
    """Iterator over the JSON Lines records (dicts, docs/JSONL.md) of a batch
    run; .summary holds the counts once it is exhausted.  The batch runs in
    a thread of its own (the library's workers under it) and writes into a
    pipe this iterator reads; close() (or leaving a `with` block) stops it."""

    def __init__(self, inputs, *, model=None, templates=None, learn_templates=False, favor=None,
                 with_comments=False, method=None, options=None, workers=1, max_bytes=0,
                 page_timeout=None, lang=None, dedup=False, dedup_distance=None, _cleanup=None):
        self.summary = None
        self._keep = []
        self._cleanup = _cleanup or []
        self._error = None
        cfg, self._ex = _batch_config(model, templates, learn_templates, favor, with_comments,
                                      method, options, "json", workers, max_bytes, page_timeout,
                                      self._keep, lang, dedup, dedup_distance)
        cfg.fail_fast = 1  # the reader went away: stop
        self._interrupt = ctypes.c_int(0)  # close(): stop reading input
        cfg.interrupt = ctypes.pointer(self._interrupt)
        self._src = _source(inputs, max_bytes, self._keep)
        r, w = os.pipe()
        fp = L.fdopen(w, b"w")
        if not fp:
            os.close(r)
            os.close(w)
            L.ps_source_free(self._src)
            raise OSError("fdopen failed")
        cfg.out = fp
        self._cfg = cfg
        self._reader = os.fdopen(r, "rb")
        self._thread = threading.Thread(target=self._run, args=(fp,), daemon=True)
        self._thread.start()

    def _run(self, fp):
        counts = L.ps_batch_counts()
        err = L.ps_error()
        try:
            rc = L.ps_batch_run(self._cfg, self._src, counts, err)
            if rc != 0:
                self._error = err
            self.summary = Summary.of(counts)
        finally:
            L.fclose(fp)

    def __iter__(self):
        return self

    def __next__(self):
        line = self._reader.readline() if self._reader else b""
        if line:
            return json.loads(line)
        self._finish()
        if self._error is not None:
            err, self._error = self._error, None
            _raise(err)
        raise StopIteration

    def _finish(self):
        if self._thread:
            self._interrupt.value = 1
        if self._reader:
            self._reader.close()
            self._reader = None
        if self._thread:
            self._thread.join()
            self._thread = None
            L.ps_source_free(self._src)
            self._src = None
            if self._ex:
                self._ex.close()
            for f in self._cleanup:
                f()
            self._cleanup = []

    def close(self):
        """Stop reading: the run ends at its next record."""
        self._finish()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self._finish()
        except Exception:
            pass


def _feed_fifo(fileobj, fifo):
    def feed():
        try:
            with open(fifo, "wb") as out:
                while True:
                    chunk = fileobj.read(1 << 20)
                    if not chunk:
                        break
                    out.write(chunk)
        except (BrokenPipeError, OSError):
            pass
    t = threading.Thread(target=feed, daemon=True)
    t.start()
    return t


def iter_warc(source, **kwargs):
    """The records of a WARC file (plain or gzip), one dict per HTML page as
    `pagesift --format jsonl` writes it (id, url, site, title, the metadata,
    text, status "ok" / "empty" / "failed", error, charset, origin); records
    that are not pages (requests, images, redirects, ...) are counted in
    .summary["skipped"], not yielded.

    source: a path (a WARC file, also a folder or any input the CLI reads)
    or a list of them, or a binary file object (streamed through a pipe; with
    learn_templates, which reads the input twice, copied to a temporary
    file first).  Keywords: model, templates, learn_templates, favor,
    with_comments, method, options, workers (threads of the library),
    max_bytes, page_timeout, lang ("de,en" or ["de", "en"]: other pages
    are counted in .summary["filtered"], not yielded), dedup (True: a
    duplicate of a page before it is a record of status "duplicate"
    naming it, counted in .summary["duplicates"]) and dedup_distance (0 to
    8, default 6: pagesift --dedup-distance).  Returns a Records
    iterator."""
    if isinstance(source, (str, bytes, os.PathLike, list, tuple)):
        return Records(source, **kwargs)
    if not hasattr(source, "read"):
        raise TypeError("source must be a path or a binary file object")
    tmpdir = tempfile.mkdtemp(prefix="pagesift-")
    path = os.path.join(tmpdir, "stream.warc")

    def cleanup():
        try:
            os.unlink(path)
        except OSError:
            pass
        os.rmdir(tmpdir)

    if kwargs.get("learn_templates"):
        with open(path, "wb") as out:
            while True:
                chunk = source.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
    else:
        os.mkfifo(path)
        _feed_fifo(source, path)
    try:
        return Records(path, _cleanup=[cleanup], **kwargs)
    except BaseException:
        if stat.S_ISFIFO(os.lstat(path).st_mode):  # unblock the feeder
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        cleanup()
        raise


# ---------------------------------------------------------------------------
# Researchers: block features and training


def _number(v):
    if v == "":
        return None
    try:
        f = float(v)
    except ValueError:
        return v
    return int(f) if f.is_integer() and "." not in v and "e" not in v.lower() else f


_TEXT_COLUMNS = {"dataset", "page_id", "url", "site", "block_id", "block_path", "tag", "text"}


class _MemFile:
    """A FILE * over open_memstream: what the library writes, in memory."""

    def __init__(self):
        self.ptr = ctypes.c_void_p()
        self.size = ctypes.c_size_t()
        self.fp = L.open_memstream(ctypes.byref(self.ptr), ctypes.byref(self.size))
        if not self.fp:
            raise MemoryError("open_memstream failed")

    def close(self):
        if self.fp:
            L.fclose(self.fp)
            self.fp = None
        data = ctypes.string_at(self.ptr, self.size.value) if self.ptr else b""
        if self.ptr:
            L.free(self.ptr)
            self.ptr = ctypes.c_void_p()
        return data


def features(source, url=None, *, gold=None, extended=False, block_tags=None, templates=None,
             for_annotation=False, min_text=1, threshold=0.5, preview_chars=0, csv_path=None):
    """Block rows as pagesift-features writes them (docs/BLOCK_CSV.md): a
    list of dicts, one per block (numbers as int/float, empty cells None).

    source: HTML bytes/str of one page (url and gold -- its main text, for
    the labels -- optional), or a path or list of paths (pages, folders,
    WARC files, data sets with their gold or snippets: docs/INPUTS.md).
    extended: the x_* features too; block_tags: a list (None: the default
    body, section, div, as pagesift-features); templates: a folder of site
    libraries, applied where they apply; csv_path: also write the CSV there.
    Pages that fail are left out (as the tool reports and skips them)."""
    url, templates = _text("url", url), _path("templates", templates)
    csv_path = _path("csv_path", csv_path)
    min_text = _whole("min_text", min_text, 0, 10 ** 9)  # pagesift-features --min-text
    preview_chars = _whole("preview_chars", preview_chars, 0, 10 ** 6)  # --preview (0: none)
    threshold = _fraction("threshold", threshold, 0.0, 1.0)  # --threshold: (0, 1]
    if block_tags is not None:
        if isinstance(block_tags, (str, bytes)) or not isinstance(block_tags, (list, tuple)):
            raise TypeError("block_tags must be a list of tag names")
        if not block_tags:
            raise ValueError("block_tags: empty list")
        for t in block_tags:
            _text("block_tags", t, binary=False)
    opts = L.ps_block_csv_options(int(_flag("extended", extended)),
                                  int(_flag("for_annotation", for_annotation)),
                                  preview_chars, min_text, threshold if threshold != 0.5 else 0.0)
    keep = []
    tags_arr = None
    if block_tags:
        enc = [_enc(t) for t in block_tags] + [None]
        tags_arr = (ctypes.c_char_p * len(enc))(*enc)
        opts.block_tags = ctypes.cast(tags_arr, ctypes.POINTER(ctypes.c_char_p))
    err = L.ps_error()
    store = None
    if templates:
        store = L.ps_template_store_open(_enc(templates), err)
        if not store:
            _raise(err, ModelError)
    mem = _MemFile()
    w = L.ps_block_csv_new(mem.fp, opts, err)
    if not w:
        mem.close()
        if store:
            L.ps_template_store_free(store)
        _raise(err)

    def one(inp):
        # the page step up to the method: the one site rule, the site's
        # library when it applies (a page that fails, also out of memory
        # removing templates, is left out)
        site = ctypes.create_string_buffer(512)
        pg = ctypes.c_void_p()
        if L.ps_prepare_input(inp, tags_arr, store, None, site, 512, ctypes.byref(pg), None, err) < 0:
            return
        try:
            dataset = inp.dataset and ctypes.string_at(inp.dataset)
            page_id = ctypes.string_at(inp.id) if inp.id else b""
            if inp.snippets:
                L.ps_block_csv_page_snippets(w, dataset, page_id, site.value, pg, inp.snippets,
                                             None, err)
            else:
                g = gold_of(inp)
                L.ps_block_csv_page(w, dataset, page_id, site.value, pg, g,
                                    len(g) if g else 0, None, err)
        finally:
            L.ps_page_free(pg)

    single = isinstance(source, (bytes, bytearray, memoryview)) or (
        isinstance(source, str) and source.lstrip()[:1] == "<")

    def gold_of(inp):
        if gold is not None and single:
            return _bytes_of(gold)[0]
        if inp.gold_path:
            try:
                with open(ctypes.string_at(inp.gold_path), "rb") as f:
                    return f.read()
            except OSError:
                return None
        return None

    try:
        if single:
            data, cs = _bytes_of(source)
            inp = L.ps_input()
            buf = L.malloc(len(data) + 1)
            ctypes.memmove(buf, data, len(data))
            ctypes.memset(buf + len(data), 0, 1)
            inp.data, inp.len = buf, len(data)
            inp.id = L.strdup(b"page")
            inp.url = L.strdup(_enc(url or ""))
            inp.charset = L.strdup(_enc(cs)) if cs else None
            try:
                one(inp)
            finally:
                L.ps_input_clear(inp)
        else:
            src = _source(source, 0, keep)
            inp = L.ps_input()
            try:
                while True:
                    r = L.ps_source_next(src, inp, err)
                    if r < 0:
                        _raise(err, InputError)
                    if r == 0:
                        break
                    if not inp.skipped and inp.status == 0:
                        one(inp)
            finally:
                L.ps_input_clear(inp)
                L.ps_source_free(src)
    finally:
        rc = L.ps_block_csv_finish(w, err)
        data = mem.close()
        if store:
            L.ps_template_store_free(store)
    if rc != 0:
        _raise(err)
    if csv_path:
        with open(csv_path, "wb") as f:
            f.write(data)
    rows = []
    for row in csv.DictReader(io.StringIO(data.decode("utf-8", "replace"), newline="")):
        rows.append({k: (v if k in _TEXT_COLUMNS else _number(v)) for k, v in row.items()})
    return rows


def train(data, output, *, features="paper", group="page", balance="undersample", seed=1,
          folds=10, c_range=None, gamma_range=None, coarse_fine=False, threads=0,
          cv_max_rows=None, select="f1"):
    """pagesift-train: a grouped k-fold grid search over C and gamma on
    labelled block rows, then the final RBF SVM saved as a model bundle at
    @output (atomically).  data: block CSV path(s), or rows as features()
    returns them (written to a temporary rows.csv, the name the bundle's
    data_files then records).  features: "paper",
    "extended" or a list of column names; group: "page" | "site"; c_range /
    gamma_range: (start, stop, step) of log2 C / log2 gamma.  Returns a dict
    with the chosen point (log2c, log2g, C, gamma), its CV precision,
    recall, f1, accuracy, the data's counts and the model's info."""
    tmp = None
    if isinstance(data, (str, os.PathLike)):
        paths = [os.fspath(data)]
    elif data and isinstance(data, (list, tuple)) and isinstance(data[0], dict):
        tmp = tempfile.mkdtemp(prefix="pagesift-train-")
        with open(os.path.join(tmp, "rows.csv"), "w", newline="", encoding="utf-8") as f:
            wr = csv.DictWriter(f, fieldnames=list(data[0].keys()))
            wr.writeheader()
            for row in data:
                wr.writerow({k: ("" if v is None else v) for k, v in row.items()})
        paths = [os.path.join(tmp, "rows.csv")]
    else:
        paths = [os.fspath(p) for p in data]
    if isinstance(features, (list, tuple)):
        features = ",".join(features)
    groups = {"page": L.PS_GROUP_PAGE, "site": L.PS_GROUP_SITE}
    balances = {"none": L.PS_BALANCE_NONE, "undersample": L.PS_BALANCE_UNDERSAMPLE,
                "weight": L.PS_BALANCE_WEIGHT}
    if not isinstance(group, str) or group not in groups:
        raise ValueError("group: %r is not page or site" % (group,))
    if not isinstance(balance, str) or balance not in balances:
        raise ValueError("balance: %r is not none, undersample or weight" % (balance,))
    if select not in ("f1", "accuracy"):
        raise ValueError("select: %r is not f1 or accuracy" % (select,))
    seed = _whole("seed", seed, 0, 2 ** 64 - 1)  # pagesift-train --seed
    folds = _whole("folds", folds, 2, 1000)  # --folds
    threads = _whole("threads", threads, 0, 1024)  # -j (0: every core)
    cv_max_rows = _whole("cv_max_rows", cv_max_rows, 0, 2 ** 64 - 1, none_ok=True)
    coarse_fine = _flag("coarse_fine", coarse_fine)
    output = _path("output", output)
    if output is None:
        raise TypeError("output must be a path, not None")
    err = L.ps_error()
    arr = (ctypes.c_char_p * len(paths))(*[_enc(p) for p in paths])
    d = m = None
    grid = L.ps_train_grid()
    have_grid = False
    try:
        d = L.ps_train_data_load(arr, len(paths), _enc(features), groups[group], err)
        if not d:
            _raise(err)
        info = L.ps_train_data_info()
        L.ps_train_data_get_info(d, info)
        o = L.ps_train_options()
        L.ps_train_options_init(o)
        o.balance = balances[balance]
        o.seed = int(seed)
        o.folds = int(folds)
        o.select_accuracy = 1 if select == "accuracy" else 0
        o.coarse_fine = int(bool(coarse_fine))
        o.threads = int(threads)
        o.quiet = 1
        if c_range:
            o.c_start, o.c_stop, o.c_step = map(float, c_range)
        if gamma_range:
            o.g_start, o.g_stop, o.g_step = map(float, gamma_range)
        if cv_max_rows is not None:
            o.cv_max_rows = int(cv_max_rows)
        if L.ps_train_grid_search(d, o, grid, err) != 0:
            _raise(err)
        have_grid = True
        best = grid.points[grid.best]
        m = L.ps_train_final(d, o, best.log2c, best.log2g, grid, 0, err)
        if not m:
            _raise(err)
        if L.ps_model_save(m, _enc(output), err) != 0:
            _raise(err, InputError)
        sv = L.ps_model_info(m, b"support_vectors")
        return {
            "model": os.fspath(output), "log2c": best.log2c, "log2g": best.log2g,
            "C": 2.0 ** best.log2c, "gamma": 2.0 ** best.log2g,
            "precision": best.precision, "recall": best.recall, "f1": best.f1,
            "accuracy": best.accuracy, "folds": grid.folds, "cv_rows": grid.cv_rows,
            "rows": info.rows, "content": info.content, "noise": info.noise,
            "unlabelled": info.unlabelled, "groups": info.groups,
            "features": info.features.decode(),
            "block_tags": info.block_tags.decode(),
            "support_vectors": int(sv) if sv else None,
        }
    finally:
        if m:
            L.ps_model_free(m)
        if have_grid:
            L.ps_train_grid_free(grid)
        if d:
            L.ps_train_data_free(d)
        if tmp:
            os.unlink(os.path.join(tmp, "rows.csv"))
            os.rmdir(tmp)
