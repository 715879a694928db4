// Browser test 3 of pagesift-annotate (tests/cli/annotate_plaintext.sh runs
// it; issue 32, defect 13): elements that switch a browser's tokenizer into
// a raw text state — <plaintext> (for the rest of the file), <xmp>,
// <noembed>, <noframes> — must not swallow the workspace's own scripts,
// which come after the page's content.  Before, a page with <plaintext>
// showed the rest of its file, the scripts included, as text and the
// annotation panel never ran.  The page is made into a workspace and opened
// in Chromium: the annotation script runs, every block is marked, a click
// labels a block, the text after <plaintext> is shown as text of the page
// (in a <pre>), and no script source shows as text.
//   node annotate_plaintext.js WORKDIR
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { launch, fail, check } = require('./lib');

const work = process.argv[2];
if (!work) fail('usage: annotate_plaintext.js WORKDIR');

const pages = {
  plaintext: `<!DOCTYPE html><html><head><title>Plaintext page</title></head><body>
<div id="main"><h1>A headline that is long enough to be a block of its own text</h1>
<p>Some article text that a person reads, long enough to count as a paragraph of the article.</p>
<div><plaintext>Everything after this start tag is plain text in a browser, <b>tags</b> and all.</div>
<p>Another paragraph after the plaintext element, with more words in it.</p>
</div></body></html>`,
  xmp: `<!DOCTYPE html><html><head><title>Xmp page</title></head><body>
<div id="main"><h1>A headline that is long enough to be a block of its own text</h1>
<p>Some article text that a person reads, long enough to count as a paragraph of the article.</p>
<xmp>Example markup: <p>a paragraph</p> &amp; more</xmp>
<noembed><p>No embed text</p></noembed><noframes><p>No frames text</p></noframes>
<p>Another paragraph after the raw text elements, with more words in it.</p>
</div></body></html>`,
};

(async () => {
  const { ctx, close } = await launch();
  try {
    for (const [name, html] of Object.entries(pages)) {
      fs.writeFileSync(path.join(work, name + '.html'), html);
      const ws = path.join(work, 'ws-' + name);
      execFileSync('pagesift-annotate', ['-q', '-o', ws, path.join(work, name + '.html')], { stdio: 'inherit' });
      const file = fs.readFileSync(path.join(ws, 'pages/00001.html'), 'utf8');
      check(!/<(plaintext|xmp|noembed|noframes)\b/i.test(file), `${name}: a raw text element survived in the page file`);
      const page = await ctx.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto('file://' + path.resolve(ws, 'pages/00001.html'));
      await page.waitForFunction(() => window.psAnnotate !== undefined, null, { timeout: 15000 })
        .catch(() => fail(`${name}: the annotation panel did not run (its scripts were swallowed)`));
      const info = await page.evaluate(() => ({
        blocks: window.psAnnotate.page.blocks.length,
        marked: document.querySelectorAll('[data-ps]').length,
        text: document.body.innerText,
      }));
      check(info.blocks > 0 && info.marked === info.blocks, `${name}: blocks ${info.blocks}, marked ${info.marked}`);
      check(!/annotate\.js|workspace\.js|"page_id"/.test(info.text), `${name}: the workspace's scripts show as text`);
      if (name === 'plaintext')
        check(/Everything after this start tag is plain text/.test(info.text), 'plaintext: its text is not shown');
      else
        check(/Example markup/.test(info.text) && !/&lt;/.test(info.text) && !/No embed text|No frames text/.test(info.text),
              'xmp: its text is not shown as the page shows it: ' + info.text);
      await page.click('#main h1', { force: true });
      const st = await page.evaluate(() => window.psAnnotate.page.blocks.map((b, k) => window.psAnnotate.state(k)));
      check(st.includes('c'), `${name}: clicking a block did not label it`);
      check(errors.length === 0, `${name}: script errors: ` + errors.join('; '));
      await page.close();
      console.log(`ok: ${name}: the annotation panel runs, ${info.blocks} blocks marked, a click labels`);
    }
  } catch (e) {
    fail(e.stack || String(e));
  } finally {
    await close();
  }
})();
