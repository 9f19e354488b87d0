/**
 * Alerts in (issue 30 §2, §3): `POST /v2/enqueue` (PagerDuty's Events API v2) and
 * `POST /integrations/alertmanager` (Alertmanager's and Grafana's webhooks) through the local runtime.
 * An alert opens, counts on, acknowledges and resolves automatic incidents of its key's monitor, paging
 * and e-mailing exactly as a failed check does. The parsers' every text is tested in
 * test/unit/alerts-*.test.ts; here each kind of answer once, through the route.
 *
 * Last, a real Alertmanager (Debian's `prometheus-alertmanager`, test/support/alertmanager.ts) sends to
 * the runtime through a `webhook_configs` receiver (`/integrations/alertmanager`, bearer key) and a
 * `pagerduty_configs` receiver (`url` = the runtime's `/v2/enqueue`), each with the key of a monitor of
 * its own: an alert posted to its API opens an incident through each, and its end resolves both.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Api, awaitMail, eventually, mailTo, settle, subscribeConfirmed, uniqueEmail, type User } from '../support/api.js';
import { Alertmanager, alertmanagerInstalled } from '../support/alertmanager.js';
import { reportDown } from '../support/teams.js';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { integrationKeyHash } from '../../shared/integrations/keys.js';
import { EVENTS_PER_MINUTE, OPENS_PER_MINUTE } from '../../shared/alerts/ingest.js';
import { within } from '../support/deadlines.js';

let api: Api;
let owner: User;
/** A monitor whose alerts page `oncall` at once and e-mail `subscriber`, and its key. */
const paging = { monitorId: '', key: '', integrationId: '', oncall: '', subscriber: '' };
/** A plain monitor (no policy, no subscribers) and its key, for the rules that do not need e-mail. */
const plain = { monitorId: '', key: '', integrationId: '' };

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', name), 'utf8');

async function newKey(monitorId: string, name = 'Alertmanager') {
  const response = await api.request('POST', `/api/monitors/${monitorId}/integrations`, { token: owner.token, body: { name } });
  expect(response.status).toBe(201);
  return response.body.integration as { id: string; key: string };
}

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('alerts'), 'Alice');
  const tag = uniqueEmail('x').split('@')[0];
  paging.oncall = `oncall-${tag}@example.com`;
  paging.subscriber = `sub-${tag}@example.com`;
  const policy = (await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: 'Now', steps: [{ delay_minutes: 0, emails: [paging.oncall] }] } })).body
    .escalation_policy;
  paging.monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Checkout', escalation_policy_id: policy.id } })).body.monitor.id;
  await subscribeConfirmed(api, owner.token, paging.monitorId, paging.subscriber);
  ({ key: paging.key, id: paging.integrationId } = await newKey(paging.monitorId, 'Prometheus'));
  plain.monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Plain' } })).body.monitor.id;
  ({ key: plain.key, id: plain.integrationId } = await newKey(plain.monitorId));
});
afterAll(() => api.close());
afterEach(() => resetClock());

