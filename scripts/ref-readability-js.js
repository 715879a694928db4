// scripts/ref-readability-js.js — the worker of scripts/ref-readability-js:
// node ref-readability-js.js SET_DIR OUT_DIR ID_FILE.  Runs Readability.js
// on html/<id>.html (or .html.gz) of every id in ID_FILE and writes OUT_DIR/<id>.txt.
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const path = require('path');
const { JSDOM, VirtualConsole } = require('jsdom');
const { Readability } = require('@mozilla/readability');

const [setDir, outDir, idFile] = process.argv.slice(2);
const urls = {};
const lines = fs.readFileSync(path.join(setDir, 'index.tsv'), 'utf8').split('\n');
const head = lines[0].split('\t');
const iId = head.indexOf('id'), iUrl = head.indexOf('url');
for (const l of lines.slice(1)) {
  const f = l.split('\t');
  if (f[iId]) urls[f[iId]] = iUrl >= 0 ? f[iUrl] : '';
}
const BLOCK = new Set(('address article aside blockquote body br dd div dl dt figcaption figure ' +
  'footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tbody td tfoot ' +
  'th thead tr ul').split(' '));

function walk(node, out) {
  if (node.nodeType === 3) { out.push(node.nodeValue); return; }
  if (node.nodeType !== 1 && node.nodeType !== 11) return;
  const block = node.nodeType === 1 && BLOCK.has(node.localName);
  if (block) out.push('\n');
  for (const ch of node.childNodes) walk(ch, out);
  if (block) out.push('\n');
}

function toText(html) {
  const out = [];
  walk(JSDOM.fragment(html), out);
  return out.join('').split('\n').map(l => l.replace(/\s+/g, ' ').trim())
    .filter(l => l).map(l => l + '\n').join('');
}

// html/<id>.html, or html/<id>.html.gz as a gzipped set (wcxb-dev) keeps it
function readPage(id) {
  const base = path.join(setDir, 'html', id + '.html');
  if (!fs.existsSync(base) && fs.existsSync(base + '.gz')) return zlib.gunzipSync(fs.readFileSync(base + '.gz'));
  return fs.readFileSync(base);
}

const vc = new VirtualConsole(); // silence the pages' CSS/script complaints
let failed = 0;
for (const id of fs.readFileSync(idFile, 'utf8').split('\n').filter(x => x)) {
  try {
    const bytes = readPage(id);
    let url = urls[id] || '';
    if (!/^https?:\/\//.test(url)) url = 'http://example.invalid/';
    const dom = new JSDOM(bytes, { url, virtualConsole: vc });
    let article;
    try { article = new Readability(dom.window.document).parse(); } finally { dom.window.close(); }
    if (!article || article.content == null) { failed++; process.stderr.write(`ref-readability-js: ${id}: no article\n`); continue; }
    const tmp = path.join(outDir, id + '.txt.tmp');
    fs.writeFileSync(tmp, toText(article.content));
    fs.renameSync(tmp, path.join(outDir, id + '.txt'));
  } catch (e) {
    failed++;
    process.stderr.write(`ref-readability-js: ${id}: ${String(e && e.message || e).slice(0, 200)}\n`);
  }
}
