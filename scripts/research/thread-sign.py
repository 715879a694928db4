#!/usr/bin/python3
"""scripts/research/thread-sign.py - does a page hold a thread of posts, each with an author and a date?

A measurement for issue 34 (docs/research/QUALITY.md, "Page types, fourteenth
round"), not part of extraction: how well a structural sign separates forum
threads from articles with comments, before any of it is written in C.  On the
raw HTML (lxml; scripts, styles and noscript removed), the elements of one tag
and class (digits left out), at least 3 and none inside another, are a
structure.  A page has the sign when some structure has at least 3 members,
at least 80 % of them holding a date (a <time>, or a date or "N days ago" in
their text) and an author (a link to a user or member page, an avatar image,
an element of class author/user/username), together at least 30 % of the
body's text, the first of them within its first 15 %.  --first-post also
asks that the first member's text be longer than the text before it.

Usage: /usr/bin/python3 scripts/research/thread-sign.py SET_DIR [IDS_FILE] [--first-post]
SET_DIR is a data set folder (index.tsv, html/<id>.html or .html.gz); IDS_FILE
limits it to the ids listed.  Prints a line a page: id, page_type (or -), 1 or
0, and for 1 the structure (tag and class) and its members.  Needs Debian's
python3-lxml (hence /usr/bin/python3).
"""
import collections
import csv
import gzip
import os
import re
import sys

import lxml.html
from lxml import etree

DATE = re.compile(
    r'\b(19|20)\d\d[-/.]\d\d?[-/.]\d\d?\b'
    r'|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d\d?,? (19|20)\d\d\b'
    r'|\b\d\d? (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* (19|20)\d\d\b'
    r'|\b\d+ (minutes?|hours?|days?|weeks?|months?|years?) ago\b', re.I)
USER = re.compile(r'/(user|users|member|members|u|profile|profiles|people|author|authors)/'
                  r'|[?&](u|user|userid|uid)=|/@', re.I)
AVATAR = ('.//img[contains(@class,"avatar") or contains(@src,"avatar") or contains(@alt,"avatar")]')
AUTHOR = ('.//*[contains(@class,"author") or contains(@class,"user") or contains(@class,"username")]')


def has_author(el):
    return (any(USER.search(a.get('href') or '') for a in el.xpath('.//a[@href]'))
            or bool(el.xpath(AVATAR)) or bool(el.xpath(AUTHOR)))


def thread_sign(raw, first_post):
    """The (characters, (tag, class), members) of the largest structure with the sign, or None."""
    try:
        doc = lxml.html.fromstring(raw)
    except (ValueError, etree.ParserError):
        return None
    for el in doc.xpath('//script|//style|//noscript'):
        el.drop_tree()
    body = doc.find('body')
    if body is None:
        body = doc
    total = len(body.text_content())
    if total == 0:
        return None
    before = {}  # characters of text before each element, in document order
    pos = 0
    groups = collections.defaultdict(list)
    for el in body.iter():
        before[el] = pos
        pos += len(el.text or '') + len(el.tail or '')
        if isinstance(el.tag, str) and el.get('class'):
            groups[(el.tag, re.sub(r'\d+', '', el.get('class')).strip())].append(el)
    best = None
    for key, els in groups.items():
        members = set(els)
        els = [e for e in els if not any(a in members for a in e.iterancestors())]
        if len(els) < 3:
            continue
        chars = signed = 0
        for e in els:
            text = e.text_content()
            chars += len(text)
            signed += (bool(e.xpath('.//time')) or bool(DATE.search(text))) and has_author(e)
        if signed < 3 or signed < 0.8 * len(els) or chars < 0.3 * total or before[els[0]] > 0.15 * total:
            continue
        if first_post and before[els[0]] > len(els[0].text_content()):
            continue
        if best is None or chars > best[0]:
            best = (chars, key, len(els))
    return best


def main(argv):
    first_post = '--first-post' in argv
    args = [a for a in argv if a != '--first-post']
    if not args or args[0] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if args else 2
    root = args[0]
    ids = set(open(args[1]).read().split()) if len(args) > 1 else None
    html = os.path.join(root, 'html')
    with open(os.path.join(root, 'index.tsv'), newline='') as f:
        rows = list(csv.DictReader(f, delimiter='\t'))
    for r in rows:
        i = r['id']
        paths = [os.path.join(html, i + ext) for ext in ('.html', '.htm', '.html.gz', '.htm.gz')]
        paths = [p for p in paths if os.path.exists(p)]
        if (ids and i not in ids) or not paths:
            continue
        path = paths[0]
        with open(path, 'rb') as f:
            raw = f.read()
        if path.endswith('.gz'):
            raw = gzip.decompress(raw)
        best = thread_sign(raw, first_post)
        print(i, r.get('page_type') or '-', 1 if best else 0,
              '%s.%s' % best[1] if best else '', best[2] if best else '', sep='\t', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
