// Scripted annotation session (scripts/bench-annotate runs it): label every
// block of every page of a workspace as the gold says, in Chromium, with real
// clicks and keys, and count the actions (a click, shift-click or key press
// is one action).  The labels reached are checked against the gold for every
// block, so a count is only reported for a session that labelled everything
// right.
//   node measure_clicks.js WORKSPACE GOLD.json MODE
// GOLD.json: {block_id: 0|1}.  MODE:
//   each    click every content block, then n (rest noise)
//   region  per page the cheaper of "each" and: shift-click one block R (R and
//           everything inside it content), click the noise blocks inside R,
//           click the content blocks outside R, then n
//   model   click every block whose model pre-label is wrong, then a (accept
//           the rest)
// Prints one JSON line: {"mode", "pages", "blocks", "actions", "per_page": [...]}.
'use strict';
const fs = require('fs');
const path = require('path');
const { launch, fail, check } = require('./lib');

const [ws, goldPath, mode] = process.argv.slice(2);
if (!ws || !goldPath || !['each', 'region', 'model'].includes(mode)) fail('usage: measure_clicks.js WORKSPACE GOLD.json each|region|model');
const gold = JSON.parse(fs.readFileSync(goldPath, 'utf8'));

// Click block k where the block itself (not a block inside it) is hit; if no
// such point is visible, select it in the panel's list and press 1 / 0.
async function hit(page, k, shift, value) {
  const pt = await page.evaluate((k) => {
    const el = window.psAnnotate.element(k);
    if (!el) return null;
    el.scrollIntoView({ block: 'center' });
    const r = el.getBoundingClientRect();
    const W = window.innerWidth - 380, H = window.innerHeight;
    for (let fy = 0.02; fy < 1; fy += 0.06) {
      for (let fx = 0.02; fx < 1; fx += 0.06) {
        const x = r.left + fx * r.width, y = r.top + fy * r.height;
        if (x < 0 || y < 0 || x >= W || y >= H) continue;
        const t = document.elementFromPoint(x, y);
        if (t && t.closest('[data-ps]') === el) return { x, y };
      }
    }
    return null;
  }, k);
  if (pt) {
    if (shift) await page.keyboard.down('Shift');
    await page.mouse.click(pt.x, pt.y);
    if (shift) await page.keyboard.up('Shift');
    return 1;
  }
  if (shift) return 0; // a region must be hit itself: the caller picks another
  // the panel's list: one click to select, one key to label
  await page.evaluate((k) => {
    const host = document.querySelector('pagesift-panel');
    host.shadowRoot.getElementById('list').children[k].click();
  }, k);
  await page.keyboard.press(value ? '1' : '0');
  return 2;
}

(async () => {
  const wsData = JSON.parse(fs.readFileSync(path.join(ws, 'data/workspace.js'), 'utf8')
    .replace(/^window\.PS_WORKSPACE = /, '').replace(/;\s*$/, ''));
  const { ctx, close } = await launch();
  const perPage = [];
  let total = 0, blocks = 0;
  try {
    const page = await ctx.newPage();
    page.on('pageerror', (e) => fail('script error: ' + e.message));
    for (const p of wsData.pages) {
      await page.goto('file://' + path.resolve(ws, p.file));
      await page.waitForFunction(() => window.psAnnotate !== undefined);
      const info = await page.evaluate(() => {
        const d = window.psAnnotate.page;
        return d.blocks.map((b, k) => {
          const el = window.psAnnotate.element(k);
          const inside = el ? Array.from(el.querySelectorAll('[data-ps]')).map((e) => Number(e.getAttribute('data-ps'))) : [];
          return { id: b.id, pre: b.pre, inside };
        });
      });
      const want = info.map((b) => {
        check(b.id in gold, 'no gold label for ' + b.id);
        return gold[b.id];
      });
      let actions = 0;
      if (mode === 'model') {
        for (let k = 0; k < info.length; k++) if (info[k].pre !== want[k]) actions += await hit(page, k, false, want[k]);
        await page.keyboard.press('a');
        actions++;
      } else {
        const content = want.map((v, k) => v === 1 ? k : -1).filter((k) => k >= 0);
        const each = content.length + 1;
        const cands = [];
        if (mode === 'region') {
          for (let r = 0; r < info.length; r++) {
            if (!info[r].inside.length) continue;
            const inR = new Set([r].concat(info[r].inside));
            let cost = 2; // shift-click R, then n
            for (const k of inR) if (want[k] === 0) cost++;
            for (const k of content) if (!inR.has(k)) cost++;
            if (cost < each) cands.push({ cost, r });
          }
          cands.sort((a, b) => a.cost - b.cost || a.r - b.r);
        }
        let used = -1;
        for (const c of cands) {
          if (await hit(page, c.r, true, 1)) { used = c.r; actions++; break; }
        }
        if (used >= 0) {
          const inR = [used].concat(info[used].inside);
          for (const k of inR) if (want[k] === 0) actions += await hit(page, k, false, 0);
          for (const k of content) if (!inR.includes(k)) actions += await hit(page, k, false, 1);
        } else {
          for (const k of content) actions += await hit(page, k, false, 1);
        }
        await page.keyboard.press('n');
        actions++;
      }
      const st = await page.evaluate(() => window.psAnnotate.page.blocks.map((b, k) => window.psAnnotate.state(k)));
      st.forEach((s, k) => check(s === (want[k] ? 'c' : 'n'),
        `${p.page_id}: block ${info[k].id} ends ${s}, gold ${want[k]} (mode ${mode})`));
      perPage.push({ page_id: p.page_id, blocks: info.length, content: want.filter((v) => v).length, actions });
      total += actions;
      blocks += info.length;
    }
  } finally {
    await close();
  }
  console.log(JSON.stringify({ mode, pages: perPage.length, blocks, actions: total, per_page: perPage }));
})().catch((e) => fail(e.stack || String(e)));
