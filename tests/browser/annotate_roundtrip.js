// Browser test 1 of pagesift-annotate (tests/cli/annotate_browser.sh runs it):
// a workspace of two pages pre-labelled by a model, opened from file://: the
// export asks first while pre-labels are unconfirmed; the index's "Label
// next" lists both pages, the one the model is less sure about first; click three blocks, use keys
// (rest noise, next page), shift-click a region on page 2, reload (labels
// kept), undo, export labels.csv and labels.json from the index page (the
// export asks first when model pre-labels are unconfirmed); then the same
// workspace served by pagesift-annotate --serve: a click is saved to
// labels.json on disk and "Save to disk" writes labels.csv.
//   node annotate_roundtrip.js WORKSPACE OUTDIR
// Writes OUTDIR/labels.csv, OUTDIR/labels.json, OUTDIR/clicked.json (the
// block ids clicked and the labels they must carry), OUTDIR/served.csv.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { launch, fail, check } = require('./lib');

const [ws, outDir] = process.argv.slice(2);
if (!ws || !outDir) fail('usage: annotate_roundtrip.js WORKSPACE OUTDIR');

// Blocks that can be clicked on their own (on the page, visible, no block
// inside) and that a click makes content (unlabelled or pre-labelled noise).
async function leafBlocks(page, n) {
  return page.evaluate((n) => {
    const out = [];
    const d = window.psAnnotate.page;
    for (let k = 0; k < d.blocks.length && out.length < n; k++) {
      const el = window.psAnnotate.element(k);
      if (!el || el.querySelector('[data-ps]')) continue;
      const st = window.psAnnotate.state(k);
      if (st === 'c' || st === 'pc') continue; // a click makes these content: both classes on each page
      const r = el.getBoundingClientRect();
      if (r.width < 30 || r.height < 10 || r.right > window.innerWidth - 380) continue;
      out.push({ k, id: d.blocks[k].id });
    }
    return out;
  }, n);
}
const states = (page) => page.evaluate(() => {
  const d = window.psAnnotate.page;
  return d.blocks.map((b, k) => window.psAnnotate.state(k));
});

