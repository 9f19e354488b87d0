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
import { DAILY_QUOTAS, quotaMessage, utcDay, type QuotaKind } from '../../shared/platform/quotas/daily.js';
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
