/**
 * Issue 41, finding 1, as the probe reproduced it: public alert requests made the service e-mail
 * never-confirmed addresses without limit. Here one account's three monitors page 27 outside addresses (9
 * each) and the account holder (a `user` target), and 33 alerts (11 a key) open 33 incidents: 297 pages
 * to outside addresses were asked for. Only 25 distinct outside addresses are paged, and 250 pages in all
 * (the account's daily quotas); every other page is a `page_withheld` timeline entry, and the account
 * holder gets every page. Heavy for its ~300 e-mails through the local runtime; `npm test` sends 2 alerts
 * a key, the account having paged 205 times already that day (test/support/scale.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleEach } from '../../shared/platform/concurrency.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys as tableKeys } from '../../shared/platform/db/keys.js';
import { clock } from '../../shared/platform/clock.js';
import { DAILY_QUOTAS, utcDay } from '../../shared/platform/quotas/daily.js';
import { Api, allMailTo, eventually, settle, uniqueEmail, type User } from '../support/api.js';
import { scaled } from '../support/scale.js';
import { within } from '../support/deadlines.js';

/** Alerts per key (3 keys), and the pages to outside addresses the account made earlier that day. */
const ROUNDS = scaled(11, 2);
const EARLIER = scaled(0, 205);

let api: Api;
let owner: User;
beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('abuser'));
});
afterAll(() => api.close());

describe('alerts paging outside addresses (issue 41, finding 1)', () => {
  it('page at most 25 outside addresses and 250 pages to them a day per account; the rest is on the timeline; the account holder gets every page', { timeout: within(180_000) }, async () => {
    const outside = Array.from({ length: 27 }, (_, index) => uniqueEmail(`stranger${index}`));
    const keys: string[] = [];
    for (let monitor = 0; monitor < 3; monitor++) {
      // Nine strangers and the account holder as a person, in one step paged at once.
      const targets = [...outside.slice(monitor * 9, monitor * 9 + 9).map((address) => ({ type: 'email', address })), { type: 'user', id: owner.id }];
      const policy = (await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: `P${monitor}`, steps: [{ delay_minutes: 0, targets }] } })).body.escalation_policy;
      const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: `M${monitor}`, escalation_policy_id: policy.id } })).body.monitor.id;
      keys.push((await api.request('POST', `/api/monitors/${monitorId}/integrations`, { token: owner.token, body: { name: 'Prom' } })).body.integration.key);
    }
    const { day } = utcDay(clock.now());
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...tableKeys.dailyQuota(owner.id, 'outside_pages', day), type: 'daily_quota', count: EARLIER } }));
    // Round by round (each alert of a round from another key), so all 27 addresses are tried before the pages run out.
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await settleEach(keys.map((key, monitor) => ({ key, monitor })), 3, async ({ key, monitor }) =>
        (await api.request('POST', '/v2/enqueue', { body: { routing_key: key, event_action: 'trigger', dedup_key: `m${monitor}-${round}`, payload: { summary: 'Claim your prize at https://evil.example/', source: 'x', severity: 'critical' } } })).status,
      );
      expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : answer.reason))).toEqual([202, 202, 202]);
      await settle(api);
      await eventually(async () => (await allMailTo(api, owner.email)).length, (count) => count >= 3 * (round + 1), 60_000);
    }
    await settle(api);

    const received = await Promise.all(outside.map(async (address) => (await allMailTo(api, address)).length));
    expect(received.filter((count) => count > 0)).toHaveLength(DAILY_QUOTAS.paged_addresses);
    expect(received.reduce((sum, count) => sum + count, 0)).toBe(DAILY_QUOTAS.outside_pages - EARLIER);
    expect(await allMailTo(api, owner.email)).toHaveLength(3 * ROUNDS);

    const incidents = (await api.request('GET', '/api/incidents?limit=100', { token: owner.token })).body.incidents as { id: string }[];
    expect(incidents).toHaveLength(3 * ROUNDS);
    const withheld = (
      await Promise.all(incidents.map(async (incident) => (await api.request('GET', `/api/incidents/${incident.id}/updates?limit=100`, { token: owner.token })).body.updates as any[]))
    ).flat().filter((entry) => entry.kind === 'page_withheld');
    expect(withheld).toHaveLength(27 * ROUNDS - (DAILY_QUOTAS.outside_pages - EARLIER));
    expect(new Set(withheld.map((entry) => entry.details.reason))).toEqual(new Set(['daily_limit']));
  });
});
