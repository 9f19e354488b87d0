/**
 * Per-account daily quotas on what sends mail to others (subscribing, inviting, incidents created by
 * hand): `429 {"message"}` with `Retry-After` to the next 00:00 UTC, held by a conditional counter in
 * the action's own transaction, so many requests at once never exceed it.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { DAILY_QUOTAS, quotaMessage, RECIPIENT_DAILY_QUOTAS, recipientQuotaMessage, utcDay, type QuotaKind, type RecipientQuotaKind } from '../../shared/platform/quotas/daily.js';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { createMonitor, createTeam } from '../support/teams.js';

let api: Api;

beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());
afterEach(() => resetClock());

/** A minute before the next 00:00 UTC, frozen: Retry-After is then 60. */
function aMinuteBeforeMidnight() {
  freezeClock(new Date(utcDay(clock.now()).next.getTime() - 60_000));
}

/** Sets what `user` has done of `kind` today, as if they had. */
async function alreadyDone(user: User, kind: QuotaKind, count: number) {
  const { day } = utcDay(clock.now());
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...keys.dailyQuota(user.id, kind, day), type: 'daily_quota', count } }));
}

async function countToday(user: User, kind: QuotaKind) {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.dailyQuota(user.id, kind, utcDay(clock.now()).day), ConsistentRead: true }));
  return Item?.count as number | undefined;
}

function expectQuotaReached(response: { status: number; body: unknown; headers: Headers }, kind: QuotaKind) {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({ message: quotaMessage(kind) });
  expect(response.headers.get('retry-after')).toBe('60');
}

describe('daily quotas', () => {
  it('names the quota in the 429 text', () => {
    expect(quotaMessage('subscriptions')).toBe(`Daily limit reached: ${DAILY_QUOTAS.subscriptions} subscribers added a day per account. Try again after 00:00 UTC.`);
    expect(quotaMessage('invites')).toBe(`Daily limit reached: ${DAILY_QUOTAS.invites} invites sent a day per account. Try again after 00:00 UTC.`);
    expect(quotaMessage('incidents')).toBe(`Daily limit reached: ${DAILY_QUOTAS.incidents} incidents created by hand a day per account. Try again after 00:00 UTC.`);
  });

  it('never lets many subscribing requests at once exceed the quota; the next UTC day starts afresh', async () => {
    aMinuteBeforeMidnight();
    const owner = await api.signUp(uniqueEmail('quota-subscriber'));
    const monitor = await createMonitor(api, owner, { name: 'Busy page' });
    await alreadyDone(owner, 'subscriptions', DAILY_QUOTAS.subscriptions - 3);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        api.request('POST', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token, body: { email: uniqueEmail(`many${index}`) } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(3).fill(201), ...Array(13).fill(429)]);
    for (const refused of answers.filter((answer) => answer.status === 429)) expectQuotaReached(refused, 'subscriptions');
    expect(await countToday(owner, 'subscriptions')).toBe(DAILY_QUOTAS.subscriptions);
    const subscribers = await api.request('GET', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token });
    expect(subscribers.body.subscribers).toHaveLength(3);

    // Another account is not held by it.
    const other = await api.signUp(uniqueEmail('quota-other'));
    const otherMonitor = await createMonitor(api, other, { name: 'Quiet page' });
    expect((await api.request('POST', `/api/monitors/${otherMonitor.id}/subscribers`, { token: other.token, body: { email: uniqueEmail('fine') } })).status).toBe(201);

    advanceClock(60_000);
    expect((await api.request('POST', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token, body: { email: uniqueEmail('tomorrow') } })).status).toBe(201);
    expect(await countToday(owner, 'subscriptions')).toBe(1);
  });

  it('refuses an incident created by hand past the quota, and keeps no Idempotency-Key answer of it', async () => {
    aMinuteBeforeMidnight();
    const owner = await api.signUp(uniqueEmail('quota-incidents'));
    const monitor = await createMonitor(api, owner, { name: 'Flappy' });
    await alreadyDone(owner, 'incidents', DAILY_QUOTAS.incidents);
    const request = { token: owner.token, body: { monitorId: monitor.id, title: 'One too many' }, headers: { 'idempotency-key': 'quota-retry' } };
    expectQuotaReached(await api.request('POST', '/api/incidents', request), 'incidents');
    const incidents = await api.request('GET', `/api/incidents?monitor_id=${monitor.id}`, { token: owner.token });
    expect(incidents.body.incidents).toEqual([]);

    // The same request with the same key the next day runs (it is not the stored 429).
    advanceClock(60_000);
    const retried = await api.request('POST', '/api/incidents', request);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses an invite past the quota', async () => {
    aMinuteBeforeMidnight();
    const owner = await api.signUp(uniqueEmail('quota-inviter'));
    const team = await createTeam(api, owner);
    await alreadyDone(owner, 'invites', DAILY_QUOTAS.invites - 1);
    expect((await api.request('POST', `/api/teams/${team.id}/invite`, { token: owner.token, body: { email: uniqueEmail('first'), role: 'MEMBER' } })).status).toBe(201);
    const refused = await api.request('POST', `/api/teams/${team.id}/invite`, { token: owner.token, body: { email: uniqueEmail('second'), role: 'MEMBER' } });
    expectQuotaReached(refused, 'invites');
    const detail = await api.request('GET', `/api/teams/${team.id}`, { token: owner.token });
    expect(detail.body.pendingInvites).toHaveLength(1);
  });
});

