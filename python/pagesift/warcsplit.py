"""Record boundaries inside a WARC file, for reading a byte range of a large
one: a range [a, b) holds the records that *start* in it, so ranges that
tile a file hand out every record exactly once.  Each reader finds its own
boundaries (no index, no scan of the whole file by one process):

  - gzip WARC, one member per record (as crawlers write them): the first
    gzip member at or after the offset whose data starts "WARC/1.";
  - plain WARC: the first "WARC/1." at a line start at or after the offset
    whose header's Content-Length ends, after the record's "\\r\\n\\r\\n", at
    the end of the file or at the next "WARC/1." -- text that merely looks
    like a header inside a payload does not pass.

A gzip file that is one member for the whole file has a single boundary,
0: the range holding offset 0 reads everything, the others nothing.
"""
import os
import re
import zlib

_GZ_MAGIC = b"\x1f\x8b\x08"
_CHUNK = 1 << 20


def is_gzip(path):
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def _gz_member_is_warc(f, pos):
    f.seek(pos)
    raw = f.read(65536)
    d = zlib.decompressobj(31)
    try:
        out = d.decompress(raw, 16)
    except zlib.error:
        return False
    return out.startswith(b"WARC/1.")


_CL = re.compile(rb"^content-length:[ \t]*(\d+)[ \t]*$", re.I | re.M)


def _plain_record_at(f, pos, size):
    f.seek(pos)
    head = f.read(65536)
    if not head.startswith(b"WARC/1."):
        return False
    end = head.find(b"\r\n\r\n")
    sep = 4
    if end < 0:
        end, sep = head.find(b"\n\n"), 2
        if end < 0:
            return False
    m = _CL.search(head[:end].replace(b"\r\n", b"\n"))
    if not m:
        return False
    nxt = pos + end + sep + int(m.group(1))
    if nxt > size:
        return False
    f.seek(nxt)
    tail = f.read(64)
    rest = tail.lstrip(b"\r\n")
    return nxt == size or not rest or rest.startswith(b"WARC/1.")


def boundary(path, offset, gz=None):
    """The offset of the first record starting at or after @offset (the
    file's size when none does)."""
    size = os.path.getsize(path)
    if offset <= 0:
        return 0
    if offset >= size:
        return size
    if gz is None:
        gz = is_gzip(path)
    needle = _GZ_MAGIC if gz else b"WARC/1."
    with open(path, "rb") as f:
        pos = offset
        while pos < size:
            f.seek(pos)
            buf = f.read(_CHUNK + len(needle))
            if not buf:
                break
            i = 0
            while True:
                i = buf.find(needle, i)
                if i < 0 or i >= _CHUNK:
                    break
                cand = pos + i
                if gz:
                    if _gz_member_is_warc(f, cand):
                        return cand
                else:
                    line_start = cand == 0 or (i > 0 and buf[i - 1:i] == b"\n")
                    if i == 0 and cand > 0:
                        f.seek(cand - 1)
                        line_start = f.read(1) == b"\n"
                    if line_start and _plain_record_at(f, cand, size):
                        return cand
                i += 1
            pos += _CHUNK
    return size


def ranges(path, split_bytes):
    """Nominal ranges [(a, b), ...] of at most @split_bytes tiling the file
    (their readers move both ends to record boundaries)."""
    size = os.path.getsize(path)
    if not split_bytes or size <= split_bytes:
        return [(0, size)]
    return [(a, min(a + split_bytes, size)) for a in range(0, size, split_bytes)]
