/**
 * `npm run screenshots`: the README's pictures of the console, taken from the running service in Debian's
 * Chromium (through playwright-core), so they are never drawn by hand and never stale: a demo team with a
 * schedule, a policy, monitors, incidents and a webhook, then each main screen at desktop size (and the
 * incidents at phone size, in dark mode), into docs/screenshots/. `test/unit/docs-links.test.ts`-style
 * checks (test/http/console-host.test.ts) keep the README naming exactly these files (`screenshot-list.ts`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium, type Page } from 'playwright-core';
import { buildConsole } from '../../console/build/build.js';
import { startDynamoDbLocal } from '../local/aws/dynamodb-local.js';
import { startService } from '../local/perf/service.js';
import { quietFunctionLogs } from '../local/perf/quiet-logs.js';
import { freePort } from '../local/runtime/ports.js';
import { repositoryRoot } from '../paths.js';
import { call, closeClients, signUp } from './lib.js';
import { SCREENSHOTS } from './screenshot-list.js';


async function main() {
  quietFunctionLogs();
  const out = join(repositoryRoot, 'docs/screenshots');
  mkdirSync(out, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'console-shots-'));
  await buildConsole(dir);
  const database = await startDynamoDbLocal({ port: await freePort() });
  // The demo's webhook points at a port of this machine (nothing need answer: no picture shows a delivery).
  const hookPort = await freePort();
  const runtime = await startService({ port: 0, dynamodbEndpoint: database.endpoint, sesPort: 0, log: () => undefined, quietFunctionLogs: true, console: { dir, port: 0 }, webhookPorts: [hookPort] });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const avery = await signUp(runtime, 'Avery Lead');
    const blake = await signUp(runtime, 'Blake Responder');
    const team = (await call(runtime, 'POST', '/api/teams', avery.token, { name: 'Platform', slug: `platform-${Date.now()}` })).body.team;
    const invite = (await call(runtime, 'POST', `/api/teams/${team.id}/invite`, avery.token, { email: blake.email, role: 'MEMBER' })).body.invite;
    const token = invite.token as string;
    await call(runtime, 'POST', `/api/teams/invites/${token}/accept`, blake.token);
    const monday = new Date();
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7) - 7);
    const start = `${monday.toISOString().slice(0, 10)}T09:00`;
    const schedule = (
      await call(runtime, 'POST', '/api/schedules', avery.token, {
        name: 'Platform primary',
        time_zone: 'Europe/Berlin',
        team_id: team.id,
        layers: [{ name: 'Weekly', start, rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [avery.id, blake.id] }],
      })
    ).body.schedule;
    const policy = (
      await call(runtime, 'POST', '/api/escalation-policies', avery.token, {
        name: 'Platform on call',
        team_id: team.id,
        repeat: 1,
        steps: [
          { delay_minutes: 0, targets: [{ type: 'schedule', id: schedule.id }] },
          { delay_minutes: 10, targets: [{ type: 'user', id: avery.id }] },
        ],
      })
    ).body.escalation_policy;
    const monitors: { id: string }[] = [];
    for (const name of ['Checkout API', 'Payments worker', 'Search']) {
      monitors.push((await call(runtime, 'POST', '/api/monitors', avery.token, { name, team_id: team.id, escalation_policy_id: policy.id })).body.monitor);
    }
    await call(runtime, 'POST', `/api/monitors/${monitors[0]!.id}/integrations`, avery.token, { name: 'Prometheus' });
    const incidents: { id: string; title: string }[] = [];
    for (const [monitor, title, severity] of [
      [monitors[0]!, 'Checkout API: 5xx above 2% for 5 minutes', 'CRITICAL'],
      [monitors[1]!, 'Payments worker queue is backing up', 'HIGH'],
      [monitors[2]!, 'Search latency p99 above 800 ms', 'MEDIUM'],
    ] as const) {
      incidents.push((await call(runtime, 'POST', '/api/incidents', avery.token, { monitorId: monitor.id, title, severity, message: 'Opened from the runbook' })).body.incident);
    }
    await call(runtime, 'POST', `/api/incidents/${incidents[1]!.id}/acknowledge`, blake.token);
    await call(runtime, 'POST', `/api/incidents/${incidents[0]!.id}/updates`, avery.token, { message: 'Rolling back deploy 2026.11.27-3', status: 'IDENTIFIED' });
    await call(runtime, 'POST', '/api/webhooks', avery.token, { url: `http://localhost:${hookPort}/incidents`, team_id: team.id, events: ['incident.created', 'incident.acknowledged', 'incident.resolved'], description: 'Chat room' });
    await runtime.idle();

    const shoot = async (page: Page, path: string, ready: (page: Page) => Promise<unknown>, file: string) => {
      await page.goto(`${runtime.consoleUrl}${path}`);
      await ready(page);
      // Nothing still loading in the picture.
      await page.waitForFunction(() => ![...(globalThis as unknown as { document: { querySelectorAll(s: string): { textContent: string | null }[] } }).document.querySelectorAll('[role="status"]')].some((node) => node.textContent?.startsWith('Loading')));
      if (!(SCREENSHOTS as readonly string[]).includes(file)) throw new Error(`${file} is not in infra/tools/screenshot-list.ts`);
      await page.screenshot({ path: join(out, `${file}.png`) });
      console.log(`docs/screenshots/${file}.png`);
    };
    const signIn = async (page: Page) => {
      await page.goto(runtime.consoleUrl!);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('E-mail address').fill(avery.email);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
    };
    const desktop = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', locale: 'en-GB', timezoneId: 'Europe/Berlin' })).newPage();
    await signIn(desktop);
    const heading = (name: string | RegExp) => (page: Page) => page.getByRole('heading', { level: 1, name }).waitFor();
    await shoot(desktop, '/', (page) => page.getByRole('link', { name: incidents[0]!.title }).waitFor(), 'incidents');
    await shoot(desktop, `/incidents/${incidents[0]!.id}`, (page) => page.getByText('Rolling back deploy').first().waitFor(), 'incident');
    await shoot(desktop, '/on-call', (page) => page.getByText('Platform primary').first().waitFor(), 'on-call');
    await shoot(desktop, `/schedules/${schedule.id}`, heading(/Platform primary/), 'schedule');
    await shoot(desktop, '/monitors', (page) => page.getByRole('link', { name: 'Checkout API' }).first().waitFor(), 'monitors');
    await shoot(desktop, `/monitors/${monitors[0]!.id}`, heading(/Checkout API/), 'monitor');
    await shoot(desktop, `/escalation-policies/${policy.id}`, heading(/Platform on call/), 'escalation-policy');
    await shoot(desktop, `/teams/${team.id}`, heading(/Platform/), 'team');
    await shoot(desktop, '/profile', heading('Profile'), 'profile');
    await shoot(desktop, '/webhooks', heading('Webhooks'), 'webhooks');
    const phone = await (await browser.newContext({ viewport: { width: 375, height: 740 }, colorScheme: 'dark', locale: 'en-GB', timezoneId: 'Europe/Berlin' })).newPage();
    await signIn(phone);
    await shoot(phone, '/', (page) => page.getByRole('link', { name: incidents[0]!.title }).waitFor(), 'incidents-phone-dark');
  } finally {
    closeClients();
    await browser.close();
    await runtime.close();
    await database.stop();
  }
}

await main();
