"""Crawls larger than one machine: pagesift over Dask (docs/PYTHON.md).

    from distributed import Client
    import pagesift.dask
    summary = pagesift.dask.extract_warcs(paths, "out/", client=Client("sched:8786"),
                                          learn_templates=True, split_bytes=1 << 30)

One task per WARC file (or per byte range of a large one, split_bytes), each
writing its records -- exactly what `pagesift --format jsonl` writes for them
-- to OUTPUT_DIR/shards/<shard>.jsonl atomically (a temporary file renamed),
then its counts to <shard>.summary.json.  A shard whose summary exists is
done: running again with the same inputs resumes (finished shards are
skipped), and a task that dies with its worker is run again from the start
by the scheduler, so no record is lost or written twice.

learn_templates=True is the CLI's --learn-templates at scale, in two stages:
  1. per shard, the pages with a site key are copied (up to sample_per_site
     per site, default all of them) into per-site buckets; per bucket, the
     sites' template libraries are built from their pages in input order
     (shard order, then record order: the order one `pagesift
     --learn-templates` run adds them in) into OUTPUT_DIR/templates;
  2. every shard is extracted with those libraries (template-svm).
With every page in the sample the libraries, and so the records, are the
ones a single run makes.

OUTPUT_DIR holds manifest.json (the shards and options: a resumed run must
have the same), shards/, templates/ (learn_templates), _work/ (stage 1's
buckets and markers, attempts.log: one line per task start and end, with the
pid) and summary.json.
"""
import base64
import contextlib
import gzip
import hashlib
import json
import os
import re
import shutil
import socket
import tempfile
import threading
import uuid
import zlib
from collections import namedtuple

import pagesift
from pagesift import _lib as L
from pagesift import warcsplit

__all__ = ["extract_warcs", "shards_of", "Shard", "read_records"]

Shard = namedtuple("Shard", "name path start end whole")


