/**
 * Pages to outside addresses (issue 41, finding 1): an escalation `email` target, whoever's address it
 * is (people are reached as `user` or `schedule` targets), gets a "stop paging this address" link, which suppresses it for the sending account (the
 * incident's owner); its pages count against that account's daily quotas of distinct outside addresses
 * and of pages to them. A page withheld (stopped, over the quota) is on the timeline with the reason;
 * the people of the same step are paged all the same.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { DAILY_QUOTAS, utcDay, type QuotaKind } from '../../shared/platform/quotas/daily.js';
import { notify } from '../../shared/notifications/notifier.js';
import { NOTIFIER_TIMEOUT_SECONDS } from '../../shared/system.js';

import { sesClient } from '../../shared/channels/email.js';
import { Api, allMailTo, awaitMail, settle, uniqueEmail, type User } from '../support/api.js';

/** The notifier's own options: its pending lease, its timeout. */
const notifier = { leaseMs: NOTIFIER_TIMEOUT_SECONDS * 1000 };

let api: Api;

beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());
afterEach(() => resetClock());

const STOP_LINK = /\/stop-paging\/([A-Za-z0-9_-]{43})/;

type Target = { type: 'email'; address: string } | { type: 'user'; id: string };
const email = (address: string): Target => ({ type: 'email', address });
const person = (user: User): Target => ({ type: 'user', id: user.id });

/** An account whose monitor pages `targets` at once through an alert integration; answers what fires it. */
async function pagingAccount(prefix: string, targets: (owner: User) => Target[]) {
  const owner = await api.signUp(uniqueEmail(prefix), 'Pat Pager');
  const policy = await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: 'Now', steps: [{ delay_minutes: 0, targets: targets(owner) }] } });
  expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Checkout', escalation_policy_id: policy.body.escalation_policy.id } })).body.monitor;
  const integration = (await api.request('POST', `/api/monitors/${monitor.id}/integrations`, { token: owner.token, body: { name: 'Prometheus' } })).body.integration;
  let seq = 0;
  /** A public alert that opens a new incident (a new dedup key), once the pages it makes are settled: the incident's id. */
  const alert = async () => {
    const sent = await api.request('POST', '/v2/enqueue', {
      rawBody: JSON.stringify({ routing_key: integration.key, event_action: 'trigger', dedup_key: `outside-${seq++}`, payload: { summary: 'Claim your prize', source: 'x', severity: 'critical' } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(sent.status).toBe(202);
    await settle(api);
    const incidents = (await api.request('GET', `/api/incidents?monitor_id=${monitor.id}`, { token: owner.token })).body.incidents as { id: string }[];
    return incidents[0]!.id;
  };
  const timeline = async (incidentId: string) => (await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: owner.token })).body.updates as any[];
  return { owner, monitor, alert, timeline };
}

/** Sets what `owner` has done of `kind` today, as if they had. */
async function alreadyDone(owner: User, kind: QuotaKind, count: number) {
  const { day } = utcDay(clock.now());
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...keys.dailyQuota(owner.id, kind, day), type: 'daily_quota', count } }));
}

/** What `owner` has done of `kind` today. */
async function doneToday(owner: User, kind: QuotaKind) {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.dailyQuota(owner.id, kind, utcDay(clock.now()).day), ConsistentRead: true }));
  return (Item?.count as number | undefined) ?? 0;
}

const withheld = (entries: any[]) => entries.filter((entry) => entry.kind === 'page_withheld').map((entry) => ({ ...entry.details }));

