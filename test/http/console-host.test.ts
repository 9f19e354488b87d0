/**
 * The console's local hosting (CloudFront's stand-in, infra/local/aws/console-host.ts): its own origin,
 * the security headers declared once in `consoleHosting`, SPA routing, the runtime settings, and the
 * first screen's weight (issue 44 §3: at most 100 KB of JavaScript and CSS, gzipped).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.js';
import { consoleHosting } from '../../shared/system.js';
import { Api } from '../support/api.js';
import { consoleBuild } from '../support/console.js';

let api: Api;
let consoleUrl: string;
let dir: string;
beforeAll(async () => {
  dir = await consoleBuild();
  api = await Api.start({ console: { dir, port: 0 } });
  consoleUrl = api.runtime.consoleUrl!;
});
afterAll(() => api?.close());

describe('the console at its own origin', () => {
  it('is served on the loopback interface at an origin of its own, which CORS and the sign-in allow', async () => {
    expect(consoleUrl).toMatch(/^http:\/\/localhost:\d+$/);
    expect(consoleUrl).not.toBe(api.url);
    expect(api.runtime.oidc.consoleOrigin).toBe(consoleUrl);
    const preflight = await fetch(`${api.url}/api/incidents`, { method: 'OPTIONS', headers: { origin: consoleUrl, 'access-control-request-method': 'GET' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBe(consoleUrl);
  });

  it('answers every page with the security headers declared once, and a screen path with the app', async () => {
    for (const path of ['/', '/incidents/3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c', '/on-call', '/callback?code=x&state=y']) {
      const page = await fetch(`${consoleUrl}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe(consoleHosting.revalidate);
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toBe(consoleHosting.contentSecurityPolicy([api.url]));
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      for (const [name, value] of Object.entries(consoleHosting.securityHeaders)) expect(page.headers.get(name), name).toBe(value);
      const html = await page.text();
      // No inline script or style: the CSP allows none.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|style="/);
    }
  });

  it('serves content-hashed assets for a year, a missing file as 404 (never the app), and only GET and HEAD', async () => {
    const html = await (await fetch(consoleUrl)).text();
    const script = /src="(\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(`${consoleUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe(consoleHosting.immutableAssets);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${consoleUrl}/assets/app-MISSING.js`)).status).toBe(404);
    expect((await fetch(`${consoleUrl}/../package.json`)).status).not.toBe(200);
    expect((await fetch(`${consoleUrl}/%2e%2e/package.json`)).status).toBe(404);
    expect((await fetch(`${consoleUrl}/`, { method: 'POST' })).status).toBe(405);
    const manifest = await fetch(`${consoleUrl}/manifest.webmanifest`);
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json');
    const icons = ((await manifest.json()) as { icons: { src: string }[] }).icons;
    for (const icon of icons) expect((await fetch(`${consoleUrl}${icon.src}`)).status, icon.src).toBe(200);
  });

  it('serves the runtime settings: the API and the local provider at the Cognito paths, never built in', async () => {
    const answer = await fetch(`${consoleUrl}/${consoleHosting.configFile}`);
    expect(answer.headers.get('cache-control')).toBe(consoleHosting.revalidate);
    expect(await answer.json()).toEqual({
      apiUrl: api.url,
      auth: {
        clientId: api.runtime.oidc.clientId,
        authorizeUrl: `${api.url}/oauth2/authorize`,
        tokenUrl: `${api.url}/oauth2/token`,
        logoutUrl: `${api.url}/logout`,
        scopes: 'openid email profile',
      },
    });
    const script = readFileSync(join(dir, /src="\/(assets\/app-[A-Z0-9]+\.js)"/.exec(readFileSync(join(dir, 'index.html'), 'utf8'))![1]!), 'utf8');
    expect(script).not.toContain(api.url);
  });

  it('keeps the first screen within 100 KB of JavaScript and CSS, gzipped', () => {
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((found) => found[1]!);
    expect(files).toHaveLength(2);
    const gzipped = files.reduce((sum, file) => sum + gzipSync(readFileSync(join(dir, file)), { level: 9 }).length, 0);
    expect(gzipped).toBeLessThanOrEqual(100 * 1024);
  });
});

describe("the README's pictures of the console", () => {
  it('are exactly those `npm run screenshots` takes, each in docs/screenshots/', async () => {
    const { SCREENSHOTS } = await import('../../infra/tools/screenshot-list.js');
    const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
    const shown = [...readme.matchAll(/\(docs\/screenshots\/([\w-]+)\.png\)/g)].map((found) => found[1]);
    expect([...shown].sort()).toEqual([...SCREENSHOTS].sort());
    for (const name of SCREENSHOTS) expect(existsSync(join(repositoryRoot, 'docs/screenshots', `${name}.png`)), name).toBe(true);
  });
});
