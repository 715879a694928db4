// Two browsers on one served workspace (pagesift-annotate --serve): two
// Chromium processes, each with its own profile (its own local storage, as
// two annotators' machines or browsers), open the same page before either
// saves, and label blocks by clicking.
//  1. different blocks: A clicks one, its save lands; B clicks another, its
//     save lands: labels.json holds both (before, each save wrote the whole
//     labels of its browser and B's erased A's);
//  2. the same block: A makes it noise, saved; then B, who had not seen
//     that, makes it content: the label saved first stays in labels.json, B is
//     told (the page's status line) and B's page shows the kept label;
//  3. B's index "Save to disk" writes labels.csv with every label of both.
// Usage: node annotate_two_browsers.js WORKSPACE PORT
'use strict';
const fs = require('fs');
const path = require('path');
const { launch, fail, check } = require('./lib');

const [ws, port] = process.argv.slice(2);
const base = `http://127.0.0.1:${port}`;
const LJ = path.join(ws, 'labels.json');

function onDisk() {
  try {
    const j = JSON.parse(fs.readFileSync(LJ, 'utf8'));
    const p = j.pages.find((x) => x.n === 1);
    return p ? p.labels : {};
  } catch (e) {
    return {};
  }
}

async function waitFor(cond, what, ms = 15000) {
  const t0 = Date.now();
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() - t0 > ms) fail('timed out waiting: ' + what);
    await new Promise((r) => setTimeout(r, 150));
  }
}

// Blocks a click can hit: leaves of the block tree, visible, left of the panel.
async function clickable(page, n) {
  return page.evaluate((n) => {
    const out = [];
    const d = window.psAnnotate.page;
    for (let k = 0; k < d.blocks.length && out.length < n; k++) {
      const el = window.psAnnotate.element(k);
      if (!el || el.querySelector('[data-ps]')) continue;
      if (window.psAnnotate.state(k) !== 'u') continue;
      const r = el.getBoundingClientRect();
      if (r.width < 30 || r.height < 10 || r.right > window.innerWidth - 380 || r.top < 0) continue;
      out.push({ k, id: d.blocks[k].id });
    }
    return out;
  }, n);
}

async function click(page, k) {
  await page.evaluate((k) => window.psAnnotate.element(k).scrollIntoView({ block: 'center' }), k);
  await page.click(`[data-ps="${k}"]`);
}

const status = (page) => page.locator('#st').textContent();

(async () => {
  const A = await launch();
  const B = await launch();
  const errors = [];
  try {
    const pa = await A.ctx.newPage();
    const pb = await B.ctx.newPage();
    for (const p of [pa, pb]) {
      p.on('pageerror', (e) => errors.push(String(e)));
      await p.goto(base + '/pages/00001.html');
      await p.waitForFunction(() => window.psAnnotate !== undefined);
    }
    await pa.waitForTimeout(1000); // both loaded, nothing saved yet
    const blocks = await clickable(pa, 3);
    check(blocks.length === 3, 'fewer than 3 clickable blocks on page 1');
    const [x, y, z] = blocks;

    // 1. different blocks
    await click(pa, x.k);
    await waitFor(() => onDisk()[x.id] === 1, "A's click saved to labels.json");
    await click(pb, y.k);
    await waitFor(() => onDisk()[y.id] === 1, "B's click saved to labels.json");
    const both = onDisk();
    check(both[x.id] === 1, `A's label of ${x.id} was lost when B saved: labels.json has ${JSON.stringify(both)}`);
    console.log(`ok: two browsers labelled ${x.id} and ${y.id}: both in labels.json`);

    // 2. the same block, differently
    await click(pa, z.k); // content ...
    await click(pa, z.k); // ... then noise
    await waitFor(() => onDisk()[z.id] === 0, "A's label of the shared block saved");
    await click(pb, z.k); // content, in B's view (B has not seen A's)
    const told = await waitFor(async () => {
      const s = await status(pb);
      return /labelled differently in another browser/.test(s) ? s : null;
    }, 'B told of the conflict');
    check(told.includes(z.id) && /noise \(yours: content\)/.test(told), 'the conflict message: ' + told);
    check(onDisk()[z.id] === 0, `the label saved first was not kept: ${JSON.stringify(onDisk())}`);
    const bState = await pb.evaluate((k) => window.psAnnotate.state(k), z.k);
    check(bState === 'n', `B's page shows ${bState} for the kept label (noise)`);
    const bLabels = await pb.evaluate(() => window.psAnnotate.labels());
    check(bLabels[x.id] === 1, "B's page lacks A's label after merging");
    console.log('ok: the same block labelled differently: the first save kept, B told: ' + told);

    // 3. B's index writes labels.csv of both browsers' labels
    await pb.goto(base + '/');
    await pb.waitForSelector('#save');
    pb.on('dialog', (d) => d.accept());
    await pb.click('#save');
    const csvPath = path.join(ws, 'labels.csv');
    await waitFor(() => fs.existsSync(csvPath), 'labels.csv written');
    const rows = fs.readFileSync(csvPath, 'utf8').split('\r\n').filter(Boolean);
    const head = rows[0].split(',');
    const li = head.indexOf('label'), bi = head.indexOf('block_id');
    const lab = {};
    for (const r of rows.slice(1)) {
      const f = r.match(/("([^"]|"")*"|[^,]*)(,|$)/g).map((s) => s.replace(/,$/, '').replace(/^"|"$/g, ''));
      lab[f[bi]] = f[li];
    }
    check(lab[x.id] === '1' && lab[y.id] === '1' && lab[z.id] === '0',
          `labels.csv: ${x.id}=${lab[x.id]} ${y.id}=${lab[y.id]} ${z.id}=${lab[z.id]}`);
    // the file is written before the answer reaches the page: wait for the status
    await waitFor(async () => /saved labels\.csv and labels\.json/.test(await pb.locator('#ps-status').textContent()),
                  'the index says labels.csv and labels.json were saved');
    check(errors.length === 0, 'script errors: ' + errors.join('; '));
    console.log('ok: labels.csv from B holds both browsers\' labels');
  } catch (e) {
    fail(e.stack || String(e));
  } finally {
    await A.close();
    await B.close();
  }
})();