describe('pages to outside addresses', () => {
  it('carry a stop link; an account holder paged in the same step gets none', async () => {
    const outside = uniqueEmail('outside');
    const { owner, alert } = await pagingAccount('stop-link', (self) => [email(outside), person(self)]);
    await alert();
    const [page] = await awaitMail(api, outside);
    const token = STOP_LINK.exec(page!.body.text ?? '')?.[1];
    expect(token, page!.body.text).toBeDefined();
    expect(page!.body.text).toContain(`Stop paging this address: ${api.url}/stop-paging/${token}`);
    const [own] = await awaitMail(api, owner.email);
    expect(own!.body.text).not.toContain('/stop-paging/');
  });

  it('an `email` target naming a registered account\'s address is outside: stop link and quota', async () => {
    const named = await api.signUp(uniqueEmail('registered'), 'Reg Istered');
    // The owner is named both as a person and by address: paged once, as the person.
    const { owner, alert, timeline } = await pagingAccount('registered-target', (self) => [email(self.email), email(named.email), person(self)]);
    await alert();
    const [page] = await awaitMail(api, named.email);
    expect(page!.body.text).toMatch(STOP_LINK);
    const [own] = await awaitMail(api, owner.email);
    expect(own!.body.text).not.toContain('/stop-paging/');
    expect(await doneToday(owner, 'outside_pages')).toBe(1);
    expect(await doneToday(owner, 'paged_addresses')).toBe(1);

    await alreadyDone(owner, 'outside_pages', DAILY_QUOTAS.outside_pages);
    const next = await alert();
    await awaitMail(api, owner.email, 2);
    expect(withheld(await timeline(next))).toEqual([{ step_order: 1, recipients: [named.email], reason: 'daily_limit' }]);
    expect(await allMailTo(api, named.email)).toHaveLength(1);
    expect(await allMailTo(api, owner.email)).toHaveLength(2);
  });

  it('stop for the sending account once the link\'s button is pressed (opening it changes nothing); other accounts and account holders are still paged', async () => {
    const outside = uniqueEmail('stopper');
    const sender = await pagingAccount('stop-sender', (self) => [email(outside), person(self)]);
    const other = await pagingAccount('stop-other', () => [email(outside)]);
    await sender.alert();
    const [page] = await awaitMail(api, outside);
    const path = `/stop-paging/${STOP_LINK.exec(page!.body.text ?? '')![1]}`;

    const opened = await api.request('GET', path);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toContain('text/html');
    expect(opened.body).toContain(`Stop paging ${outside}?`);
    expect(opened.body).toContain('<form method="post"');
    await sender.alert();
    await awaitMail(api, outside, 2);

    const stopped = await api.request('POST', path);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toContain('Paging stopped');
    expect(stopped.body).toContain(`${outside} will receive no more pages from the account that owns Checkout.`);
    expect((await api.request('POST', path)).status).toBe(200);

    const incidentId = await sender.alert();
    expect(withheld(await sender.timeline(incidentId))).toEqual([{ step_order: 1, recipients: [outside], reason: 'stopped' }]);
    await awaitMail(api, sender.owner.email, 3);
    expect((await allMailTo(api, outside)).length).toBe(2);
    // Another account's page to the same address still goes (with its own stop link).
    await other.alert();
    await awaitMail(api, outside, 3);
  });

  it('answer a page for an unknown, malformed or expired link', async () => {
    for (const token of ['A'.repeat(43), 'not-a-token', '%3Cscript%3E']) {
      for (const method of ['GET', 'POST']) {
        const answer = await api.request(method, `/stop-paging/${token}`);
        expect(answer.status).toBe(404);
        expect(answer.body).toContain('This link is not valid');
      }
    }
    const outside = uniqueEmail('late');
    const { alert } = await pagingAccount('stop-expired', () => [email(outside)]);
    freezeClock(new Date());
    await alert();
    const [page] = await awaitMail(api, outside);
    const path = `/stop-paging/${STOP_LINK.exec(page!.body.text ?? '')![1]}`;
    advanceClock(90 * 24 * 60 * 60 * 1000 + 1000);
    for (const method of ['GET', 'POST']) {
      const answer = await api.request(method, path);
      expect(answer.status).toBe(410);
      expect(answer.body).toContain('This link has expired');
    }
  });

  it('count against the sending account\'s daily quota of pages: past it the page is withheld and on the timeline, the account holder still paged', async () => {
    const [first, second] = [uniqueEmail('quota-a'), uniqueEmail('quota-b')];
    const { owner, alert, timeline } = await pagingAccount('page-quota', (self) => [email(first), email(second), person(self)]);
    await alreadyDone(owner, 'outside_pages', DAILY_QUOTAS.outside_pages - 1);
    const incidentId = await alert();
    await awaitMail(api, owner.email);
    const paged = [...(await allMailTo(api, first)), ...(await allMailTo(api, second))];
    expect(paged).toHaveLength(1);
    const notPaged = paged[0]!.destination.to[0]!.toLowerCase() === first ? second : first;
    expect(withheld(await timeline(incidentId))).toEqual([{ step_order: 1, recipients: [notPaged], reason: 'daily_limit' }]);

    // The next alert: both withheld, the account holder paged.
    const next = await alert();
    await awaitMail(api, owner.email, 2);
    expect(withheld(await timeline(next)).map((entry) => entry.reason)).toEqual(['daily_limit', 'daily_limit']);
    expect([...(await allMailTo(api, first)), ...(await allMailTo(api, second))]).toHaveLength(1);
  });

  it('count each outside address once a day among the distinct ones: an address paged today still is, a new one is not past the quota', async () => {
    const [known, fresh] = [uniqueEmail('known'), uniqueEmail('fresh')];
    const { owner, alert, timeline } = await pagingAccount('address-quota', () => [email(known), email(fresh)]);
    await alreadyDone(owner, 'paged_addresses', DAILY_QUOTAS.paged_addresses);
    const { day } = utcDay(clock.now());
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...keys.pagedAddress(owner.id, day, known), type: 'paged_address' } }));
    const incidentId = await alert();
    await awaitMail(api, known);
    expect(withheld(await timeline(incidentId))).toEqual([{ step_order: 1, recipients: [fresh], reason: 'daily_limit' }]);
    expect(await allMailTo(api, fresh)).toHaveLength(0);
  });

  it('are decided once per event and address: a redelivered event neither counts again nor records twice; a refused send is retried', async () => {
    const [outside, over] = [uniqueEmail('redelivered'), uniqueEmail('over')];
    const { owner, monitor, alert, timeline } = await pagingAccount('redelivery', () => [email(outside)]);
    const incidentId = await alert();
    await awaitMail(api, outside);
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident;
    const detail = (emails: string[]) => ({
      version: 1 as const,
      event_id: randomUUID(),
      occurred_at: clock.nowIso(),
      incident: { ...incident, monitor_id: monitor.id, monitor_name: 'Checkout', owner_id: owner.id, message: null, automatic: true, acknowledged: false, resolved_at: null },
      step: { step_order: 2, delay_minutes: 5, emails },
    });
    const pagesToday = () => doneToday(owner, 'outside_pages');
    expect(await pagesToday()).toBe(1);

    // Refused by SES, then sent on the retry, then a duplicate: one page counted.
    const admitted = detail([outside]);
    const ses = sesClient();
    const send = ses.send.bind(ses);
    ses.send = (() => Promise.reject(Object.assign(new Error('refused'), { name: 'MessageRejected', $metadata: { httpStatusCode: 400 } }))) as typeof ses.send;
    try {
      await expect(notify('incident.escalation_step', admitted, notifier)).rejects.toThrow('1 of 1 e-mails failed');
    } finally {
      ses.send = send;
    }
    expect(await notify('incident.escalation_step', admitted, notifier)).toEqual({ sent: 1, duplicates: 0, possible_duplicates: 0 });
    expect(await notify('incident.escalation_step', admitted, notifier)).toEqual({ sent: 0, duplicates: 1, possible_duplicates: 0 });
    expect(await pagesToday()).toBe(2);

    // Withheld once, recorded once, however often the event comes.
    await alreadyDone(owner, 'outside_pages', DAILY_QUOTAS.outside_pages);
    const refused = detail([over]);
    expect(await notify('incident.escalation_step', refused, notifier)).toEqual({ sent: 0, duplicates: 0, possible_duplicates: 0, withheld: 1 });
    await alreadyDone(owner, 'outside_pages', 0);
    expect(await notify('incident.escalation_step', refused, notifier)).toEqual({ sent: 0, duplicates: 0, possible_duplicates: 0, withheld: 1 });
    expect(withheld(await timeline(incidentId))).toEqual([{ step_order: 2, recipients: [over], reason: 'daily_limit' }]);
    expect(await allMailTo(api, over)).toHaveLength(0);
  });
});
