// Driver of package browsertest: opens one page in headless Chromium with
// playwright-core, runs a test script against it and prints one JSON object
// on stdout:
//
//   {"result": <script's return value>, "consoleErrors": [...], "blocked": [...]}
//
// The job arrives as JSON on stdin:
//
//   {"url", "script", "screenshot", "executable", "timeoutMs"}
//
// script is the source of an async function taking the playwright Page, e.g.
// "async (page) => { await page.click('#x'); return page.title(); }".
// Requests to anything but file:, data:, blob: and loopback hosts are aborted
// and listed in "blocked", so a test can prove a page needs no network.
'use strict';

const { chromium } = require('playwright-core');

const launchArgs = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const loopback = ['127.0.0.1', 'localhost', '[::1]'];

function allowed(url) {
  const u = new URL(url);
  if (['file:', 'data:', 'blob:', 'about:'].includes(u.protocol)) return true;
  return loopback.includes(u.hostname);
}

async function main() {
  const job = await readStdin();
  const timeout = job.timeoutMs || 30000;
  const browser = await chromium.launch({ executablePath: job.executable, args: launchArgs, timeout });
  const out = { result: null, consoleErrors: [], blocked: [] };
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.setDefaultTimeout(timeout);
    page.on('console', (m) => { if (m.type() === 'error') out.consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => out.consoleErrors.push('uncaught: ' + (e && e.stack || e)));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (allowed(url)) return route.continue();
      out.blocked.push(url);
      return route.abort();
    });
    await page.goto(job.url, { waitUntil: 'load' });
    const fn = (0, eval)('(' + (job.script || 'async () => null') + ')');
    out.result = await fn(page);
    if (job.screenshot) await page.screenshot({ path: job.screenshot, fullPage: true });
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