/** Sets what `email` has received of `kind` today, as if several accounts had sent it. */
async function alreadyReceived(email: string, kind: RecipientQuotaKind, count: number) {
  const { day } = utcDay(clock.now());
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...keys.recipientQuota(email, kind, day), type: 'daily_quota', count } }));
}

function expectRecipientQuotaReached(response: { status: number; body: unknown; headers: Headers }, kind: RecipientQuotaKind) {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({ message: recipientQuotaMessage(kind) });
  expect(response.headers.get('retry-after')).toBe('60');
}

describe('daily quotas per recipient address (issue 41, finding 6)', () => {
  it('names the quota in the 429 text', () => {
    expect(recipientQuotaMessage('confirmations')).toBe(
      `Daily limit reached: ${RECIPIENT_DAILY_QUOTAS.confirmations} subscription confirmation e-mails a day to one address. Try again after 00:00 UTC.`,
    );
    expect(recipientQuotaMessage('invites')).toBe(`Daily limit reached: ${RECIPIENT_DAILY_QUOTAS.invites} invitations a day to one address. Try again after 00:00 UTC.`);
  });

  it('caps the confirmation e-mails one address gets a day from all accounts together, whatever case it is written in', async () => {
    aMinuteBeforeMidnight();
    const target = uniqueEmail('inbox');
    const accounts = [await api.signUp(uniqueEmail('sender-a')), await api.signUp(uniqueEmail('sender-b'))];
    const monitors = await Promise.all(accounts.flatMap((account) => [0, 1, 2].map((index) => createMonitor(api, account, { name: `Page ${index}` }).then((monitor) => ({ account, monitor })))));
    const subscribe = ({ account, monitor }: (typeof monitors)[number], email = target) =>
      api.request('POST', `/api/monitors/${monitor.id}/subscribers`, { token: account.token, body: { email } });
    const answers = await Promise.all(monitors.map((pair, index) => subscribe(pair, index % 2 ? target.toUpperCase() : target)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 201, 201, 429]);
    expectRecipientQuotaReached(answers.find((answer) => answer.status === 429)!, 'confirmations');
    // Another address is not held by it; nor is the same address the next day.
    expect((await subscribe(monitors[5]!, uniqueEmail('other-inbox'))).status).toBe(201);
    advanceClock(60_000);
    const refused = monitors[answers.findIndex((answer) => answer.status === 429)]!;
    expect((await subscribe(refused)).status).toBe(201);
  });

  it('caps the invitations one address gets a day from all accounts together', async () => {
    aMinuteBeforeMidnight();
    const target = uniqueEmail('invitee');
    const [first, second] = [await api.signUp(uniqueEmail('inviter-a')), await api.signUp(uniqueEmail('inviter-b'))];
    const [firstTeam, secondTeam] = [await createTeam(api, first!), await createTeam(api, second!)];
    await alreadyReceived(target, 'invites', RECIPIENT_DAILY_QUOTAS.invites - 1);
    expect((await api.request('POST', `/api/teams/${firstTeam.id}/invite`, { token: first!.token, body: { email: target, role: 'MEMBER' } })).status).toBe(201);
    const refused = await api.request('POST', `/api/teams/${secondTeam.id}/invite`, { token: second!.token, body: { email: target, role: 'MEMBER' } });
    expectRecipientQuotaReached(refused, 'invites');
    expect((await api.request('GET', `/api/teams/${secondTeam.id}`, { token: second!.token })).body.pendingInvites).toHaveLength(0);
    // The refused invite counted nothing against its sender.
    expect(await countToday(second!, 'invites')).toBeUndefined();
  });
});
