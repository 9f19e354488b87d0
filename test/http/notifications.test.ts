/**
 * Events to e-mail, end to end: the outbox written with the change, the stream read by the
 * publisher, the local bus, the notifier, the local SES mailbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { Api, awaitMail, eventually, mailTo, settle, subscribeConfirmed, uniqueEmail, type User } from '../support/api.js';
import { createTeam, invite } from '../support/teams.js';
import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/platform/db/client.js';
import { attributes, keys } from '../../shared/platform/db/keys.js';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { linkTokenHash } from '../../shared/platform/emailed-link.js';
import { getMonitorWithSubscribers } from '../../shared/subscribers/repository.js';

const itemAt = async (key: Record<string, string>) => (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
const monitorItems = async (monitorId: string) =>
  (
    await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': attributes.pk },
        ExpressionAttributeValues: { ':pk': keys.monitorPartition(monitorId) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

let api: Api;
let owner: User;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('notified-owner'), 'Nora Owner');
});
afterAll(() => api.close());

async function monitorWithSubscriber(name = 'Payments API') {
  const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name } })).body.monitor;
  const email = uniqueEmail('subscriber');
  await subscribeConfirmed(api, owner.token, monitor.id, email);
  return { monitor, email };
}

describe('subscriber notifications', () => {
  it('sends New incident, Incident update and Incident resolved, with the facts and an unsubscribe link', async () => {
    const { monitor, email } = await monitorWithSubscriber();
    const created = await api.request('POST', '/api/incidents', {
      token: owner.token,
      body: { monitorId: monitor.id, title: 'Card payments failing', severity: 'CRITICAL', message: 'Provider returns 502' },
    });
    const id = created.body.incident.id;
    const [newIncident] = await awaitMail(api, email, 1);
    expect(newIncident!.subject).toBe('New incident: Card payments failing');
    expect(newIncident!.from).toBe('incidents@example.com');
    for (const fact of ['Payments API', 'INVESTIGATING', 'CRITICAL', 'complete service outage', 'Provider returns 502', created.body.incident.started_at]) {
      expect(newIncident!.body.text).toContain(fact);
    }
    expect(newIncident!.body.html).toContain('<h2>New incident: Card payments failing</h2>');
    expect(newIncident!.body.text).toMatch(new RegExp(`${api.url}/unsubscribe/[A-Za-z0-9_-]{43}`));

    await api.request('PUT', `/api/incidents/${id}`, { token: owner.token, body: { status: 'IDENTIFIED' } });
    const update = (await awaitMail(api, email, 2))[1]!;
    expect(update.subject).toBe('Incident update: Card payments failing');
    expect(update.body.text).toContain('The status changed from INVESTIGATING to IDENTIFIED.');

    // A change that is not a status change notifies nobody.
    await api.request('PUT', `/api/incidents/${id}`, { token: owner.token, body: { severity: 'HIGH' } });
    await api.request('DELETE', `/api/incidents/${id}`, { token: owner.token });
    const resolved = (await awaitMail(api, email, 3))[2]!;
    expect(resolved.subject).toBe('Incident resolved: Card payments failing');
    expect(resolved.body.text).toContain('Resolved:');
    await settle(api);
    expect(await mailTo(api, email)).toHaveLength(3);
  });

  it('stops e-mailing a subscriber who followed the unsubscribe link', async () => {
    const { monitor, email } = await monitorWithSubscriber('Search');
    await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Slow search' } });
    const [first] = await awaitMail(api, email, 1);
    const link = /(http:\/\/\S+\/unsubscribe\/[A-Za-z0-9_-]+)/.exec(first!.body.text!)![1]!;
    // Opening the link (as a mail scanner would, twice) only asks; the page's button unsubscribes.
    for (let opened = 0; opened < 2; opened++) {
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const html = await page.text();
      expect(html).toContain('Unsubscribe from Search?');
      expect(html).toContain('<form method="post">');
    }
    const before = await api.request('GET', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token });
    expect(before.body.subscribers.map((subscriber: { email: string }) => subscriber.email)).toContain(email);
    const done = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(done.status).toBe(200);
    const html = await done.text();
    expect(html).toContain('You are unsubscribed');
    expect(html).toContain('Search');
    for (const method of ['POST', 'GET']) {
      const again = await fetch(link, { method });
      expect(again.status, method).toBe(404);
      expect(await again.text()).toContain('This link is not valid');
    }

    await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Slow again' } });
    await settle(api);
    expect(await mailTo(api, email)).toHaveLength(1);
    const listed = await api.request('GET', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token });
    expect(listed.body).toEqual({ subscribers: [], next_cursor: null });
  });

  it('keeps only the SHA-256 of unsubscribe tokens (issue 41, 8): each e-mail brings its own link, the table never the token', async () => {
    const { monitor, email } = await monitorWithSubscriber('Hashed links');
    await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'First' } });
    await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Second' } });
    const mails = await awaitMail(api, email, 2);
    const tokens = mails.map((mail) => /\/unsubscribe\/([A-Za-z0-9_-]{43})/.exec(mail.body.text!)![1]!);
    expect(new Set(tokens).size).toBe(2);
    const stored = JSON.stringify([...(await monitorItems(monitor.id)), ...(await Promise.all(tokens.map(async (token) => (await itemAt(keys.unsubscribeToken(linkTokenHash(token)))) ?? null)))]);
    for (const token of tokens) {
      expect(stored).not.toContain(token);
      expect(stored).toContain(linkTokenHash(token));
      expect(await itemAt(keys.unsubscribeToken(token))).toBeUndefined();
    }
    // The hash is no token.
    expect((await fetch(`${api.url}/unsubscribe/${linkTokenHash(tokens[0]!)}`)).status).toBe(404);
    // Either e-mail's link unsubscribes.
    const done = await fetch(`${api.url}/unsubscribe/${tokens[0]}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(done.status).toBe(200);
    expect((await api.request('GET', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token })).body.subscribers).toEqual([]);
  });

  it('rehashes a token a subscription stored in clear before: its old link works before and after, and nothing clear is left', async () => {
    const { monitor, email } = await monitorWithSubscriber('Old links');
    const [subscriber] = (await getMonitorWithSubscribers(monitor.id)).subscribers;
    // As subscriptions were stored before issue 41: the token on the subscription and its lookup keyed by it.
    const legacy = randomBytes(32).toString('base64url');
    await batchWrite([
      { PutRequest: { Item: { ...keys.subscriber(monitor.id, subscriber!.id), type: 'subscriber', ...subscriber, unsubscribe_token: legacy } } },
      {
        PutRequest: {
          Item: { ...keys.unsubscribeToken(legacy), type: 'unsubscribe_token', monitor_id: monitor.id, monitor_name: 'Old links', subscriber_id: subscriber!.id, email },
        },
      },
    ]);
    const opened = await fetch(`${api.url}/unsubscribe/${legacy}`);
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('Unsubscribe from Old links?');
    await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'After the change' } });
    const [mail] = await awaitMail(api, email, 1);
    expect(mail!.body.text).not.toContain(legacy);
    const stored = JSON.stringify(await monitorItems(monitor.id));
    expect(stored).not.toContain(legacy);
    expect(stored).toContain(linkTokenHash(legacy));
    expect(await itemAt(keys.unsubscribeToken(legacy))).toBeUndefined();
    const done = await fetch(`${api.url}/unsubscribe/${legacy}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(done.status).toBe(200);
    expect((await api.request('GET', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token })).body.subscribers).toEqual([]);
    expect(await itemAt(keys.unsubscribeToken(linkTokenHash(legacy)))).toBeUndefined();
  });

  it('sends the same event to a recipient once, however often it is delivered', async () => {
    const { monitor, email } = await monitorWithSubscriber('Idempotent');
    await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Once' } });
    await awaitMail(api, email, 1);
    await settle(api);
    const delivered = api.runtime.bus.delivered.filter(
      (delivery) => delivery.target === 'notifier' && (delivery.event.detail as { incident?: { monitor_id: string } }).incident?.monitor_id === monitor.id,
    );
    expect(delivered).toHaveLength(1);
    const result = await invokeFunction('notifier', delivered[0]!.event);
    expect(result).toEqual({ sent: 0, duplicates: 1, possible_duplicates: 0 });
    await invokeFunction('notifier', delivered[0]!.event);
    expect(await mailTo(api, email)).toHaveLength(1);
  });

  it('loses no notification when PutEvents fails: the event arrives once the bus recovers', async () => {
    const { monitor, email } = await monitorWithSubscriber('Flaky bus');
    await settle(api);
    const published = api.runtime.bus.publishedCount;
    api.runtime.bus.failPutEvents(Number.POSITIVE_INFINITY);
    await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'During the outage' } });
    // The publisher keeps failing, and the stream keeps the record for the next attempt.
    await eventually(async () => api.runtime.stream.failures, (failures) => failures >= 2);
    expect(api.runtime.bus.publishedCount).toBe(published);
    expect(await mailTo(api, email)).toHaveLength(0);

    api.runtime.bus.failPutEvents(0);
    const emails = await awaitMail(api, email, 1);
    expect(emails[0]!.subject).toBe('New incident: During the outage');
    await settle(api);
    expect(await mailTo(api, email)).toHaveLength(1);
  });
});

describe('invite e-mail', () => {
  it('sends the invitee the team, inviter, role, token, how to accept and the expiry', async () => {
    const team = await createTeam(api, owner, 'Platform Crew');
    const invitee = uniqueEmail('invitee');
    const created = await invite(api, owner, team.id, invitee, 'ADMIN');
    const [email] = await awaitMail(api, invitee, 1);
    expect(email!.subject).toBe('Nora Owner invited you to join Platform Crew');
    for (const fact of ['Platform Crew', 'Nora Owner', owner.email, 'ADMIN', created.token, created.expires_at]) {
      expect(email!.body.text).toContain(fact);
    }
    expect(email!.body.text).toContain(`${api.url}/api/teams/invites/${created.token}/accept`);
  });
});

describe('subscribers API', () => {
  it('lists, refuses a duplicate (any case), removes, and hides other owners\' monitors', async () => {
    const { monitor, email } = await monitorWithSubscriber('Listing');
    const duplicate = await api.request('POST', `/api/monitors/${monitor.id}/subscribers`, {
      token: owner.token,
      body: { email: email.toUpperCase() },
    });
    expect(duplicate).toMatchObject({ status: 400, body: { error: 'Already subscribed' } });
    const listed = await api.request('GET', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token });
    expect(listed.body.subscribers).toEqual([{ id: expect.any(String), monitor_id: monitor.id, email, created_at: expect.any(String), suppression: null, status: 'confirmed' }]);
    const stranger = await api.signUp(uniqueEmail('stranger'));
    for (const [method, path, body] of [
      ['GET', `/api/monitors/${monitor.id}/subscribers`, undefined],
      ['POST', `/api/monitors/${monitor.id}/subscribers`, { email: uniqueEmail('x') }],
      ['DELETE', `/api/monitors/${monitor.id}/subscribers/${listed.body.subscribers[0].id}`, undefined],
    ] as const) {
      expect(await api.request(method, path, { token: stranger.token, body })).toMatchObject({ status: 404, body: { error: 'Monitor not found' } });
    }
    const removed = await api.request('DELETE', `/api/monitors/${monitor.id}/subscribers/${listed.body.subscribers[0].id}`, { token: owner.token });
    expect(removed).toMatchObject({ status: 200, body: { message: 'Subscriber removed' } });
    const gone = await api.request('DELETE', `/api/monitors/${monitor.id}/subscribers/${listed.body.subscribers[0].id}`, { token: owner.token });
    expect(gone).toMatchObject({ status: 404, body: { error: 'Subscriber not found' } });
    const invalid = await api.request('POST', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token, body: { email: 'nope' } });
    expect(invalid.status).toBe(400);
  });
});