def shards_of(paths, split_bytes=None):
    """The shards of @paths: a whole file each, or with split_bytes the
    ranges of at most that many bytes of a larger file."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out = []
    seen = set()
    for p in paths:
        p = os.fspath(p)
        if not os.path.isfile(p):
            raise pagesift.InputError("%s: not a file" % p, "io")
        h = hashlib.sha1(os.path.abspath(p).encode("utf-8", "surrogateescape")).hexdigest()[:10]
        base = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(p))[:80]
        rs = warcsplit.ranges(p, split_bytes)
        for a, b in rs:
            whole = len(rs) == 1
            name = "%s-%s" % (base, h) if whole else "%s-%s-%012d" % (base, h, a)
            if name in seen:
                raise ValueError("%s is given twice" % p)
            seen.add(name)
            out.append(Shard(name, p, a, b, whole))
    return out


def _log(work, line):
    os.makedirs(work, exist_ok=True)
    fd = os.open(os.path.join(work, "attempts.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, ("%s %d %s\n" % (line, os.getpid(), socket.gethostname())).encode())
    finally:
        os.close(fd)


def _write_json_atomic(path, obj):
    tmp = "%s.tmp.%d.%s" % (path, os.getpid(), uuid.uuid4().hex[:8])
    with open(tmp, "w") as f:
        json.dump(obj, f, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@contextlib.contextmanager
def _shard_input(shard):
    """(path to read, rewrite of a record line or None); path None: the
    range holds no record."""
    if shard.whole:
        yield shard.path, None
        return
    gz = warcsplit.is_gzip(shard.path)
    a = warcsplit.boundary(shard.path, shard.start, gz)
    b = warcsplit.boundary(shard.path, shard.end, gz)
    if a >= b:
        yield None, None
        return
    tmpdir = tempfile.mkdtemp(prefix="pagesift-range-")
    fifo = os.path.join(tmpdir, "range.warc")
    os.mkfifo(fifo)

    def feed():
        try:
            with open(fifo, "wb") as out, open(shard.path, "rb") as f:
                f.seek(a)
                left = b - a
                while left > 0:
                    chunk = f.read(min(left, 1 << 20))
                    if not chunk:
                        break
                    out.write(chunk)
                    left -= len(chunk)
        except OSError:
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    # offsets in the range -> offsets in the file, the pipe's name -> the file's
    # (a record inside a gzip member of several records is at an offset of
    # the range's uncompressed stream: kept, with where the range starts)
    pat = re.compile(re.escape(json.dumps(fifo)[1:-1]) + r"@(uncompressed )?offset (\d+)")
    name = json.dumps(shard.path)[1:-1]

    def sub(m):
        if not m.group(1):
            return "%s@offset %d" % (name, int(m.group(2)) + a)
        if a == 0:
            return "%s@uncompressed offset %s" % (name, m.group(2))
        return "%s@uncompressed offset %s (of the range from byte %d)" % (name, m.group(2), a)

    def fix(line):
        return pat.sub(sub, line)

    try:
        yield fifo, fix
    finally:
        try:  # a writer still waiting for its reader: let it go
            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass
        t.join(timeout=30)
        shutil.rmtree(tmpdir, ignore_errors=True)


def _extract_shard(shard, out_dir, opts):
    """Stage 2 (or the only stage): one shard into shards/<name>.jsonl."""
    shards = os.path.join(out_dir, "shards")
    work = os.path.join(out_dir, "_work")
    final = os.path.join(shards, shard.name + ".jsonl")
    summ = os.path.join(shards, shard.name + ".summary.json")
    if os.path.exists(summ):
        with open(summ) as f:
            s = json.load(f)
        s["resumed"] = 1
        return s
    _log(work, "start extract " + shard.name)
    os.makedirs(shards, exist_ok=True)
    run_opts = dict(opts)
    with _shard_input(shard) as (src, fix):
        if src is None:
            with open(final + ".tmp.empty", "w"):
                pass
            os.replace(final + ".tmp.empty", final)
            s = pagesift.Summary.of(L.ps_batch_counts())
        elif fix is None:
            s = pagesift.run(src, final, output="json", **run_opts)
        else:
            raw = final + ".raw"
            s = pagesift.run(src, raw, output="json", **run_opts)
            tmp = "%s.tmp.%d" % (final, os.getpid())
            with open(raw, encoding="utf-8", newline="") as fin, \
                    open(tmp, "w", encoding="utf-8", newline="") as fout:
                for line in fin:
                    fout.write(fix(line))
                fout.flush()
                os.fsync(fout.fileno())
            os.replace(tmp, final)
            os.unlink(raw)
    s = dict(s)
    s["shard"] = shard.name
    _write_json_atomic(summ, s)
    _log(work, "done extract " + shard.name)
    s["resumed"] = 0
    return s


def _bucket_of(site, n):
    return zlib.crc32(site.encode("utf-8", "surrogateescape")) % n


def _sample_shard(shard, out_dir, n_buckets, cap, max_bytes):
    """Stage 1a: the shard's pages with a site key, by bucket of their site."""
    work = os.path.join(out_dir, "_work", "sample")
    done = os.path.join(work, shard.name + ".done.json")
    if os.path.exists(done):
        with open(done) as f:
            return json.load(f)
    _log(os.path.join(out_dir, "_work"), "start sample " + shard.name)
    os.makedirs(work, exist_ok=True)
    files, tmps, writers = {}, {}, {}
    per_site = {}
    pages = 0
    err = L.ps_error()
    keep = []
    with _shard_input(shard) as (src_path, _fix):
        try:
            if src_path is not None:
                src = pagesift._source(src_path, max_bytes, keep)
                inp = L.ps_input()
                site = L.ctypes.create_string_buffer(512)
                try:
                    while True:
                        r = L.ps_source_next(src, inp, err)
                        if r < 0:
                            pagesift._raise(err, pagesift.InputError)
                        if r == 0:
                            break
                        if inp.skipped or inp.status != 0:
                            continue
                        L.ps_input_site(inp, L.PS_SITE_HOST, site, 512)
                        if not site.value:
                            continue
                        s = site.value.decode("utf-8", "surrogateescape")
                        n = per_site.get(s, 0)
                        if cap and n >= cap:
                            continue
                        per_site[s] = n + 1
                        k = _bucket_of(s, n_buckets)
                        if k not in writers:
                            files[k] = os.path.join(work, "%s.b%04d.jsonl.gz" % (shard.name, k))
                            tmps[k] = "%s.tmp.%d" % (files[k], os.getpid())
                            writers[k] = gzip.open(tmps[k], "wt", encoding="utf-8", compresslevel=1)
                        rec = {"site": s, "id": L.cstr(inp.id), "url": L.cstr(inp.url),
                               "charset": L.cstr(inp.charset),
                               "html": base64.b64encode(L.ctypes.string_at(inp.data, inp.len)).decode()}
                        writers[k].write(json.dumps(rec) + "\n")
                        pages += 1
                finally:
                    L.ps_input_clear(inp)
                    L.ps_source_free(src)
            for k, w in writers.items():
                w.close()
                os.replace(tmps[k], files[k])
            writers = {}
        finally:
            for k, w in writers.items():
                w.close()
                os.unlink(tmps[k])
    res = {"shard": shard.name, "pages": pages, "sites": len(per_site),
           "buckets": sorted(writers_k for writers_k in files)}
    _write_json_atomic(done, res)
    _log(os.path.join(out_dir, "_work"), "done sample " + shard.name)
    return res