(async () => {
  const { ctx, close } = await launch();
  const errors = [];
  try {
    const page = await ctx.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    // the index first: every block still carries an unconfirmed model pre-label,
    // so the export asks, and a "no" exports nothing
    await page.goto('file://' + path.resolve(ws, 'index.html'));
    await page.waitForSelector('#export-csv');
    const dialogs = [];
    page.once('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
    let downloaded = false;
    const onDl = () => { downloaded = true; };
    page.on('download', onDl);
    await page.click('#export-csv');
    await page.waitForTimeout(500);
    page.off('download', onDl);
    check(dialogs.length === 1 && /pre-labels/.test(dialogs[0]), 'export with unconfirmed pre-labels did not ask first');
    check(!downloaded, 'export went on after the user said no');
    // "Label next": both pages, unlabelled, the one the model is less sure about first
    const next = await page.evaluate(() => {
      const t = document.getElementById('label-next');
      if (!t) return null;
      return { rows: [...t.tBodies[0].rows].map((r) => Number(r.cells[0].textContent)),
               u: window.PS_WORKSPACE.pages.map((p) => [p.n, p.uncertainty]) };
    });
    check(next && next.rows.length === 2, 'no "Label next" list of the two unlabelled pages');
    const byU = next.u.slice().sort((a, b) => b[1] - a[1] || a[0] - b[0]).map((x) => x[0]);
    check(next.u.every((x) => typeof x[1] === 'number' && x[1] >= 0 && x[1] <= 1),
          'page uncertainty missing or out of [0, 1]: ' + JSON.stringify(next.u));
    check(JSON.stringify(next.rows) === JSON.stringify(byU), '"Label next" is not most uncertain first: ' +
          JSON.stringify(next));

    const url1 = 'file://' + path.resolve(ws, 'pages/00001.html');
    await page.goto(url1);
    await page.waitForFunction(() => window.psAnnotate !== undefined);
    let st = await states(page);
    check(st.every((s) => s === 'pc' || s === 'pn'), 'blocks are not shown as unconfirmed model pre-labels');
    const pick = await leafBlocks(page, 3);
    check(pick.length === 3, 'page 1 has fewer than three clickable blocks');
    // a click toggles the current (pre-)label and confirms it
    for (const b of pick) b.want = st[b.k] === 'pc' ? 0 : 1;
    for (const b of pick) await page.click(`[data-ps="${b.k}"]`);
    st = await states(page);
    for (const b of pick) check(st[b.k] === (b.want ? 'c' : 'n'), `a clicked block did not toggle: ${b.id} ${st[b.k]}`);
    // a second click toggles again; undo restores
    await page.click(`[data-ps="${pick[0].k}"]`);
    check((await states(page))[pick[0].k] === (pick[0].want ? 'n' : 'c'), 'a second click did not toggle the block');
    await page.keyboard.press('z'); // undo
    check((await states(page))[pick[0].k] === (pick[0].want ? 'c' : 'n'), 'undo (z) did not restore the label');
    // the outline colour follows the label
    const outline = await page.$eval(`[data-ps="${pick[0].k}"]`, (e) => getComputedStyle(e).outlineColor);
    check(outline === (pick[0].want ? 'rgb(21, 128, 61)' : 'rgb(185, 28, 28)'), 'the outline does not show the label: ' + outline);
    await page.keyboard.press('n'); // every other block: noise
    st = await states(page);
    check(st.every((s, k) => { const b = pick.find((b) => b.k === k); return s === (b && b.want ? 'c' : 'n'); }),
          'key n did not label the rest noise');
    const n1 = st.length;

    // page 2 by key; shift-click labels a region
    await Promise.all([page.waitForNavigation(), page.keyboard.press('j')]);
    check(page.url().endsWith('pages/00002.html'), 'key j did not open page 2: ' + page.url());
    await page.waitForFunction(() => window.psAnnotate !== undefined);
    const region = await page.evaluate(() => {
      const d = window.psAnnotate.page;
      let best = -1, bestN = 0, bestAt = null;
      for (let k = 1; k < d.blocks.length; k++) {
        const el = window.psAnnotate.element(k);
        if (!el) continue;
        const n = el.querySelectorAll('[data-ps]').length;
        const r = el.getBoundingClientRect();
        const st = window.psAnnotate.state(k);
        if (st === 'c' || st === 'pc') continue;
        if (!(n >= 2 && n < d.blocks.length / 2 && r.width > 30 && r.height > 10 && n > bestN)) continue;
        // a point of the region not covered by a block nested in it (the click must land on the
        // region itself): the first on a 4-pixel grid from its top-left corner
        el.scrollIntoView();
        const r2 = el.getBoundingClientRect();
        let at = null;
        for (let y = 2; y < Math.min(r2.height, 400) && !at; y += 4)
          for (let x = 2; x < r2.width && !at; x += 4) {
            const hit = document.elementFromPoint(r2.left + x, r2.top + y);
            const owner = hit && hit.closest('[data-ps]');
            if (owner && Number(owner.getAttribute('data-ps')) === k) at = { x, y };
          }
        if (at) { best = k; bestN = n; bestAt = at; }
      }
      if (best < 0) return null;
      const inside = [best].concat(Array.from(window.psAnnotate.element(best).querySelectorAll('[data-ps]'))
        .map((e) => Number(e.getAttribute('data-ps'))));
      return { k: best, inside, ids: inside.map((i) => d.blocks[i].id), at: bestAt };
    });
    check(region, 'page 2 has no block with blocks inside it');
    // click the region at a point of its own (not on a block nested in it)
    const before = (await states(page))[region.k];
    region.want = before === 'c' || before === 'pc' ? 0 : 1;
    await page.click(`[data-ps="${region.k}"]`, { modifiers: ['Shift'], position: region.at });
    st = await states(page);
    const regionOk = region.inside.every((k) => st[k] === (region.want ? 'c' : 'n'));
    check(regionOk, 'shift-click did not label the block and every block inside it');
    await page.keyboard.press('n');

    // back to page 1 and reload: the labels are kept (local storage)
    await Promise.all([page.waitForNavigation(), page.keyboard.press('k')]);
    await page.reload();
    await page.waitForFunction(() => window.psAnnotate !== undefined);
    st = await states(page);
    check(st.length === n1 && st.every((s, k) => { const b = pick.find((b) => b.k === k); return s === (b && b.want ? 'c' : 'n'); }),
          'labels of page 1 lost after a reload');

    // index: progress and export
    await page.goto('file://' + path.resolve(ws, 'index.html'));
    await page.waitForSelector('#export-csv');
    const text = await page.textContent('body');
    check(/2 pages/.test(text), 'the index does not show the pages');
    check(!(await page.$('#label-next')), '"Label next" still lists pages that are labelled');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    await dl.saveAs(path.join(outDir, 'labels.csv'));
    const [dl2] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    await dl2.saveAs(path.join(outDir, 'labels.json'));
    const want = {};
    for (const b of pick) want[b.id] = b.want;
    for (const id of region.ids) want[id] = region.want;
    fs.writeFileSync(path.join(outDir, 'clicked.json'), JSON.stringify({ labels: want, page1_blocks: n1 }));
    check(errors.length === 0, 'script errors: ' + errors.join('; '));

    // --serve: the same workspace over http://127.0.0.1; a click lands in labels.json
    const srv = spawn('pagesift-annotate', ['--serve', '0', '-o', ws], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    srv.stderr.on('data', (d) => { stderr += d; });
    try {
      const port = await new Promise((resolve, reject) => {
        let out = '';
        srv.stdout.on('data', (d) => {
          out += d;
          const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
          if (m) resolve(Number(m[1]));
        });
        srv.on('exit', (c) => reject(new Error('server exited ' + c + ': ' + stderr)));
        setTimeout(() => reject(new Error('server did not start')), 20000);
      });
      const base = `http://127.0.0.1:${port}`;
      await page.goto(base + '/pages/00002.html');
      await page.waitForFunction(() => window.psAnnotate !== undefined);
      const pick2 = await leafBlocks(page, 1);
      const s2 = (await states(page))[pick2[0].k];
      await page.click(`[data-ps="${pick2[0].k}"]`);
      const want2 = s2 === 'c' || s2 === 'pc' ? 0 : 1;
      const lj = path.join(ws, 'labels.json');
      const t0 = Date.now();
      let saved = null;
      while (Date.now() - t0 < 10000) {
        try {
          const j = JSON.parse(fs.readFileSync(lj, 'utf8'));
          const p2 = j.pages.find((p) => p.n === 2);
          if (p2 && p2.labels[pick2[0].id] === want2) { saved = j; break; }
        } catch (e) { /* not yet */ }
        await page.waitForTimeout(200);
      }
      check(saved, 'a click in the served workspace was not saved to labels.json');
      // the index's "Save to disk" asks first when pre-labels are unconfirmed (none here) and writes the CSV
      await page.goto(base + '/');
      await page.waitForSelector('#save');
      // this origin's storage has only that click: the rest are unconfirmed pre-labels, so it asks; say yes
      const asked = [];
      page.once('dialog', (d) => { asked.push(d.message()); d.accept(); });
      await page.click('#save');
      const t1 = Date.now();
      while (!fs.existsSync(path.join(ws, 'labels.csv')) && Date.now() - t1 < 10000) await page.waitForTimeout(200);
      check(fs.existsSync(path.join(ws, 'labels.csv')), '"Save to disk" did not write labels.csv');
      check(asked.length === 1, '"Save to disk" did not ask about the unconfirmed pre-labels');
      fs.copyFileSync(path.join(ws, 'labels.csv'), path.join(outDir, 'served.csv'));
    } finally {
      srv.kill('SIGTERM');
    }
    check(errors.length === 0, 'script errors: ' + errors.join('; '));
    console.log(`ok: export asked first, 3 blocks clicked, region of ${region.inside.length} blocks, keys n/j/k/z, reload kept labels, exported; served save works`);
  } catch (e) {
    fail(e.stack || String(e));
  } finally {
    await close();
  }
})();
