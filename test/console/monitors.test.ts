/**
 * The monitors and escalation policies screens in a real Chromium: a monitor and its integration key made
 * in the console (the key shown once, with its snippets), an Events API v2 trigger with that key opening
 * the monitor's incident; an escalation policy with a schedule step and a person step attached to a
 * monitor, a pending subscriber, and the API's refusal to delete a policy in use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/api.js';
import { ConsoleHarness, expectAccessible, type Size } from '../support/console.js';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await ConsoleHarness.start();
});
afterAll(() => harness?.close());

/** A link of the console's main navigation. */
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

describe.each<Size>(['desktop', 'phone'])('monitors at %s size', (size) => {
  it('creates a monitor and an integration key, shown once with its snippets; a trigger with the key opens the monitor’s incident', async () => {
    const email = uniqueEmail('monitors');
    await harness.api.signUp(email, 'Morgan Monitor');
    const page = await harness.page(size);
    await harness.signIn(page, email);
    await nav(page, 'Monitors').click();
    await page.getByRole('heading', { name: 'Monitors', level: 1 }).waitFor();
    await page.getByText('No monitors yet.').waitFor();
    await expectAccessible(page);

    const name = `Checkout API (${size})`;
    const form = page.getByRole('form', { name: 'Create monitor' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Expect heartbeat pings').check();
    await form.getByLabel('Ping at least every (minutes)').fill('10');
    await form.getByRole('button', { name: 'Create monitor' }).click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    await page.getByText('Heartbeat: no ping yet').waitFor();

    await page.getByLabel('Key name').fill('Prometheus');
    await page.getByRole('button', { name: 'Create key' }).click();
    const fresh = page.getByRole('region', { name: 'New key: Prometheus' });
    const key = await fresh.getByLabel('Integration key').inputValue();
    expect(key).toMatch(/^[a-z0-9]{32}$/);
    const apiUrl = harness.api.url.replace(/\/$/, '');
    for (const [title, needs] of [
      ['Prometheus Alertmanager', `${apiUrl}/integrations/alertmanager`],
      ['Grafana', `${apiUrl}/integrations/alertmanager`],
      ['Events API v2', `${apiUrl}/v2/enqueue`],
      ['Heartbeat', `${apiUrl}/heartbeats/${key}`],
    ] as const) {
      const text = await fresh.getByRole('figure', { name: new RegExp(`^${title}`) }).locator('pre').textContent();
      expect(text, title).toContain(key);
      expect(text, title).toContain(needs);
    }
    await expectAccessible(page);
    // Nothing is wider than the screen (the snippets scroll inside their own boxes).
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(await page.evaluate<number>('window.innerWidth'));

    // Leaving the screen forgets the key: back on it, only its last four characters are shown.
    await nav(page, 'Monitors').click();
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    const keys = page.getByRole('list', { name: 'Integration keys' });
    await keys.getByText(key.slice(-4), { exact: true }).waitFor();
    expect(await page.content()).not.toContain(key);

    const sent = await harness.api.request('POST', '/v2/enqueue', {
      body: { routing_key: key, event_action: 'trigger', payload: { summary: `Checkout 5xx above 2% (${size})`, source: 'checkout-api', severity: 'critical' } },
    });
    expect(sent.status).toBe(202);
    const incident = page.getByRole('list', { name: 'Open incidents' }).getByRole('link', { name: `Checkout 5xx above 2% (${size})` });
    await expect
      .poll(async () => {
        if (await incident.isVisible()) return true;
        await page.reload();
        await page.getByRole('heading', { name, level: 1 }).waitFor();
        return incident.isVisible();
      })
      .toBe(true);
    harness.expectNoProblems();
  });
});

it('builds an escalation policy with a schedule step and a person step, attaches it to a monitor, adds a pending subscriber; deleting the policy in use is refused', async () => {
  const { api } = harness;
  const email = uniqueEmail('lead');
  const lead = await api.signUp(email, 'Lee Lead');
  const team = await api.request('POST', '/api/teams', { token: lead.token, body: { name: 'Payments', slug: `payments-${Date.now()}` } });
  expect(team.status).toBe(201);
  const teamId = team.body.team.id as string;
  const schedule = await api.request('POST', '/api/schedules', {
    token: lead.token,
    body: { name: 'Payments primary', time_zone: 'Europe/Berlin', team_id: teamId, layers: [{ name: 'Weekly', start: '2026-11-02T09:00', rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [lead.id] }] },
  });
  expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
  const monitor = await api.request('POST', '/api/monitors', { token: lead.token, body: { name: 'Payments API', team_id: teamId } });
  expect(monitor.status).toBe(201);

  const page = await harness.page('phone', 'dark');
  await harness.signIn(page, email);
  await nav(page, 'Escalation policies').click();
  await page.getByRole('heading', { name: 'Escalation policies', level: 1 }).waitFor();
  const form = page.getByRole('form', { name: 'Create policy' });
  await form.getByLabel('Name').fill('Payments on-call');
  await form.getByLabel('Team').selectOption({ label: 'Payments' });
  const first = form.getByRole('group', { name: 'Step 1' });
  await first.getByLabel('Schedule').selectOption({ label: 'Payments primary' });
  await first.getByRole('button', { name: 'Add schedule' }).click();
  await form.getByRole('button', { name: 'Add step' }).click();
  const second = form.getByRole('group', { name: 'Step 2' });
  await second.getByLabel('Delay (minutes after the incident opens)').fill('10');
  await second.getByLabel('Person').selectOption({ label: `Lee Lead (${email})` });
  await second.getByRole('button', { name: 'Add person' }).click();
  await form.getByLabel('Repeat (rounds after the first, 0–5)').fill('1');
  await expectAccessible(page);
  await form.getByRole('button', { name: 'Create policy' }).click();

  await page.getByRole('heading', { name: 'Payments on-call', level: 1 }).waitFor();
  const steps = page.getByRole('list', { name: 'Steps' });
  await steps.getByText('At once: Schedule: Payments primary').waitFor();
  await steps.getByText(`After 10 minutes: Lee Lead (${email})`).waitFor();
  await page.getByText('Repeats 1 more time').waitFor();
  await expectAccessible(page);

  await nav(page, 'Monitors').click();
  await page.getByRole('link', { name: 'Payments API', exact: true }).click();
  await page.getByRole('heading', { name: 'Payments API', level: 1 }).waitFor();
  const settings = page.getByRole('form', { name: 'Save changes' });
  await settings.getByLabel('Escalation policy').selectOption({ label: 'Payments on-call' });
  await settings.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('link', { name: 'Payments on-call' }).waitFor();

  const subscriber = uniqueEmail('customer');
  await page.getByRole('form', { name: 'New subscriber' }).getByLabel('E-mail address').fill(subscriber);
  await page.getByRole('button', { name: 'Subscribe' }).click();
  const subscribers = page.getByRole('list', { name: 'Subscribers' });
  await subscribers.getByText(subscriber, { exact: true }).waitFor();
  await subscribers.getByText('Pending confirmation').waitFor();
  await expectAccessible(page);

  await page.getByRole('link', { name: 'Payments on-call' }).click();
  await page.getByRole('heading', { name: 'Payments on-call', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Delete policy' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete Payments on-call?' });
  await dialog.getByRole('button', { name: 'Delete policy' }).click();
  await dialog.getByRole('alert').getByText('Escalation policy in use').waitFor();
  // The refused DELETE is the one failed request Chromium logs.
  harness.expectNoProblems([/Failed to load resource: the server responded with a status of 400/]);
});