const enqueue = (body: unknown) => api.request('POST', '/v2/enqueue', { rawBody: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const trigger = (key: string, dedupKey: string | undefined, payload: Record<string, unknown> = {}) =>
  enqueue({ routing_key: key, event_action: 'trigger', ...(dedupKey ? { dedup_key: dedupKey } : {}), payload: { summary: 'Checkout 5xx above 2%', source: 'checkout-api', severity: 'critical', ...payload } });
const followUp = (key: string, action: 'acknowledge' | 'resolve', dedupKey: string) => enqueue({ routing_key: key, event_action: action, dedup_key: dedupKey });

const incidentsOf = async (monitorId: string) => (await api.request('GET', `/api/incidents?monitor_id=${monitorId}`, { token: owner.token })).body.incidents as any[];
const incident = async (id: string) => (await api.request('GET', `/api/incidents/${id}`, { token: owner.token })).body.incident;
const timeline = async (id: string) => (await api.request('GET', `/api/incidents/${id}/updates`, { token: owner.token })).body.updates as any[];
const accepted = (dedupKey: string) => ({ status: 202, body: { status: 'success', message: 'Event processed', dedup_key: dedupKey } });
let seq = 0;
const dedup = (name: string) => `${name}-${process.pid}-${seq++}`;

describe('POST /v2/enqueue', () => {
  it('a trigger opens an automatic incident that pages and e-mails as a failed check does; a repeat only counts', async () => {
    const key = dedup('page');
    const summary = `Checkout 5xx above 2% — ${'x'.repeat(250)}`;
    expect(await trigger(paging.key, key, { summary })).toMatchObject(accepted(key));
    const [opened] = await incidentsOf(paging.monitorId);
    expect(opened).toMatchObject({ title: summary.slice(0, 200), severity: 'CRITICAL', status: 'INVESTIGATING', acknowledged: false, alert_count: 1 });
    await settle(api);
    const [page] = await awaitMail(api, paging.oncall);
    expect(page!.subject).toBe(`[Escalation step 1] ${summary.slice(0, 200)}`);
    expect((await awaitMail(api, paging.subscriber))[0]!.subject).toContain('New incident');

    const first = await incident(opened.id);
    expect(await trigger(paging.key, key, { summary: 'again' })).toMatchObject(accepted(key));
    expect(await trigger(paging.key, key, { severity: 'info' })).toMatchObject(accepted(key));
    const counted = await incident(opened.id);
    expect(counted).toMatchObject({ alert_count: 3, severity: 'CRITICAL', title: first.title });
    expect(counted.last_alert_at >= first.last_alert_at).toBe(true);
    expect((await incidentsOf(paging.monitorId)).filter((item) => item.status !== 'RESOLVED')).toHaveLength(1);
    await settle(api);
    // No second page, no second e-mail; the timeline holds the creation (full summary, integration) and the page only.
    expect(await mailTo(api, paging.oncall)).toHaveLength(1);
    expect(await mailTo(api, paging.subscriber)).toHaveLength(1);
    const entries = await timeline(opened.id);
    expect(entries.map((entry) => entry.kind)).toEqual(['created', 'escalation_paged']);
    expect(entries[0]).toMatchObject({
      message: summary,
      user_id: null,
      details: { automatic: true, integration_id: paging.integrationId, integration_name: 'Prometheus', dedup_key: key, summary, severity: 'CRITICAL' },
    });
    // The integration's last event shows in its list form.
    const listed = (await api.request('GET', `/api/monitors/${paging.monitorId}/integrations`, { token: owner.token })).body.integrations;
    expect(listed[0].last_event_at).toEqual(expect.any(String));
    expect(await followUp(paging.key, 'resolve', key)).toMatchObject(accepted(key));
  });

  it("keeps a trigger's other fields with the incident it opens (get and the `created` entry, not the list), as sent; none reaches an e-mail", async () => {
    const key = dedup('details');
    const marker = `marker-${key}`;
    // Any JSON: markup, a number no DynamoDB number holds, nesting deeper than a DynamoDB map's 32 levels.
    let deep: unknown = { bottom: true };
    for (let level = 0; level < 40; level++) deep = { level: deep };
    const custom_details = { note: `<script>alert("${marker}")</script>`, bytes: 1e300, deep, list: [1, 'two', null] };
    const before = { oncall: (await mailTo(api, paging.oncall)).length, subscriber: (await mailTo(api, paging.subscriber)).length };
    const sent = await enqueue({
      routing_key: paging.key,
      event_action: 'trigger',
      dedup_key: key,
      payload: { summary: 'Disk almost full', source: 'db-7', severity: 'warning', component: 'postgres', group: 'prod-eu', class: 'disk', custom_details },
      links: [{ href: 'https://grafana.example.com/d/1', text: `<i>${marker}</i>` }, { text: 'no href' }],
      images: [{ src: 'https://grafana.example.com/a.png', alt: 'graph' }, { src: 'http://insecure.example.com/b.png' }],
      client: 'Grafana',
      client_url: 'https://grafana.example.com',
    });
    expect(sent).toMatchObject(accepted(key));
    const expected = {
      source: 'db-7',
      severity: 'warning',
      component: 'postgres',
      group: 'prod-eu',
      class: 'disk',
      custom_details,
      links: [{ href: 'https://grafana.example.com/d/1', text: `<i>${marker}</i>` }],
      images: [{ src: 'https://grafana.example.com/a.png', alt: 'graph' }],
      client: 'Grafana',
      client_url: 'https://grafana.example.com',
      truncated: false,
    };
    const opened = (await incidentsOf(paging.monitorId)).find((item) => item.title === 'Disk almost full' && item.status !== 'RESOLVED');
    expect(opened).toBeDefined();
    expect(opened).not.toHaveProperty('alert_details');
    expect((await incident(opened.id)).alert_details).toEqual(expected);
    expect((await timeline(opened.id))[0]).toMatchObject({ kind: 'created', details: { dedup_key: key, alert_details: expected } });
    // A repeat counts; the incident keeps the details of the trigger that opened it.
    expect(await trigger(paging.key, key, { summary: 'Disk almost full', source: 'db-8', custom_details: { other: 1 } })).toMatchObject(accepted(key));
    expect((await incident(opened.id)).alert_details).toEqual(expected);
    // Acknowledge and resolve carry no details.
    expect(await followUp(paging.key, 'resolve', key)).toMatchObject(accepted(key));
    expect((await incident(opened.id)).alert_details).toEqual(expected);
    // The page, the new-incident and the resolution e-mails went out, and none carries any of it.
    await settle(api);
    const pages = await awaitMail(api, paging.oncall, before.oncall + 1);
    const notices = await awaitMail(api, paging.subscriber, before.subscriber + 2);
    for (const email of [...pages, ...notices]) expect(JSON.stringify(email)).not.toContain(marker);
  });

  it("bounds the details it keeps to 16 KiB of JSON: past it, custom_details becomes its JSON text cut to fit, marked truncated", async () => {
    const key = dedup('details-large');
    const custom_details = { log: `${'é'.repeat(100_000)}`, tail: 'end' };
    expect(await trigger(plain.key, key, { summary: 'Huge details', custom_details, component: 'c'.repeat(5000) })).toMatchObject(accepted(key));
    const opened = (await incidentsOf(plain.monitorId)).find((item) => item.title === 'Huge details' && item.status !== 'RESOLVED');
    const { alert_details: kept } = await incident(opened.id);
    expect(kept).toMatchObject({ source: 'checkout-api', severity: 'critical', component: 'c'.repeat(1024), truncated: true });
    expect(Buffer.byteLength(JSON.stringify(kept), 'utf8')).toBeLessThanOrEqual(16 * 1024);
    expect(Buffer.byteLength(JSON.stringify(kept), 'utf8')).toBeGreaterThan(16 * 1024 - 8);
    expect(typeof kept.custom_details).toBe('string');
    expect(JSON.stringify(custom_details).startsWith(kept.custom_details)).toBe(true);
    expect((await timeline(opened.id))[0].details.alert_details).toEqual(kept);
    await followUp(plain.key, 'resolve', key);
  });

  it('trigger → acknowledge → resolve → trigger: two incidents; the acknowledgement and the resolution name the integration', async () => {
    const key = dedup('cycle');
    await trigger(plain.key, key, { severity: 'warning' });
    const [first] = (await incidentsOf(plain.monitorId)).filter((item) => item.status !== 'RESOLVED');
    expect(first.severity).toBe('MEDIUM');
    expect(await followUp(plain.key, 'acknowledge', key)).toMatchObject(accepted(key));
    expect(await followUp(plain.key, 'acknowledge', key)).toMatchObject(accepted(key));
    const acknowledged = await incident(first.id);
    expect(acknowledged.acknowledgement).toMatchObject({ user_id: plain.integrationId, user_name: 'Alertmanager', user_email: owner.email, method: 'api' });
    expect(await followUp(plain.key, 'resolve', key)).toMatchObject(accepted(key));
    expect((await incident(first.id)).status).toBe('RESOLVED');
    const entries = await timeline(first.id);
    expect(entries.map((entry) => entry.kind)).toEqual(['created', 'acknowledged', 'resolved']);
    expect(entries[1]).toMatchObject({ user_id: plain.integrationId, details: { method: 'api', integration_id: plain.integrationId, integration_name: 'Alertmanager' } });
    expect(entries[2]).toMatchObject({ user_id: null, details: { by: 'integration', integration_id: plain.integrationId, integration_name: 'Alertmanager' } });
    // Nothing open for the key any more: acknowledge and resolve change nothing.
    expect(await followUp(plain.key, 'resolve', key)).toMatchObject(accepted(key));
    expect(await followUp(plain.key, 'acknowledge', key)).toMatchObject(accepted(key));
    expect((await timeline(first.id)).length).toBe(3);

    await trigger(plain.key, key);
    const open = (await incidentsOf(plain.monitorId)).filter((item) => item.status !== 'RESOLVED');
    expect(open).toHaveLength(1);
    expect(open[0].id).not.toBe(first.id);
    expect(open[0].alert_count).toBe(1);
    // Resolved by a person this time: the next trigger opens a third.
    expect((await api.request('DELETE', `/api/incidents/${open[0].id}`, { token: owner.token })).status).toBe(200);
    await trigger(plain.key, key);
    const third = (await incidentsOf(plain.monitorId)).filter((item) => item.status !== 'RESOLVED');
    expect(third.map((item) => item.id)).not.toContain(open[0].id);
    expect(third).toHaveLength(1);
    await followUp(plain.key, 'resolve', key);
  });

  it('concurrent triggers of one dedup key open one incident and count every one', async () => {
    const key = dedup('race');
    const answers = await Promise.all(Array.from({ length: 8 }, () => trigger(plain.key, key)));
    for (const answer of answers) expect(answer).toMatchObject(accepted(key));
    const open = (await incidentsOf(plain.monitorId)).filter((item) => item.status !== 'RESOLVED');
    expect(open).toHaveLength(1);
    expect(open[0].alert_count).toBe(8);
    await followUp(plain.key, 'resolve', key);
  });

  it('a trigger without a dedup key gets a generated one, answered back; another dedup key opens another incident', async () => {
    const response = await trigger(plain.key, undefined, { summary: 'No key' });
    expect(response.status).toBe(202);
    const generated = response.body.dedup_key as string;
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    const other = dedup('other');
    await trigger(plain.key, other, { summary: 'Other' });
    const open = (await incidentsOf(plain.monitorId)).filter((item) => item.status !== 'RESOLVED');
    expect(open.map((item) => item.title).sort()).toEqual(['No key', 'Other']);
    await followUp(plain.key, 'resolve', generated);
    await followUp(plain.key, 'resolve', other);
    expect((await incidentsOf(plain.monitorId)).filter((item) => item.status !== 'RESOLVED')).toEqual([]);
  });

  it('refuses an unknown, a revoked key and a deleted monitor\'s key with PagerDuty\'s 400', async () => {
    const invalid = { status: 'invalid event', message: 'Event object is invalid', errors: ['Invalid routing key'] };
    expect(await trigger('0'.repeat(32), 'x')).toMatchObject({ status: 400, body: invalid });
    expect(await trigger('A'.repeat(32), 'x')).toMatchObject({ status: 400, body: invalid });
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Revoked' } })).body.monitor.id;
    const revoked = await newKey(monitorId);
    expect((await trigger(revoked.key, 'x')).status).toBe(202);
    await followUp(revoked.key, 'resolve', 'x');
    await api.request('DELETE', `/api/monitors/${monitorId}/integrations/${revoked.id}`, { token: owner.token });
    expect(await trigger(revoked.key, 'x')).toMatchObject({ status: 400, body: invalid });
    const gone = await newKey(monitorId);
    await api.request('DELETE', `/api/monitors/${monitorId}`, { token: owner.token });
    expect(await trigger(gone.key, 'x')).toMatchObject({ status: 400, body: invalid });
  });

  it("answers an invalid event with PagerDuty's texts, a body that is not JSON with its parse error", async () => {
    expect(await enqueue({ routing_key: 'short', event_action: 'poke' })).toMatchObject({
      status: 400,
      body: {
        status: 'invalid event',
        message: 'Event object is invalid',
        errors: ["Length of 'routing_key' is incorrect (should be 32 characters)", "'event_action' is invalid (must be one of the following: 'trigger', 'acknowledge' or 'resolve')"],
      },
    });
    expect((await enqueue({ routing_key: plain.key, event_action: 'trigger', payload: { source: 's', severity: 'fatal' } })).body.errors).toEqual([
      "'payload.summary' is missing or blank",
      "'payload.severity' is invalid (must be one of the following: 'critical', 'warning', 'error' or 'info')",
    ]);
    expect(await enqueue('{not json')).toMatchObject({
      status: 400,
      body: { status: 'Unrecognized object', message: 'Event object format is unrecognized', errors: ['JSON parse error'] },
    });
  });

  it('takes an event up to 512 KiB (past the API\'s 64 KiB) and answers 413 past it', async () => {
    const key = dedup('large');
    const big = (size: number) => {
      const body = { routing_key: plain.key, event_action: 'trigger', dedup_key: key, payload: { summary: 'Large', source: 's', severity: 'info', custom_details: { pad: '' } } };
      body.payload.custom_details.pad = 'x'.repeat(size - JSON.stringify(body).length);
      return JSON.stringify(body);
    };
    expect(await enqueue(big(512 * 1024))).toMatchObject(accepted(key));
    expect(await enqueue(big(512 * 1024 + 1))).toMatchObject({
      status: 413,
      body: { status: 'invalid event', message: 'Event object is invalid', errors: ['Event object is too large (maximum is 524288 bytes)'] },
    });
    await followUp(plain.key, 'resolve', key);
  });

  it(`past ${EVENTS_PER_MINUTE} events a minute per key: 429 with Retry-After, and the event is not taken`, async () => {
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Busy' } })).body.monitor.id;
    const { key } = await newKey(monitorId);
    freezeClock(new Date(Math.floor(clock.now().getTime() / 60_000) * 60_000 + 45_000));
    expect((await trigger(key, 'first')).status).toBe(202);
    // The window is full (as 120 events would leave it; seeded rather than sent, to keep the suite fast).
    await db().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.integrationKey(integrationKeyHash(key)), UpdateExpression: 'SET rate_count = :full', ExpressionAttributeValues: { ':full': EVENTS_PER_MINUTE } }),
    );
    const refused = await trigger(key, 'second');
    expect(refused).toMatchObject({
      status: 429,
      body: { status: 'throttle exceeded', message: 'Requests for this service are arriving too quickly.  Please retry later.', errors: ['Enhance Your Calm.'] },
    });
    expect(refused.headers.get('retry-after')).toBe('15');
    expect((await incidentsOf(monitorId)).map((item) => item.title)).toHaveLength(1);
    advanceClock(15_000);
    expect((await trigger(key, 'second')).status).toBe(202);
    expect(await incidentsOf(monitorId)).toHaveLength(2);
  });

  it("counts events in the key's minute started by an instance whose clock is a little ahead, instead of fighting over it (first and repeat triggers)", async () => {
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Skewed' } })).body.monitor.id;
    const { key } = await newKey(monitorId);
    const lookup = async () => (await db().send(new GetCommand({ TableName: tableName(), Key: keys.integrationKey(integrationKeyHash(key)), ConsistentRead: true }))).Item;
    const next = (Math.floor(clock.now().getTime() / 60_000) + 1) * 60_000;
    // An instance 2 s into the next minute starts it; then one whose clock says 3 s before it.
    freezeClock(new Date(next + 2_000));
    expect((await trigger(key, 'ahead')).status).toBe(202);
    freezeClock(new Date(next - 3_000));
    expect((await trigger(key, 'behind')).status).toBe(202);
    // A repeat of what this instance has seen (one transaction, `countRepeat`).
    expect((await trigger(key, 'behind')).status).toBe(202);
    expect(await lookup()).toMatchObject({ rate_window: next / 60_000, rate_count: 3 });
    // That minute full: 429 until it ends (by the clock that started it).
    await db().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.integrationKey(integrationKeyHash(key)), UpdateExpression: 'SET rate_count = :full', ExpressionAttributeValues: { ':full': EVENTS_PER_MINUTE } }),
    );
    for (const dedupKey of ['later', 'behind']) {
      const refused = await trigger(key, dedupKey);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('63');
    }
    expect(await incidentsOf(monitorId)).toHaveLength(2);
  });

  it('a repeat trigger settles at write time what earlier requests told: a full window, a new minute, an incident resolved (and reopened) by a person, a revoked key, a deleted monitor', async () => {
    // A repeat of a key and dedup key the instance has seen is one conditional write built from what it
    // remembers (the key's monitor, the incident holding the dedup key); each of these changes must
    // still be caught by that write.
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Hinted' } })).body.monitor.id;
    const [first, second] = [await newKey(monitorId), await newKey(monitorId)];
    const key = dedup('hinted');
    const countOf = async (id: string) => (await incident(id)).alert_count;
    freezeClock(new Date(Math.floor(clock.now().getTime() / 60_000) * 60_000 + 45_000));
    expect((await trigger(first.key, key)).status).toBe(202);
    expect((await trigger(first.key, key)).status).toBe(202);
    expect((await trigger(second.key, key)).status).toBe(202);
    const [opened] = await incidentsOf(monitorId);
    expect(await countOf(opened.id)).toBe(3);

    // The key's window full: 429, and the incident does not count it.
    await db().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.integrationKey(integrationKeyHash(first.key)), UpdateExpression: 'SET rate_count = :full', ExpressionAttributeValues: { ':full': EVENTS_PER_MINUTE } }),
    );
    expect((await trigger(first.key, key)).status).toBe(429);
    expect(await countOf(opened.id)).toBe(3);
    // The next minute: the window starts again and the repeat counts.
    advanceClock(15_000);
    expect((await trigger(first.key, key)).status).toBe(202);
    expect(await countOf(opened.id)).toBe(4);

    // Resolved by a person (the dedup claim still names it): the next trigger opens another incident.
    expect((await api.request('DELETE', `/api/incidents/${opened.id}`, { token: owner.token })).status).toBe(200);
    expect((await trigger(first.key, key)).status).toBe(202);
    const open = (await incidentsOf(monitorId)).filter((item) => item.status !== 'RESOLVED');
    expect(open.map((item) => item.id)).not.toContain(opened.id);
    expect(open).toHaveLength(1);
    expect(await countOf(opened.id)).toBe(4);
    expect((await trigger(second.key, key)).status).toBe(202);
    expect(await countOf(open[0].id)).toBe(2);

    // Another instance opens the next incident after a person resolved the remembered one, which a person then
    // reopens: the remembered incident is open again but no longer holds the dedup key; repeats follow the claim.
    expect((await api.request('DELETE', `/api/incidents/${open[0].id}`, { token: owner.token })).status).toBe(200);
    const otherInstance: typeof import('../../shared/alerts/ingest.js') = await import('../../shared/alerts/ingest.ts?another-instance' as string);
    const admitted = await otherInstance.admitKey(second.key);
    if (!admitted.ok) throw new Error('the other instance could not admit the key');
    const otherTrigger = { action: 'trigger' as const, dedupKey: key, title: 'Again', summary: 'Again', severity: 'HIGH' as const, occurredAt: null };
    expect(await otherInstance.ingestEvent(admitted.integration, otherTrigger)).toBe('opened');
    expect((await api.request('PUT', `/api/incidents/${open[0].id}`, { token: owner.token, body: { status: 'INVESTIGATING' } })).status).toBe(200);
    const [latest] = (await incidentsOf(monitorId)).filter((item) => item.id !== opened.id && item.id !== open[0].id);
    expect((await trigger(first.key, key)).status).toBe(202);
    expect(await countOf(open[0].id)).toBe(2);
    expect(await countOf(latest.id)).toBe(2);

    // Revoked: refused, not counted.
    const invalid = { status: 'invalid event', message: 'Event object is invalid', errors: ['Invalid routing key'] };
    await api.request('DELETE', `/api/monitors/${monitorId}/integrations/${first.id}`, { token: owner.token });
    expect(await trigger(first.key, key)).toMatchObject({ status: 400, body: invalid });
    expect(await countOf(latest.id)).toBe(2);

    // The monitor deleted, its keys not purged yet (what the deletion's transaction leaves until the purge after
    // it has run): refused, not counted.
    expect((await trigger(second.key, key)).status).toBe(202);
    expect(await countOf(latest.id)).toBe(3);
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.monitor(monitorId) }));
    expect(await trigger(second.key, key)).toMatchObject({ status: 400, body: invalid });
    expect(await countOf(latest.id)).toBe(3);
  });

  it('keeps "one open automatic incident per monitor" for monitor-check beside open alert incidents', async () => {
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Both', failure_threshold: 1 } })).body.monitor.id;
    const { key } = await newKey(monitorId);
    await trigger(key, 'a');
    await trigger(key, 'b');
    expect((await reportDown(monitorId)).outcome).toBe('incident_opened');
    expect((await reportDown(monitorId)).outcome).toBe('incident_already_open');
    expect((await incidentsOf(monitorId)).filter((item) => item.status !== 'RESOLVED')).toHaveLength(3);
  });
});

