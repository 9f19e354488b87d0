/**
 * The web console in a real Chromium (Debian's, through playwright-core, which downloads no browser):
 * the local runtime serving the console at its own origin, a browser, pages at desktop and phone sizes,
 * and signing in through the local OIDC provider's form as a person does.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium as playwright, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { buildConsole } from '../../console/build/build.js';
import type { RuntimeOptions } from '../../infra/local/runtime/runtime.js';
import { Api } from './api.js';
import { within } from './deadlines.js';

/** Debian's chromium (CI installs it, `.ci/run`). */
export const chromiumPath = ['chromium', 'chromium-browser', 'google-chrome']
  .map((command) => spawnSync('which', [command], { encoding: 'utf8' }).stdout.trim())
  .find((path) => path !== '');

/** Built once per worker process into a folder of its own (`npm start` builds into console/dist). */
let built: Promise<string> | undefined;
export function consoleBuild(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-'));
    await buildConsole(dir);
    return dir;
  })();
  return built;
}

export const sizes = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 375, height: 740 },
} as const;
export type Size = keyof typeof sizes;

/** axe-core's source, run in the page through the DevTools protocol (which the page's CSP does not govern). */
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.x A and AA rules). */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const page = globalThis as unknown as { axe: { run(context: unknown, options: object): Promise<{ violations: AxeViolation[] }> }; document: unknown };
    const result = await page.axe.run(page.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')}`);
}

export async function expectAccessible(page: Page) {
  expect(await accessibilityViolations(page), `axe-core on ${page.url()}`).toEqual([]);
}

export class ConsoleHarness {
  private readonly contexts: BrowserContext[] = [];

  private constructor(
    readonly api: Api,
    readonly browser: Browser,
    readonly url: string,
  ) {}

  /** `overrides`: the local runtime's options a test needs (e.g. `webhookPorts` for a local webhook receiver). */
  static async start(overrides: Partial<RuntimeOptions> = {}): Promise<ConsoleHarness> {
    if (!chromiumPath) throw new Error('Chromium is required (apt-get install chromium; .ci/run installs it)');
    const dir = await consoleBuild();
    const api = await Api.start({ ...overrides, console: { dir, port: 0 } });
    const browser = await playwright.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      timeout: within(60_000),
    });
    return new ConsoleHarness(api, browser, api.runtime.consoleUrl!);
  }

  /** A fresh browser profile (its own cookies and session storage) at `size`, in `colorScheme`. */
  async page(size: Size = 'desktop', colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const context = await this.browser.newContext({ viewport: sizes[size], colorScheme, timezoneId: 'Europe/Berlin', locale: 'en-GB' });
    context.setDefaultTimeout(within(15_000));
    this.contexts.push(context);
    const page = await context.newPage();
    // A console that logs an error, or a page the Content-Security-Policy blocked, fails the test that caused it.
    page.on('console', (message) => {
      // A refused call (the API's 4xx, shown to the person in its words) is logged by Chromium itself; it is not a problem of the page.
      if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) {
        this.problems.push(`${page.url()}: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => this.problems.push(`${page.url()}: ${error.message}`));
    return page;
  }

  /** Errors the pages logged (a CSP violation, a failed script); checked by `expectNoProblems`. */
  readonly problems: string[] = [];

  expectNoProblems(allowed: RegExp[] = []) {
    expect(this.problems.filter((problem) => !allowed.some((pattern) => pattern.test(problem)))).toEqual([]);
  }

  /**
   * Opens the console at `path`, signs in through the provider's form (with `name` for a new account)
   * and waits for the screen at `path` to show its heading.
   */
  async signIn(page: Page, email: string, name?: string, path = '/'): Promise<void> {
    await page.goto(`${this.url}${path}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail address').fill(email);
    if (name) await page.getByLabel(/^Name/).fill(name);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  async close(): Promise<void> {
    for (const context of this.contexts) await context.close().catch(() => undefined);
    await this.browser.close();
    await this.api.close();
  }
}
