/**
 * Double opt-in: subscribing answers a `pending` subscription and e-mails the address one link, and
 * nothing else until it confirms; the link's GET shows a page, only its POST confirms, once, for 7 days;
 * subscriptions from before (no status) count as confirmed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { advanceClock, resetClock } from '../../shared/platform/clock.js';
import { subscriptionItems } from '../../shared/subscribers/repository.js';
import { newSubscriber } from '../../shared/subscribers/service.js';
import { CONFIRMATION_LINK_VALIDITY_MS } from '../../shared/subscribers/confirmation.js';
import { allMailTo, Api, awaitMail, confirmationLink, mailTo, settle, subscribeConfirmed, uniqueEmail, type User } from '../support/api.js';
import { createMonitor } from '../support/teams.js';

let api: Api;
let owner: User;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('opt-in-owner'));
});
afterAll(() => api.close());
afterEach(() => resetClock());

const subscribe = (monitorId: string, email: string) => api.request('POST', `/api/monitors/${monitorId}/subscribers`, { token: owner.token, body: { email } });
const listed = async (monitorId: string) =>
  (await api.request('GET', `/api/monitors/${monitorId}/subscribers`, { token: owner.token })).body.subscribers as { email: string; status: string }[];
const statusOf = async (monitorId: string, email: string) => (await listed(monitorId)).find((subscriber) => subscriber.email === email)?.status;
const open = (path: string) => api.request('GET', path);
const click = (path: string) => api.request('POST', path, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const titleOf = (page: { body: unknown }) => /<h1>(.*?)<\/h1>/.exec(String(page.body))?.[1];

async function incident(monitorId: string, title: string) {
  expect((await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId, title } })).status).toBe(201);
  await settle(api);
}

describe('subscriber confirmation (double opt-in)', () => {
  it('answers pending, e-mails one confirmation and nothing else until the link is confirmed, by POST only, once', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Status page' });
    const [pending, confirmed] = [uniqueEmail('pending'), uniqueEmail('confirmed')];
    const created = await subscribe(monitor.id, pending);
    expect(created.status).toBe(201);
    expect(created.body.subscriber).toEqual({ id: expect.any(String), monitor_id: monitor.id, email: pending, created_at: expect.any(String), suppression: null, status: 'pending' });
    await subscribeConfirmed(api, owner.token, monitor.id, confirmed);

    const [confirmation] = await allMailTo(api, pending);
    expect(confirmation!.subject).toBe('Confirm your subscription to Status page');
    const link = await confirmationLink(api, pending);
    expect(confirmation!.body.text).toContain(`${api.url}${link}`);

    // A pending address gets nothing but its confirmation; a confirmed one gets the incident.
    await incident(monitor.id, 'Checkout is slow');
    await awaitMail(api, confirmed, 1);
    expect((await allMailTo(api, pending)).map((email) => email.subject)).toEqual(['Confirm your subscription to Status page']);

    // Opening the link (mail scanners do) shows a page and confirms nothing.
    for (let opened = 0; opened < 2; opened++) {
      const page = await open(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(titleOf(page)).toBe('Confirm your subscription to Status page?');
      expect(String(page.body)).toContain('Confirm the subscription');
    }
    expect(await statusOf(monitor.id, pending)).toBe('pending');

    const done = await click(link);
    expect(done.status).toBe(200);
    expect(titleOf(done)).toBe('Subscription confirmed');
    expect(await statusOf(monitor.id, pending)).toBe('confirmed');
    const again = await click(link);
    expect(again.status).toBe(410);
    expect(titleOf(again)).toBe('This link was already used');
    expect(titleOf(await open(link))).toBe('This link was already used');

    await incident(monitor.id, 'Checkout is down');
    expect((await awaitMail(api, pending, 1)).map((email) => email.subject)).toEqual(['New incident: Checkout is down']);
    // Still the one confirmation e-mail: confirming sends nothing.
    expect((await allMailTo(api, pending)).filter((email) => email.subject.startsWith('Confirm'))).toHaveLength(1);
  });

  it('expires after 7 days, refuses an unknown link and the link of a removed subscription', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Expiring' });
    const [late, removed] = [uniqueEmail('late'), uniqueEmail('removed')];
    expect((await subscribe(monitor.id, late)).status).toBe(201);
    const removedId = (await subscribe(monitor.id, removed)).body.subscriber.id;
    const [lateLink, removedLink] = [await confirmationLink(api, late), await confirmationLink(api, removed)];

    expect((await api.request('DELETE', `/api/monitors/${monitor.id}/subscribers/${removedId}`, { token: owner.token })).status).toBe(200);
    const gone = await click(removedLink);
    expect(gone.status).toBe(404);
    expect(titleOf(gone)).toBe('This link is not valid');

    const unknown = await open(`/confirm/${'A'.repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(titleOf(unknown)).toBe('This link is not valid');
    expect((await click('/confirm/short')).status).toBe(404);

    advanceClock(CONFIRMATION_LINK_VALIDITY_MS - 60_000);
    expect((await open(lateLink)).status).toBe(200);
    advanceClock(61_000);
    for (const page of [await open(lateLink), await click(lateLink)]) {
      expect(page.status).toBe(410);
      expect(titleOf(page)).toBe('This link has expired');
    }
    expect(await statusOf(monitor.id, late)).toBe('pending');
  });

  it('lets exactly one of two clicks at once confirm', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Race' });
    const email = uniqueEmail('race');
    expect((await subscribe(monitor.id, email)).status).toBe(201);
    const link = await confirmationLink(api, email);
    const pages = await Promise.all([click(link), click(link), click(link)]);
    expect(pages.map((page) => page.status).sort()).toEqual([200, 410, 410]);
    expect(await statusOf(monitor.id, email)).toBe('confirmed');
  });

  it('counts a subscription from before double opt-in (no status) as confirmed', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Old page' });
    const email = uniqueEmail('old');
    const { status: _status, ...before } = newSubscriber(monitor.id, email, 'confirmed');
    await batchWrite(Object.values(subscriptionItems(monitor, before)).map((Item) => ({ PutRequest: { Item } })));
    expect(await statusOf(monitor.id, email)).toBe('confirmed');
    await incident(monitor.id, 'Old page is down');
    expect((await awaitMail(api, email, 1)).map((mail) => mail.subject)).toEqual(['New incident: Old page is down']);
    expect(await mailTo(api, email)).toHaveLength(1);
  });
});