describe('POST /integrations/alertmanager', () => {
  const post = (body: string, authorization?: string) =>
    api.request('POST', '/integrations/alertmanager', { rawBody: body, headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) } });
  /** Posts, then lets the alert processor apply what was recorded (and the events it raised settle). */
  const postApplied = async (body: string, authorization?: string) => {
    const response = await post(body, authorization);
    await settle(api);
    return response;
  };
  const acceptedAlerts = (alerts: number) => ({ status: 202, body: { message: 'Notification accepted', alerts } });
  const basic = (password: string) => `Basic ${Buffer.from(`alertmanager:${password}`).toString('base64')}`;

  it('opens an incident per firing alert, applies a re-sent alert state once, counts a new state, and resolves it; Bearer or Basic', async () => {
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Disks' } })).body.monitor.id;
    const { key } = await newKey(monitorId);
    const firing = fixture('alertmanager-webhook-firing.json');
    expect(await postApplied(firing, `Bearer ${key}`)).toMatchObject(acceptedAlerts(1));
    const [opened] = await incidentsOf(monitorId);
    expect(opened).toMatchObject({ title: 'Disk almost full on db1', severity: 'CRITICAL', status: 'INVESTIGATING', alert_count: 1 });
    // Alertmanager re-sends the group; an HA pair sends twice: the same alert state, applied once (issue 41 §3).
    expect((await postApplied(firing, basic(key))).status).toBe(202);
    expect((await postApplied(firing, `bearer ${key}`)).status).toBe(202);
    expect(await incidentsOf(monitorId)).toMatchObject([{ id: opened.id, alert_count: 1 }]);
    // The alert fired again (a new `startsAt`) while its incident is open (its resolve never came): counted once.
    const refired = firing.replace('2026-11-25T08:57:11.573Z', '2026-11-25T09:30:00.000Z');
    expect((await postApplied(refired, `Bearer ${key}`)).status).toBe(202);
    expect((await postApplied(refired, `Bearer ${key}`)).status).toBe(202);
    expect(await incidentsOf(monitorId)).toMatchObject([{ id: opened.id, alert_count: 2 }]);
    expect((await timeline(opened.id))[0]).toMatchObject({ message: 'Less than 5% of / is free.', details: { dedup_key: '73820ef5ed2ec5b9' } });
    // A late resolve of the earlier firing changes nothing; the resolve of the current one resolves it.
    expect((await postApplied(fixture('alertmanager-webhook-resolved.json'), `Bearer ${key}`)).status).toBe(202);
    expect((await incident(opened.id)).status).toBe('INVESTIGATING');
    const resolved = fixture('alertmanager-webhook-resolved.json').replace(/"startsAt":"[^"]*"/, '"startsAt":"2026-11-25T09:30:00.000Z"');
    expect((await postApplied(resolved, `Bearer ${key}`)).status).toBe(202);
    expect((await incident(opened.id)).status).toBe('RESOLVED');
    // Grafana's payload: its alert has no summary, so the title is made of its labels; no severity label: HIGH.
    expect((await postApplied(fixture('grafana-webhook-firing.json'), `Bearer ${key}`)).status).toBe(202);
    expect((await incidentsOf(monitorId)).find((item) => item.status !== 'RESOLVED')).toMatchObject({ title: 'alert1 (lbl1=val1)', severity: 'HIGH' });
  });

  it('401 without a key we know, 400 for a body that is not a webhook payload, 413 past 1 MiB, 429 past the rate', async () => {
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Webhook errors' } })).body.monitor.id;
    const { key, id } = await newKey(monitorId);
    const firing = fixture('alertmanager-webhook-firing.json');
    const unauthorized = { status: 401, body: { error: 'Unauthorized' } };
    expect(await post(firing)).toMatchObject(unauthorized);
    expect(await post(firing, `Token ${key}`)).toMatchObject(unauthorized);
    expect(await post(firing, `Bearer ${'0'.repeat(32)}`)).toMatchObject(unauthorized);
    expect(await post(firing, basic('wrong'))).toMatchObject(unauthorized);
    expect(await post('{"version":"4","alerts":[{"status":"firing"}]}', `Bearer ${key}`)).toMatchObject({
      status: 400,
      body: { error: 'Validation errors', details: expect.arrayContaining([{ field: 'alerts.0.labels', message: expect.any(String) }]) },
    });
    expect(await post('nope', `Bearer ${key}`)).toMatchObject({ status: 400, body: { error: 'Validation errors', details: [{ field: 'body', message: 'Malformed JSON' }] } });
    const huge = JSON.stringify({ ...JSON.parse(firing), pad: 'x'.repeat(1024 * 1024) });
    expect(await post(huge, `Bearer ${key}`)).toMatchObject({ status: 413, body: { error: 'Request body too large (limit 1048576 bytes)' } });
    expect(await incidentsOf(monitorId)).toEqual([]);

    freezeClock(new Date(Math.floor(clock.now().getTime() / 60_000) * 60_000 + 30_000));
    expect((await postApplied(firing, `Bearer ${key}`)).status).toBe(202);
    await db().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.integrationKey(integrationKeyHash(key)), UpdateExpression: 'SET rate_count = :full', ExpressionAttributeValues: { ':full': EVENTS_PER_MINUTE } }),
    );
    const limited = await post(firing, `Bearer ${key}`);
    expect(limited).toMatchObject({ status: 429, body: { message: 'Too many requests for this integration key' } });
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(await incidentsOf(monitorId)).toMatchObject([{ alert_count: 1 }]);

    await api.request('DELETE', `/api/monitors/${monitorId}/integrations/${id}`, { token: owner.token });
    expect(await post(firing, `Bearer ${key}`)).toMatchObject(unauthorized);
  });
  it(`past the key's allowance of ${OPENS_PER_MINUTE} new incidents a minute, new alerts fold into one overflow incident that lists them; re-sent, resolved and a new minute`, async () => {
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Folding' } })).body.monitor.id;
    const { key, id } = await newKey(monitorId, 'Prometheus');
    const alert = (fingerprint: string, status: 'firing' | 'resolved', startsAt = '2026-11-25T08:00:00Z') => ({
      status,
      labels: { alertname: 'PodDown', pod: fingerprint },
      annotations: { summary: `Pod ${fingerprint} down` },
      startsAt,
      fingerprint,
    });
    const notification = (alerts: unknown[]) => JSON.stringify({ version: '4', status: 'firing', alerts });
    const lookup = keys.integrationKey(integrationKeyHash(key));
    const minute = Math.floor(clock.now().getTime() / 60_000);
    freezeClock(new Date(minute * 60_000 + 10_000));
    // The minute's allowance all but used (as 119 new alerts would leave it; seeded to keep the suite fast).
    await db().send(
      new UpdateCommand({ TableName: tableName(), Key: lookup, UpdateExpression: 'SET open_window = :window, open_count = :used', ExpressionAttributeValues: { ':window': minute, ':used': OPENS_PER_MINUTE - 1 } }),
    );
    const group = [alert('a1', 'firing'), alert('a2', 'firing'), alert('a3', 'firing')];
    expect(await postApplied(notification(group), `Bearer ${key}`)).toMatchObject(acceptedAlerts(3));
    const open = await incidentsOf(monitorId);
    expect(open.map((item) => item.title).sort()).toEqual([`More than ${OPENS_PER_MINUTE} new alerts a minute from Prometheus`, 'Pod a1 down']);
    const overflow = open.find((item) => item.title.startsWith('More than'));
    expect(overflow).toMatchObject({ alert_count: 2, status: 'INVESTIGATING' });
    const entries = await timeline(overflow.id);
    expect(entries[0]).toMatchObject({
      kind: 'created',
      message: `Alerts of Prometheus that would have opened more than ${OPENS_PER_MINUTE} incidents in a minute are folded into this incident; its timeline lists them. Each counts here until it resolves.`,
      details: { integration_id: id, integration_name: 'Prometheus', dedup_key: `~overflow~${id}` },
    });
    const notes = entries.filter((entry) => entry.kind === 'note');
    expect(notes.map((entry) => entry.message)).toEqual([
      `2 alerts past the rate of ${OPENS_PER_MINUTE} new incidents a minute, folded into this incident:\n- Pod a2 down (a2)\n- Pod a3 down (a3)`,
    ]);
    expect(notes[0]).toMatchObject({ user_id: null, status: 'INVESTIGATING' });

    // Re-sent, in the next minute too: each alert state was applied; nothing changes.
    expect((await postApplied(notification(group), `Bearer ${key}`)).status).toBe(202);
    advanceClock(60_000);
    expect((await postApplied(notification(group), `Bearer ${key}`)).status).toBe(202);
    expect((await incidentsOf(monitorId)).map((item) => [item.title, item.alert_count]).sort()).toEqual([
      [`More than ${OPENS_PER_MINUTE} new alerts a minute from Prometheus`, 2],
      ['Pod a1 down', 1],
    ]);
    expect((await timeline(overflow.id)).filter((entry) => entry.kind === 'note')).toHaveLength(1);

    // Resolved: a1's incident resolves; the folded a2 is released (the overflow incident is a person's to resolve).
    expect((await postApplied(notification([alert('a1', 'resolved'), alert('a2', 'resolved')]), `Bearer ${key}`)).status).toBe(202);
    expect((await incidentsOf(monitorId)).map((item) => [item.title, item.status]).sort()).toEqual([
      [`More than ${OPENS_PER_MINUTE} new alerts a minute from Prometheus`, 'INVESTIGATING'],
      ['Pod a1 down', 'RESOLVED'],
    ]);
    // a2 fires again, within the new minute's allowance: its own incident.
    expect((await postApplied(notification([alert('a2', 'firing', '2026-11-25T09:00:00Z')]), `Bearer ${key}`)).status).toBe(202);
    expect((await incidentsOf(monitorId)).find((item) => item.title === 'Pod a2 down')).toMatchObject({ status: 'INVESTIGATING', alert_count: 1 });
  });
});

