/**
 * The console's home and incident screens in a real Chromium, at desktop and phone sizes: signing in
 * through the local provider, the list of incidents, one incident acknowledged with its timeline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advance, awaitMail, settle, uniqueEmail, type User } from '../support/api.js';
import { ConsoleHarness, expectAccessible, type Size } from '../support/console.js';
import { within } from '../support/deadlines.js';

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

it('creates a monitor with a two-step policy and an integration key, sends an Events API v2 trigger, and the incident appears without a reload; its alert details show, and it escalates', async () => {
  const { api } = harness;
  const email = uniqueEmail('alerted');
  const owner = await api.signUp(email, 'Alex Alerted');
  const second = uniqueEmail('second-step');
  const policy = await api.request('POST', '/api/escalation-policies', {
    token: owner.token,
    body: { name: 'Two steps', steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: owner.id }] }, { delay_minutes: 30, emails: [second] }] },
  });
  expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  const monitor = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Payments', escalation_policy_id: policy.body.escalation_policy.id } });
  expect(monitor.status).toBe(201);
  const integration = await api.request('POST', `/api/monitors/${monitor.body.monitor.id}/integrations`, { token: owner.token, body: { name: 'Grafana' } });
  expect(integration.status, JSON.stringify(integration.body)).toBe(201);

  const page = await harness.page('phone', 'dark');
  // The browser's clock, which the test moves on past the list's next reading (time otherwise flows as usual).
  await page.clock.install();
  await harness.signIn(page, email);
  await page.getByText('No incidents match').waitFor();
  const trigger = await api.request('POST', '/v2/enqueue', {
    body: {
      routing_key: integration.body.integration.key,
      event_action: 'trigger',
      dedup_key: 'payments-latency',
      payload: { summary: 'Payments latency above 2 s', source: 'payments-api-3', severity: 'critical', component: 'postgres', custom_details: { p99_ms: 2300 } },
      links: [{ href: 'https://grafana.example.com/d/payments', text: 'Dashboard' }],
    },
  });
  expect(trigger.status, JSON.stringify(trigger.body)).toBe(202);
  await settle(api);
  // The open page reads the list again by itself (every 10 s): no navigation, no reload.
  const link = page.getByRole('link', { name: 'Payments latency above 2 s' });
  await page.clock.fastForward(10_000);
  await link.waitFor({ timeout: within(30_000) });
  await expectAccessible(page);

  await link.click();
  await page.getByRole('heading', { name: 'Payments latency above 2 s', level: 1 }).waitFor();
  const details = page.getByRole('region', { name: 'Alert details' });
  await details.getByText('payments-api-3').waitFor();
  await details.getByRole('link', { name: 'Dashboard' }).waitFor();
  expect(await details.getByLabel('Custom details').textContent()).toContain('"p99_ms": 2300');
  // Who was paged how, and whether it was delivered (the owner has no rules: e-mail to their address).
  await page.getByRole('list', { name: 'Timeline' }).getByText(/E-mail to Alex Alerted/).waitFor();
  await expectAccessible(page);

  await page.getByRole('button', { name: 'Escalate' }).click();
  await page.getByText('Escalating to step 2 now.').waitFor();
  await advance(api, 2_000);
  await page.getByRole('button', { name: 'Escalate' }).click();
  await page.getByRole('alert').getByText('Incident has no further escalation step').waitFor();
  // (The page reads its timeline again every 10 s.)
  await settle(api);
  await page.clock.fastForward(10_000);
  await page.getByRole('list', { name: 'Timeline' }).getByText(`Step 2 paged ${second}`).waitFor({ timeout: within(30_000) });
  // (The browser logs the refusal it was shown.)
  harness.expectNoProblems([/status of 409/]);
});

it('acknowledges several at once: the rest are done, and each refusal shows with the API\'s words', async () => {
  const email = uniqueEmail('bulk');
  const owner = await harness.api.signUp(email, 'Bo Bulk');
  const first = await openIncident(owner, 'Bulk one');
  await openIncident(owner, 'Bulk two');
  const page = await harness.page('desktop');
  await harness.signIn(page, email);
  await page.getByRole('link', { name: 'Bulk two' }).waitFor();
  // Someone else acknowledges the first meanwhile; this page has not seen it yet.
  expect((await harness.api.request('POST', `/api/incidents/${first.id}/acknowledge`, { token: owner.token })).status).toBe(200);
  await page.getByRole('checkbox', { name: 'Select Bulk one' }).check();
  await page.getByRole('checkbox', { name: 'Select Bulk two' }).check();
  await page.getByRole('group', { name: 'Selected incidents' }).getByRole('button', { name: 'Acknowledge' }).click();
  const result = page.getByRole('alert').filter({ hasText: 'not:' });
  await result.getByText('1 incident acknowledged; 1 not:').waitFor();
  await result.getByRole('list', { name: 'Not done' }).getByText('Incident already acknowledged').waitFor();
  expect(await result.getByRole('link', { name: 'Bulk one' }).count()).toBe(1);
  await expectAccessible(page);
  // (The browser logs the refusals shown: the acknowledgement's 400, the escalation's 409 above.)
  harness.expectNoProblems([/status of 409/, /status of 400/]);
});

it('filters by monitor, team and "Assigned to me", with the keyboard alone', async () => {
  const { api } = harness;
  const email = uniqueEmail('filters');
  const owner = await api.signUp(email, 'Fi Filters');
  const team = await api.request('POST', '/api/teams', { token: owner.token, body: { name: 'Payments crew', slug: `payments-${Date.now()}` } });
  expect(team.status, JSON.stringify(team.body)).toBe(201);
  const shared = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Shared checkout', team_id: team.body.team.id } });
  const sharedIncident = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: shared.body.monitor.id, title: 'Shared is down', severity: 'LOW' } });
  expect(sharedIncident.status).toBe(201);
  const mine = await openIncident(owner, 'Mine is down');
  expect((await api.request('POST', `/api/incidents/${mine.id}/acknowledge`, { token: owner.token })).status).toBe(200);

  const page = await harness.page('desktop');
  await harness.signIn(page, email);
  await page.getByRole('link', { name: 'Shared is down' }).waitFor();
  await page.getByRole('link', { name: 'Mine is down' }).waitFor();

  await page.getByLabel('Team', { exact: true }).focus();
  await page.getByLabel('Team', { exact: true }).selectOption({ label: 'Payments crew' });
  await expect.poll(() => page.url()).toContain(`team_id=${team.body.team.id}`);
  await page.getByRole('link', { name: 'Mine is down' }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Shared is down' }).waitFor();
  await page.getByLabel('Team', { exact: true }).selectOption({ label: 'Any' });

  await page.getByLabel('Urgency', { exact: true }).selectOption('low');
  await page.getByRole('link', { name: 'Mine is down' }).waitFor({ state: 'detached' });
  await page.getByLabel('Urgency', { exact: true }).selectOption('');

  await page.getByLabel('Monitor', { exact: true }).selectOption({ label: 'Checkout Mine is down' });
  await page.getByRole('link', { name: 'Shared is down' }).waitFor({ state: 'detached' });
  await page.getByLabel('Monitor', { exact: true }).selectOption({ label: 'Any' });
  await page.getByRole('link', { name: 'Shared is down' }).waitFor();

  // "Assigned to me": acknowledged by me (nobody was paged for the manual ones).
  await page.getByLabel('Assigned to me').focus();
  await page.keyboard.press('Space');
  await expect.poll(() => page.url()).toContain('mine=true');
  await page.getByRole('link', { name: 'Shared is down' }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Mine is down' }).waitFor();
  await expectAccessible(page);
  harness.expectNoProblems([/status of 409/, /status of 400/]);
});

it("opens an acknowledge link from the mailbox: the console's look, times in the reader's zone (the console's script, the only one the page allows), axe clean", async () => {
  const { api } = harness;
  const email = uniqueEmail('linked');
  const owner = await api.signUp(email, 'Lin Linked');
  const policy = await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: 'Me', steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: owner.id }] }] } });
  const monitor = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Search', escalation_policy_id: policy.body.escalation_policy.id } });
  const integration = await api.request('POST', `/api/monitors/${monitor.body.monitor.id}/integrations`, { token: owner.token, body: { name: 'Prometheus' } });
  const trigger = await api.request('POST', '/v2/enqueue', {
    body: { routing_key: integration.body.integration.key, event_action: 'trigger', payload: { summary: 'Search is slow', source: 'search-1', severity: 'error' } },
  });
  expect(trigger.status, JSON.stringify(trigger.body)).toBe(202);
  await settle(api);
  const [mail] = await awaitMail(api, email);
  const acknowledgeUrl = /(http\S+\/acknowledge\/[\w-]+)/.exec(mail!.body.text!)![1]!;
  expect(mail!.body.text).toContain(`${api.runtime.oidc.consoleOrigin}/incidents/`);

  const page = await harness.page('phone', 'dark');
  await page.goto(acknowledgeUrl);
  await page.getByRole('heading', { name: 'Acknowledge: Search is slow', level: 1 }).waitFor();
  const started = page.locator('time').first();
  const iso = (await started.getAttribute('datetime'))!;
  // The browser's zone is Europe/Berlin: the script rewrote the UTC text.
  const berlin = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'Europe/Berlin' }).format(new Date(iso));
  await expect.poll(() => started.textContent()).toContain(berlin);
  expect(await started.textContent()).not.toContain('UTC');
  // The console's dark background.
  expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(17, 20, 24)');
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Acknowledge the incident' }).click();
  await page.getByRole('heading', { name: 'Incident acknowledged', level: 1 }).waitFor();
  expect(await page.getByRole('link', { name: 'View the incident in the console' }).getAttribute('href')).toMatch(new RegExp(`^${harness.url}/incidents/[0-9a-f-]{36}$`));
  await expectAccessible(page);
  harness.expectNoProblems([/status of 409/, /status of 400/]);
});