def _learn_bucket(k, shard_names, out_dir, cap, max_bytes):
    """Stage 1b: the libraries of one bucket's sites, pages in input order."""
    work = os.path.join(out_dir, "_work")
    done = os.path.join(work, "learn", "b%04d.done.json" % k)
    if os.path.exists(done):
        with open(done) as f:
            return json.load(f)
    _log(work, "start learn b%04d" % k)
    os.makedirs(os.path.dirname(done), exist_ok=True)
    templates = os.path.join(out_dir, "templates")
    b = L.ps_template_builder_new(None)
    if not b:
        raise MemoryError("out of memory")
    err = L.ps_error()
    taken = {}
    added = 0
    try:
        for name in shard_names:
            path = os.path.join(work, "sample", "%s.b%04d.jsonl.gz" % (name, k))
            if not os.path.exists(path):
                continue
            with gzip.open(path, "rt", encoding="utf-8") as f:
                for line in f:
                    rec = json.loads(line)
                    s = rec["site"]
                    if cap and taken.get(s, 0) >= cap:
                        continue
                    taken[s] = taken.get(s, 0) + 1
                    data = base64.b64decode(rec["html"])
                    inp = L.ps_input()
                    buf = L.malloc(len(data) + 1)
                    L.ctypes.memmove(buf, data, len(data))
                    L.ctypes.memset(buf + len(data), 0, 1)
                    inp.data, inp.len = buf, len(data)
                    inp.id = L.strdup(pagesift._enc(rec["id"] or ""))
                    inp.url = L.strdup(pagesift._enc(rec["url"] or ""))
                    inp.charset = L.strdup(pagesift._enc(rec["charset"])) if rec["charset"] else None
                    try:
                        page = L.ps_input_page(inp, None, max_bytes, None)
                        if page:  # a page that cannot be parsed is left out, as the CLI does
                            try:
                                if L.ps_template_builder_add(b, pagesift._enc(s), page, err) == 0:
                                    added += 1
                            finally:
                                L.ps_page_free(page)
                    finally:
                        L.ps_input_clear(inp)
        sites = L.ps_template_builder_sites(b)
        if sites and L.ps_template_builder_write_dir(b, pagesift._enc(templates), err) != 0:
            pagesift._raise(err, pagesift.InputError)
    finally:
        L.ps_template_builder_free(b)
    res = {"bucket": k, "pages": added, "sites": sites}
    _write_json_atomic(done, res)
    _log(work, "done learn b%04d" % k)
    return res


def _run_tasks(client, fn, argsets, keys, retries):
    if client is not None:
        futs = [client.submit(fn, *args, key=key, retries=retries, pure=False)
                for args, key in zip(argsets, keys)]
        return client.gather(futs)
    import dask
    tasks = [dask.delayed(fn, pure=False)(*args) for args in argsets]
    return list(dask.compute(*tasks, scheduler="threads"))


def _default_client():
    try:
        from distributed import get_client
        return get_client()
    except (ImportError, ValueError):
        return None


