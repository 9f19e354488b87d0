/**
 * The Webhooks screens in a real Chromium, against a real receiver on this machine (the runtime lets
 * webhooks reach its port): create one, its secret shown once, a test ping and its answer among the
 * deliveries, redelivered.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { uniqueEmail } from '../support/api.js';
import { ConsoleHarness, expectAccessible } from '../support/console.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

let harness: ConsoleHarness;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('pong from the relay'));
  harness = await ConsoleHarness.start({ webhookPorts: [receiver.port] });
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

it('creates a webhook, shows its secret once, sends a test ping and shows the delivery with its answer', async () => {
  const email = uniqueEmail('integrator');
  await harness.api.signUp(email, 'Ira Integrator');
  const page = await harness.page('desktop');
  await harness.signIn(page, email);
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  await page.getByText('No webhooks yet').waitFor();

  await page.getByLabel('URL (https)').fill(`${receiver.origin}/incidents`);
  await page.getByLabel('incident.note_added').check();
  await page.getByLabel('Description (optional)').fill('Ops relay');
  await page.getByRole('button', { name: 'Create webhook' }).click();
  const secretNote = page.getByRole('region', { name: "The new webhook's secret" });
  await expect.poll(() => secretNote.getByRole('textbox', { name: 'Signing secret' }).inputValue()).toMatch(/^whsec_/);
  await expectAccessible(page);

  // Shown once: the list read again holds no secret.
  await page.reload();
  await page.getByRole('link', { name: 'Ops relay' }).click();
  await page.getByRole('heading', { name: 'Ops relay', level: 1 }).waitFor();
  expect(await page.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0);

  await page.getByRole('button', { name: 'Send a test' }).click();
  await page.getByRole('status').getByText('Test sent: succeeded, HTTP 200').waitFor();
  const deliveries = page.getByRole('list', { name: 'Deliveries' });
  const ping = deliveries.getByRole('listitem').filter({ hasText: 'ping' }).first();
  await ping.getByText(/HTTP 200 in \d+ ms/).waitFor();
  await ping.getByText('pong from the relay').waitFor();
  expect(receiver.requests.some((request) => request.path === '/incidents' && request.body.includes('"type":"ping"'))).toBe(true);

  await ping.getByRole('button', { name: /^Redeliver ping/ }).click();
  await expect.poll(() => ping.getByText(/HTTP 200 in \d+ ms/).count()).toBe(2);
  await expectAccessible(page);
  harness.expectNoProblems();
});

it('is usable at phone size', async () => {
  const email = uniqueEmail('pocket');
  const user = await harness.api.signUp(email, 'Pia Pocket');
  const created = await harness.api.request('POST', '/api/webhooks', { token: user.token, body: { url: `${receiver.origin}/phone`, events: ['incident.created'], description: 'Pocket relay' } });
  expect(created.status).toBe(201);
  const page = await harness.page('phone');
  await harness.signIn(page, email);
  await page.goto(`${harness.url}/webhooks/${created.body.webhook.id}`);
  await page.getByRole('heading', { name: 'Pocket relay', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  await expect.poll(() => page.getByRole('region', { name: 'The new signing secret' }).getByRole('textbox', { name: 'Signing secret' }).inputValue()).toMatch(/^whsec_/);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  await expectAccessible(page);
  harness.expectNoProblems();
});
