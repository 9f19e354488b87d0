/**
 * The console's home and incident screens in a real Chromium, at desktop and phone sizes: signing in
 * through the local provider, the list of incidents, one incident acknowledged with its timeline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail, type User } from '../support/api.js';
import { ConsoleHarness, expectAccessible, type Size } from '../support/console.js';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await ConsoleHarness.start();
});
afterAll(() => harness?.close());

async function openIncident(owner: User, title: string) {
  const { api } = harness;
  const monitor = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: `Checkout ${title}` } });
  expect(monitor.status).toBe(201);
  const incident = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.body.monitor.id, title, severity: 'HIGH' } });
  expect(incident.status).toBe(201);
  return incident.body.incident as { id: string };
}

describe.each<Size>(['desktop', 'phone'])('incidents at %s size', (size) => {
  it('signs in, lists the open incident, opens it, acknowledges it, and the timeline shows who did', async () => {
    const email = uniqueEmail('responder');
    const owner = await harness.api.signUp(email, 'Riley Responder');
    const title = `Checkout is down (${size})`;
    await openIncident(owner, title);

    const page = await harness.page(size);
    await harness.signIn(page, email);
    await expect.poll(() => page.title()).toContain('Incidents');
    await page.getByRole('link', { name: title }).waitFor();
    await expectAccessible(page);
    await page.getByRole('link', { name: title }).click();
    await page.getByRole('heading', { name: title, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText('Acknowledged by Riley Responder').waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Acknowledge' }).isDisabled()).toBe(true);

    await page.getByLabel('Note', { exact: true }).fill('Rolling back the deploy');
    await page.getByLabel('Change status to').selectOption('IDENTIFIED');
    await page.getByRole('button', { name: 'Add note' }).click();
    await timeline.getByText('Rolling back the deploy').waitFor();
    await timeline.getByText('Status INVESTIGATING → IDENTIFIED').waitFor();
    await expectAccessible(page);
    harness.expectNoProblems();
  });
});

it('signs out of the console and of the provider: the next sign-in asks for the form again', async () => {
  const email = uniqueEmail('leaver');
  await harness.api.signUp(email, 'Lee Leaver');
  const page = await harness.page();
  await harness.signIn(page, email);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('E-mail address').waitFor();
  // Tokens live in session storage only (issue 44 §2).
  expect(await page.evaluate(() => (globalThis as unknown as { localStorage: { length: number } }).localStorage.length)).toBe(0);
});