def extract_warcs(paths, output_dir, client=None, *, learn_templates=False, templates=None,
                  model=None, favor=None, with_comments=False, method=None, options=None,
                  split_bytes=None, threads=1, sample_per_site=None, buckets=None, max_bytes=0,
                  page_timeout=None, retries=2):
    """Extract every WARC file of @paths on a Dask cluster into @output_dir.

    client: a distributed.Client (None: the current one, else Dask's local
    threaded scheduler); split_bytes: one task per range of this many bytes
    of a larger file (None: one task per file); threads: the library's
    threads inside each task; learn_templates / templates / model / favor /
    with_comments / method / options: as the CLI's; sample_per_site: most
    pages per site the templates learn from (None: all, as the CLI);
    buckets: stage-1 learning tasks (default: one per 50 shards, at least
    1); retries: how often a task that raised is run again (a task lost
    with its worker is rescheduled by Dask anyway).

    Returns the summary (also written to output_dir/summary.json): read,
    extracted, empty, failed, skipped (read = the other four), bytes, shards,
    shards_resumed, learnt_pages, learnt_sites, and per-shard "files" in
    input order (concatenated, they are the CLI's output for @paths)."""
    # checked here, on the client, as the CLI checks its options: a bad one
    # fails the call, not every task on the cluster
    learn_templates = pagesift._flag("learn_templates", learn_templates)
    with_comments = pagesift._flag("with_comments", with_comments)
    model, templates = pagesift._path("model", model), pagesift._path("templates", templates)
    pagesift._text("method", method, binary=False)
    pagesift._text("options", options, binary=False)
    split_bytes = pagesift._whole("split_bytes", split_bytes, 1, 2 ** 63 - 1, none_ok=True)
    threads = pagesift._whole("threads", threads, 1, 1024)
    sample_per_site = pagesift._whole("sample_per_site", sample_per_site, 1, 2 ** 31 - 1, none_ok=True)
    buckets = pagesift._whole("buckets", buckets, 1, 100000, none_ok=True)
    max_bytes = pagesift._max_bytes(max_bytes)
    page_timeout = pagesift._seconds("page_timeout", page_timeout)
    retries = pagesift._whole("retries", retries, 0, 1000)
    if learn_templates and templates:
        raise ValueError("templates and learn_templates exclude each other")
    out_dir = os.path.abspath(os.fspath(pagesift._path("output_dir", output_dir)))
    shards = shards_of(paths, split_bytes)
    if not shards:
        raise ValueError("no WARC files given")
    n_buckets = buckets or max(1, (len(shards) + 49) // 50)
    manifest = {
        "version": 1, "shards": [list(s) for s in shards], "learn_templates": bool(learn_templates),
        "templates": os.path.abspath(templates) if templates else None,
        "model": os.path.abspath(model) if model else None, "favor": favor,
        "with_comments": bool(with_comments), "method": method, "options": options,
        "sample_per_site": sample_per_site, "buckets": n_buckets, "max_bytes": max_bytes,
    }
    os.makedirs(out_dir, exist_ok=True)
    mpath = os.path.join(out_dir, "manifest.json")
    if os.path.exists(mpath):
        with open(mpath) as f:
            old = json.load(f)
        if old != json.loads(json.dumps(manifest)):
            raise pagesift.Error("%s holds a run of other inputs or options; resume it with the same "
                                 "ones or use another folder" % out_dir, "usage")
    else:
        _write_json_atomic(mpath, manifest)
    if client is None:
        client = _default_client()
    token = uuid.uuid4().hex[:8]
    # the model is loaded here first: a bad one fails the run before any task
    if not learn_templates:
        pagesift.Extractor(model, templates, favor=favor, with_comments=with_comments,
                           method=method, options=options).close()
    learnt_pages = learnt_sites = 0
    tpl_dir = templates
    if learn_templates:
        _run_tasks(client, _sample_shard,
                   [(s, out_dir, n_buckets, sample_per_site, max_bytes) for s in shards],
                   ["pagesift-sample-%s-%s" % (s.name, token) for s in shards], retries)
        names = [s.name for s in shards]
        learnt = _run_tasks(client, _learn_bucket,
                            [(k, names, out_dir, sample_per_site, max_bytes) for k in range(n_buckets)],
                            ["pagesift-learn-b%04d-%s" % (k, token) for k in range(n_buckets)], retries)
        learnt_pages = sum(r["pages"] for r in learnt)
        learnt_sites = sum(r["sites"] for r in learnt)
        tpl_dir = os.path.join(out_dir, "templates")
        os.makedirs(tpl_dir, exist_ok=True)
    opts = {"model": model, "templates": tpl_dir, "favor": favor, "with_comments": with_comments,
            "method": method, "options": options, "workers": threads, "max_bytes": max_bytes,
            "page_timeout": page_timeout}
    results = _run_tasks(client, _extract_shard, [(s, out_dir, opts) for s in shards],
                         ["pagesift-extract-%s-%s" % (s.name, token) for s in shards], retries)
    total = pagesift.Summary()
    for r in results:
        total = total + r
    summary = dict(total)
    summary["learnt_pages"] = learnt_pages
    summary["learnt_sites"] = learnt_sites
    summary["shards"] = len(shards)
    summary["shards_resumed"] = sum(r.get("resumed", 0) for r in results)
    summary["files"] = [os.path.join(out_dir, "shards", s.name + ".jsonl") for s in shards]
    # temporary files of tasks that died with their worker
    for d in (os.path.join(out_dir, "shards"), os.path.join(out_dir, "_work", "sample")):
        if os.path.isdir(d):
            for n in os.listdir(d):
                if ".tmp." in n or n.endswith(".raw"):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(d, n))
    _write_json_atomic(os.path.join(out_dir, "summary.json"), summary)
    return summary


def read_records(output_dir):
    """The records of a finished run, shard by shard in input order."""
    with open(os.path.join(output_dir, "summary.json")) as f:
        files = json.load(f)["files"]
    for path in files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                yield json.loads(line)
