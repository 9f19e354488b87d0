/**
 * `npm run bench -- console`: the web console's first screen, measured in a real Chromium (Debian's,
 * through playwright-core) against the local runtime (issue 44 §3: usable within 1 s of navigation, its
 * JavaScript and CSS at most 100 KB gzipped). "Usable": the list of open incidents is on the screen, each a
 * link. Its floor is the least a correct page must do for the same screen, written by hand: read the
 * settings, call GET /api/incidents with the session's token, draw the links (`floor.html`, served from the
 * console's origin, so CORS and the CSP are the same). Both are loaded with a warm HTTP cache, as a
 * responder's second visit is, alternated, in one signed-in tab.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import type { Service as Runtime } from '../local/perf/service.js';
import { call, machine, median, signUp, today } from './lib.js';

const RUNS = 25;

/** The floor's page and script: the same settings, token and call as the console's first screen. */
export function writeConsoleFloor(dir: string) {
  writeFileSync(
    join(dir, 'floor.html'),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Floor</title><script type="module" src="/floor.js"></script></head><body><ul id="list"></ul></body></html>',
  );
  writeFileSync(
    join(dir, 'floor.js'),
    `const config = await (await fetch('/config.json')).json();
const tokens = JSON.parse(sessionStorage.getItem('console.tokens'));
const answer = await fetch(config.apiUrl + '/api/incidents?status=open&limit=50', { headers: { authorization: 'Bearer ' + tokens.access_token } });
const list = document.getElementById('list');
for (const incident of (await answer.json()).incidents) {
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.href = '/incidents/' + incident.id;
  link.textContent = incident.title;
  item.append(link);
  list.append(item);
}
document.body.dataset.ready = 'yes';`,
  );
}

const chromiumPath = () => ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((path) => {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
});

export async function benchConsole(runtime: Runtime, dir: string): Promise<string> {
  const consoleUrl = runtime.consoleUrl!;
  const person = await signUp(runtime, 'Console bench');
  const monitor = (await call(runtime, 'POST', '/api/monitors', person.token, { name: 'Console bench' })).body.monitor;
  for (let index = 0; index < 20; index++) {
    await call(runtime, 'POST', '/api/incidents', person.token, { monitorId: monitor.id, title: `Open incident ${index}`, severity: index % 2 ? 'HIGH' : 'LOW' });
  }
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((found) => found[1]!);
  const gzipped = files.reduce((sum, file) => sum + gzipSync(readFileSync(join(dir, file)), { level: 9 }).length, 0);

  const path = chromiumPath();
  if (!path) throw new Error('The console bench needs Chromium (apt-get install chromium)');
  const browser = await chromium.launch({ executablePath: path, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    // Signing in once through the provider's form; both pages then find the tokens in session storage.
    await page.goto(consoleUrl);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail address').fill(person.email);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Open incident 0' }).waitFor();
    const usable = async (url: string, ready: () => Promise<unknown>) => {
      const started = performance.now();
      await page.goto(url, { waitUntil: 'commit' });
      await ready();
      return performance.now() - started;
    };
    const consoleTimes: number[] = [];
    const floorTimes: number[] = [];
    for (let run = 0; run < RUNS + 3; run++) {
      const service = await usable(`${consoleUrl}/`, () => page.getByRole('link', { name: 'Open incident 19' }).waitFor());
      const floor = await usable(`${consoleUrl}/floor.html`, () => page.locator('body[data-ready="yes"]').waitFor());
      // The first rounds warm the HTTP cache and the runtime; they are not counted.
      if (run < 3) continue;
      consoleTimes.push(service);
      floorTimes.push(floor);
    }
    const p50 = median(consoleTimes);
    const floorP50 = median(floorTimes);
    return [
      `Measured by \`npm run bench -- console\` on ${today()}: ${machine()}; Chromium ${browser.version()} headless, 1280×900, the local runtime; ${RUNS} navigations a side after 3 warm-up rounds, console and floor alternated in one signed-in tab (warm HTTP cache). Usable: the 20 open incidents are on the screen as links.`,
      '',
      '| row | console | floor | ratio | goal |',
      '|---|---|---|---|---|',
      `| first screen usable, p50 | ${p50.toFixed(0)} ms | ${floorP50.toFixed(0)} ms | ${(p50 / floorP50).toFixed(2)}× | ≤ 1,000 ms: ${p50 <= 1000 ? 'met' : 'not met'} |`,
      `| first screen usable, max | ${Math.max(...consoleTimes).toFixed(0)} ms | ${Math.max(...floorTimes).toFixed(0)} ms | | |`,
      `| first screen's JavaScript and CSS, gzipped | ${(gzipped / 1024).toFixed(1)} KB | | | ≤ 100 KB: ${gzipped <= 100 * 1024 ? 'met' : 'not met'} (asserted in test/http/console-host.test.ts) |`,
    ].join('\n');
  } finally {
    await browser.close();
  }
}