// Without the binary the test cannot run here; CI installs it (.ci/run) and sets CI, so there it never skips.
describe.skipIf(!alertmanagerInstalled() && !process.env.CI)('a real Alertmanager', () => {
  let alertmanager: Alertmanager;
  const monitors = { webhook: '', pagerduty: '' };

  beforeAll(async () => {
    const keyOf = async (name: string) => {
      const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name } })).body.monitor.id as string;
      return { monitorId, key: (await newKey(monitorId)).key };
    };
    const [webhook, pagerduty] = [await keyOf('Via webhook'), await keyOf('Via PagerDuty')];
    monitors.webhook = webhook.monitorId;
    monitors.pagerduty = pagerduty.monitorId;
    alertmanager = await Alertmanager.start({
      webhook: { url: `${api.url}/integrations/alertmanager`, bearer: webhook.key },
      pagerduty: { url: `${api.url}/v2/enqueue`, routingKey: pagerduty.key },
    });
  }, within(60_000));
  afterAll(() => alertmanager?.stop());

  it('opens an incident through each receiver when the alert fires and resolves both when it ends', { timeout: within(120_000) }, async () => {
    const alert = {
      labels: { alertname: 'DiskAlmostFull', instance: 'db1:9100', severity: 'critical' },
      annotations: { summary: 'Disk almost full on db1', description: 'Less than 5% of / is free.' },
      // A minute ago, so that the end posted below (a second ago) is after it however fast this runs.
      startsAt: new Date(Date.now() - 60_000).toISOString(),
    };
    await alertmanager.postAlerts([alert]);
    const viaWebhook = await eventually(() => incidentsOf(monitors.webhook), (list) => list.length > 0, 60_000);
    expect(viaWebhook).toMatchObject([{ title: 'Disk almost full on db1', severity: 'CRITICAL', status: 'INVESTIGATING' }]);
    // Alertmanager's PagerDuty output: its default summary names the group, `severity` from the label (as configured).
    const viaPagerDuty = await eventually(() => incidentsOf(monitors.pagerduty), (list) => list.length > 0, 60_000);
    expect(viaPagerDuty).toMatchObject([{ title: expect.stringContaining('[FIRING:1] DiskAlmostFull'), severity: 'CRITICAL', status: 'INVESTIGATING' }]);

    await alertmanager.postAlerts([{ ...alert, endsAt: new Date(Date.now() - 1_000).toISOString() } as typeof alert]);
    const resolved = (list: { status: string }[]) => list.length === 1 && list[0]!.status === 'RESOLVED';
    await eventually(() => incidentsOf(monitors.webhook), resolved, 60_000);
    await eventually(() => incidentsOf(monitors.pagerduty), resolved, 60_000);
  });
});
