// Shared helpers of the browser tests: Debian's Chromium driven by
// playwright-core (no browser is ever downloaded).  A test that cannot start
// Chromium exits 77 (ctest: skipped) with the reason; every other failure
// exits 1.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

let chromium;
try {
  ({ chromium } = require('playwright-core'));
} catch (e) {
  console.log('SKIP: playwright-core is not installed in tests/browser (npm ci failed?): ' + e.message);
  process.exit(77);
}

const CHROMIUM = process.env.PS_CHROMIUM || '/usr/bin/chromium';

async function launch() {
  if (!fs.existsSync(CHROMIUM)) {
    console.log('SKIP: Chromium cannot start: ' + CHROMIUM + ' is not installed (scripts/install-deps installs it)');
    process.exit(77);
  }
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagesift-chromium-'));
  let ctx;
  try {
    ctx = await chromium.launchPersistentContext(userDir, {
      executablePath: CHROMIUM,
      headless: true,
      acceptDownloads: true,
      viewport: { width: 1280, height: 800 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
             '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      timeout: 60000,
    });
  } catch (e) {
    console.log('SKIP: Chromium cannot start: ' + String(e.message).split('\n')[0]);
    fs.rmSync(userDir, { recursive: true, force: true });
    process.exit(77);
  }
  const close = async () => {
    await ctx.close().catch(() => {});
    fs.rmSync(userDir, { recursive: true, force: true });
  };
  return { ctx, close };
}

function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exit(1);
}

function check(cond, msg) {
  if (!cond) fail(msg);
}

module.exports = { launch, fail, check };
