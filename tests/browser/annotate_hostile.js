// Browser test 2 of pagesift-annotate (tests/cli/annotate_hostile.sh runs it):
// a hostile page — inline and external scripts, a script guessing a nonce,
// onload/onerror/ontoggle handlers, javascript: links, iframes (src and
// srcdoc), object/embed, remote images, CSS url()s and @import, a stylesheet
// link, a meta refresh, a base element, a form, a spoofed data-ps block, text
// quoting "<!--<script>" and "</script>" (block data embedded in the page) —
// is made into a workspace and opened in Chromium.  Every remote reference
// points at a local HTTP server that counts hits: nothing may reach it, no
// flag a hostile script would set may be set, no dialog may open, the page
// may not navigate away; the annotation script itself must still run.
//   node annotate_hostile.js WORKDIR
'use strict';
const fs = require('fs');
const path = require('path');
const http = require('http');
const { execFileSync } = require('child_process');
const { launch, fail, check } = require('./lib');

const work = process.argv[2];
if (!work) fail('usage: annotate_hostile.js WORKDIR');

(async () => {
  const hits = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { 'Content-Type': req.url.endsWith('.js') ? 'text/javascript' : 'text/plain' });
    res.end(req.url.endsWith('.js') ? 'window.__pwned = "external script"; console.log("PWNED");' : 'x');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const R = `http://127.0.0.1:${server.address().port}`;
  const hostile = `<!DOCTYPE html><html><head>
<title>Hostile page</title>
<base href="${R}/base/">
<meta http-equiv="refresh" content="1;url=${R}/refresh">
<link rel="stylesheet" href="${R}/link.css">
<link rel="prefetch" href="${R}/prefetch">
<style>@import url("${R}/import.css"); body { background: url(${R}/sheet-bg.png); } .big { font-size: 20px }</style>
<script>window.__pwned = "inline head script"; console.log('PWNED'); fetch("${R}/fetch-head");</script>
<script src="${R}/external.js"></script>
</head>
<body onload="window.__pwned = 'body onload'; console.log('PWNED'); new Image().src = '${R}/onload';">
<div id="nav" class="big"><a href="javascript:window.__pwned = 'javascript link'; console.log('PWNED')">Home</a> <a href="${R}/away">Away link</a> navigation links menu</div>
<div id="main">
<h1>A headline that is long enough to be a block of its own text</h1>
<div>Text that quotes &lt;!--&lt;script&gt; and &lt;/script&gt; as words: the block data must not end the script element.</div>
<p>Some article text. <img src="${R}/remote.png" onerror="window.__pwned = 'img onerror'; console.log('PWNED')"> More text of the article that a person reads.</p>
<img src="x" onerror="window.__pwned = 'img x onerror'; console.log('PWNED'); fetch('${R}/onerror')">
<div style="background-image: url(${R}/style-attr.png)">Text in a block with a remote background.</div>
<iframe src="${R}/frame"></iframe>
<iframe srcdoc="<script>parent.__pwned='srcdoc'</script>"></iframe>
<object data="${R}/object"></object><embed src="${R}/embed">
<video poster="${R}/poster.png" src="${R}/video.mp4" autoplay></video>
<input type="image" src="${R}/input.png">
<svg onload="window.__pwned = 'svg onload'; console.log('PWNED')"><image href="${R}/svg-image.png"/></svg>
<details open ontoggle="window.__pwned = 'ontoggle'; console.log('PWNED')"><summary>More</summary>Details text here.</details>
<form action="${R}/form"><button id="sub" type="submit" formaction="javascript:window.__pwned = 'formaction'; console.log('PWNED')">Send</button></form>
<script nonce="00000000000000000000000000000000">window.__pwned = "nonce guess"; console.log('PWNED');</script>
<div data-ps="0" onclick="window.__pwned = 'spoofed block'; console.log('PWNED')">A spoofed block that claims to be block 0.</div>
<noscript><img src="${R}/noscript.png"></noscript>
</div>
<script>document.write('<img src="${R}/document-write.png">');</script>
</body></html>`;
  fs.writeFileSync(path.join(work, 'hostile.html'), hostile);
  execFileSync('pagesift-annotate', ['-q', '-o', path.join(work, 'ws'), path.join(work, 'hostile.html')],
               { stdio: 'inherit' });
  const html = fs.readFileSync(path.join(work, 'ws/pages/00001.html'), 'utf8');
  // the file itself: no script but ours, no handler, no javascript: URL, no frame
  check(!/on(load|error|toggle|click)\s*=/i.test(html), 'an event handler survived in the page file');
  check(!/javascript:/i.test(html), 'a javascript: URL survived in the page file');
  check(!/<(iframe|object|embed|base|link|meta http-equiv="refresh")/i.test(html), 'a frame, object, base, link or refresh survived');
  // ours: the page data, workspace.js, sync.js, annotate.js
  check((html.match(/<script/g) || []).length === 4, 'a script other than the workspace\'s survived');

  const { ctx, close } = await launch();
  try {
    const page = await ctx.newPage();
    const dialogs = [], errors = [], network = [];
    page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
    page.on('pageerror', (e) => errors.push(e.message));
    const pwnedLog = [];
    page.on('console', (m) => { if (/PWNED/.test(m.text())) pwnedLog.push(m.text()); });
    page.on('requestfinished', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) network.push(r.url()); });
    const url = 'file://' + path.resolve(work, 'ws/pages/00001.html');
    await page.goto(url);
    await page.waitForFunction(() => window.psAnnotate !== undefined);
    // click the links and the button: they must neither run code nor navigate
    for (const sel of ['text=Home', 'text=Away link', '#sub', 'summary']) {
      const el = await page.$(sel);
      if (el) await el.click({ force: true }).catch(() => {});
    }
    await page.waitForTimeout(2500); // longer than the meta refresh's delay
    const pwned = await page.evaluate(() => window.__pwned);
    check(pwned === undefined && pwnedLog.length === 0, 'hostile code ran: ' + pwned + ' ' + pwnedLog.length);
    check(page.url() === url, 'the page navigated away: ' + page.url());
    check(dialogs.length === 0, 'a dialog opened: ' + dialogs.join('; '));
    check(hits.length === 0, 'the page loaded from the network: ' + hits.join(', '));
    check(network.length === 0, 'requests completed: ' + network.join(', '));
    const frames = page.frames().length;
    check(frames === 1, `${frames - 1} frames on the page`);
    // the annotation script runs and the spoofed attribute is not a block of the page
    const info = await page.evaluate(() => ({
      blocks: window.psAnnotate.page.blocks.length,
      marked: document.querySelectorAll('[data-ps]').length,
      spoof: Array.from(document.querySelectorAll('[data-ps]')).filter((e) => /spoofed/.test(e.textContent) && e.getAttribute('data-ps') === '0' && e.tagName !== 'BODY').length,
    }));
    check(info.blocks > 0 && info.marked === info.blocks, `blocks ${info.blocks}, marked ${info.marked}`);
    check(info.spoof === 0, 'the page\'s own data-ps attribute survived');
    await page.click('#main h1', { force: true });
    const st = await page.evaluate(() => window.psAnnotate.page.blocks.map((b, k) => window.psAnnotate.state(k)));
    check(st.includes('c'), 'clicking a block of the hostile page did not label it');
    check(errors.length === 0, 'script errors: ' + errors.join('; '));
    console.log(`ok: hostile page shown with ${info.blocks} blocks; no script ran, nothing loaded (0 hits), no navigation, no dialog`);
  } catch (e) {
    fail(e.stack || String(e));
  } finally {
    await close();
    server.close();
  }
})();
