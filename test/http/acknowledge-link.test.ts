/**
 * Acknowledging from an escalation e-mail: the link opens a page (GET never acknowledges), its
 * button (POST) acknowledges once with method `email`, naming the recipient; used, expired,
 * unknown links and links of acknowledged or resolved incidents say so (410/404); a click and an
 * API acknowledge at once: exactly one wins.
 */
import { createHash } from 'node:crypto';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { sesClient } from '../../shared/channels/email.js';
import { notify } from '../../shared/notifications/notifier.js';
import { NOTIFIER_TIMEOUT_SECONDS } from '../../shared/system.js';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { incidentSnapshot } from '../../shared/incidents/snapshots.js';
import { nameBasedUuid } from '../../shared/platform/ids.js';
import { newAcknowledgeLink, OUTSIDE_RECIPIENT_NAMESPACE } from '../../shared/incidents/acknowledge-link.js';
import { Api, awaitMail, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { holdCalls } from '../../infra/testing/ddb-calls.js';
import { seedIncidents, type SeedMonitor } from '../../infra/testing/seed.js';
import { createMonitor, reportDown } from '../support/teams.js';

/** The notifier's own options: its pending lease, its timeout. */
const notifier = { leaseMs: NOTIFIER_TIMEOUT_SECONDS * 1000 };

let api: Api;
let owner: User;
let oncall: User;
/** The monitor of the seeded incidents (`linkedIncidents`). */
let seeded: SeedMonitor;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('link-owner'), 'Olive Owner');
  oncall = await api.signUp(uniqueEmail('link-oncall'), 'Otto Oncall');
  seeded = await createMonitor(api, owner, { name: 'Seeded' });
});
afterAll(() => api.close());
afterEach(() => resetClock());

const TOKEN = /\/acknowledge\/([A-Za-z0-9_-]{43})/;

/** A monitor whose policy pages `first` at once and `second` after 5 minutes, reported down; answers the incident and the links e-mailed in step 1. */
async function pagedIncident(first: string[], second = [uniqueEmail('second')]) {
  const policy = await api.request('POST', '/api/escalation-policies', {
    token: owner.token,
    body: { name: 'Primary', steps: [{ delay_minutes: 0, emails: first }, { delay_minutes: 5, emails: second }] },
  });
  expect(policy.status).toBe(201);
  const monitor = await createMonitor(api, owner, { name: 'Edge proxy', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id });
  const opened = await reportDown(monitor.id);
  await settle(api);
  const links: Record<string, string> = {};
  for (const to of first) {
    const [mail] = await awaitMail(api, to);
    const token = TOKEN.exec(mail!.body.text ?? '')?.[1];
    expect(token, mail!.body.text).toBeDefined();
    expect(mail!.body.text).toContain(`${api.url}/acknowledge/${token}`);
    expect(mail!.body.html).toContain(`href="${api.url}/acknowledge/${token}"`);
    links[to] = token!;
  }
  return { incidentId: opened.incident_id, links, second };
}

/**
 * Open incidents (one per entry of `recipients`), each with the acknowledge link step 1's page leaves
 * for each of its recipients, seeded: the incidents as `seedIncidents` writes them, the links through
 * `newAcknowledgeLink`, the notifier's own builder (paged now). For tests about what a link does, not
 * how it is e-mailed (that is the first test's and `pagedIncident`'s). Answers each incident's id and its
 * tokens by recipient.
 */
async function linkedIncidents<const R extends string[][]>(...recipients: R): Promise<{ [K in keyof R]: { incidentId: string; links: Record<string, string> } }> {
  const incidents = await seedIncidents(seeded, recipients.length, { opened: true, message: null });
  const linked = incidents.map((incident, index) => {
    const detail = { version: 1 as const, event_id: randomUUID(), occurred_at: clock.nowIso(), incident: incidentSnapshot(incident), step: { step_order: 1, delay_minutes: 0, emails: recipients[index]! } };
    return { incidentId: incident.id, links: recipients[index]!.map((to) => [to, newAcknowledgeLink(detail, { address: to })] as const) };
  });
  await batchWrite(linked.flatMap(({ links }) => links.map(([, link]) => ({ PutRequest: { Item: link.record.Put!.Item! } }))));
  return linked.map(({ incidentId, links }) => ({ incidentId, links: Object.fromEntries(links.map(([to, link]) => [to, link.token])) })) as { [K in keyof R]: { incidentId: string; links: Record<string, string> } };
}

const open = (token: string) => api.request('GET', `/acknowledge/${token}`);
/** What a browser sends for the page's form: an empty url-encoded body. */
const click = (token: string) =>
  api.request('POST', `/acknowledge/${token}`, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const incident = async (id: string) => (await api.request('GET', `/api/incidents/${id}`, { token: owner.token })).body.incident;

describe('acknowledge links in escalation e-mails', () => {
  it('open a page that never acknowledges; its button acknowledges once, as the account the address belongs to', async () => {
    const { incidentId, links, second } = await pagedIncident([oncall.email]);
    const token = links[oncall.email]!;
    // The table holds the token's hash, never the token.
    const stored = await db().send(new GetCommand({ TableName: tableName(), Key: keys.acknowledgeLink(createHash('sha256').update(token).digest('hex')) }));
    expect(stored.Item).toMatchObject({ incident_id: incidentId, step_order: 1, recipient: oncall.email });
    expect(JSON.stringify(stored.Item)).not.toContain(token);

    for (let opened = 0; opened < 3; opened++) {
      const page = await open(token);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.body).toContain('<form method="post">');
      expect(page.body).toContain('Edge proxy is down');
    }
    expect((await incident(incidentId)).acknowledged).toBe(false);

    const done = await click(token);
    expect(done.status).toBe(200);
    expect(done.body).toContain('Incident acknowledged');
    expect(done.body).not.toContain('<form');
    expect((await incident(incidentId)).acknowledgement).toEqual({
      id: expect.any(String),
      incident_id: incidentId,
      user_id: oncall.id,
      user_name: 'Otto Oncall',
      user_email: oncall.email,
      method: 'email',
      acknowledged_at: expect.any(String),
    });

    // Used: a second click and a later visit say so, and change nothing.
    const again = await click(token);
    expect(again.status).toBe(410);
    expect(again.body).toContain('This link was already used');
    expect(again.body).toContain('Otto Oncall');
    expect((await open(token)).status).toBe(410);

    // Escalation stopped: step 2 is never paged.
    advanceClock(6 * 60_000);
    await api.runtime.scheduler.tick();
    await settle(api);
    expect(await api.runtime.mailbox.emails().then((all) => all.filter((mail) => mail.destination.to.includes(second[0]!)))).toEqual([]);
  });

  it('name a recipient without an account by the address, with a stable name-based id', async () => {
    const outsider = uniqueEmail('Outside');
    const [{ incidentId, links }] = await linkedIncidents([outsider]);
    expect((await click(links[outsider]!)).status).toBe(200);
    const id = nameBasedUuid(OUTSIDE_RECIPIENT_NAMESPACE, outsider.toLowerCase());
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await incident(incidentId)).acknowledgement).toMatchObject({ user_id: id, user_name: outsider, user_email: outsider, method: 'email' });
  });

  it('stop working once the incident is acknowledged another way, or resolved', async () => {
    const [a, b, c] = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
    const [first, second] = await linkedIncidents([a, b], [c]);
    expect((await click(first.links[a]!)).status).toBe(200);
    const other = await click(first.links[b]!);
    expect(other.status).toBe(410);
    expect(other.body).toContain('The incident is already acknowledged');

    expect((await api.request('DELETE', `/api/incidents/${second.incidentId}`, { token: owner.token })).status).toBe(200);
    for (const response of [await open(second.links[c]!), await click(second.links[c]!)]) {
      expect(response.status).toBe(410);
      expect(response.body).toContain('The incident is resolved');
    }
    expect((await incident(second.incidentId)).acknowledged).toBe(false);
  });

  it('stay dead after a resolution, even when the incident is reopened', async () => {
    const to = uniqueEmail('reopened');
    const [{ incidentId, links }] = await linkedIncidents([to]);
    expect((await api.request('DELETE', `/api/incidents/${incidentId}`, { token: owner.token })).status).toBe(200);
    expect((await api.request('PUT', `/api/incidents/${incidentId}`, { token: owner.token, body: { status: 'INVESTIGATING' } })).status).toBe(200);
    for (const response of [await open(links[to]!), await click(links[to]!)]) {
      expect(response.status).toBe(410);
      expect(response.body).toContain('The incident is resolved');
    }
    expect((await incident(incidentId)).acknowledged).toBe(false);
  });

  it('die with a resolution that commits after their page, even one whose time was taken before it', async () => {
    const [first, second] = [uniqueEmail('first'), uniqueEmail('late-page')];
    const { incidentId } = await pagedIncident([first], [second]);
    // DELETE reads the incident and takes its time; step 2 is paged and commits; then the DELETE commits.
    const hold = holdCalls('incidents-resolve', 'TransactWriteItemsCommand');
    const resolving = api.request('DELETE', `/api/incidents/${incidentId}`, { token: owner.token });
    await hold.arrived();
    advanceClock(5 * 60_000 + 1_000);
    await api.runtime.scheduler.tick();
    await settle(api);
    const [page] = await awaitMail(api, second);
    const token = TOKEN.exec(page!.body.text ?? '')![1]!;
    hold.release();
    expect((await resolving).status).toBe(200);
    expect((await api.request('PUT', `/api/incidents/${incidentId}`, { token: owner.token, body: { status: 'INVESTIGATING' } })).status).toBe(200);
    const response = await click(token);
    expect(response.status).toBe(410);
    expect(response.body).toContain('The incident is resolved');
    expect((await incident(incidentId)).acknowledged).toBe(false);
    const kinds = (await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: owner.token })).body.updates.map((entry: { kind: string }) => entry.kind);
    expect(kinds).toEqual(['created', 'escalation_paged', 'escalation_paged', 'resolved', 'status_changed']);
  });

  it('expire after 24 hours', async () => {
    // Only the test moves time: the real seconds a loaded machine takes between the page and the click must not count.
    freezeClock();
    const [{ incidentId, links }] = await linkedIncidents([uniqueEmail('late')]);
    const token = Object.values(links)[0]!;
    advanceClock(24 * 60 * 60_000 - 1_000);
    expect((await open(token)).status).toBe(200);
    advanceClock(2_000);
    for (const response of [await open(token), await click(token)]) {
      expect(response.status).toBe(410);
      expect(response.body).toContain('This link has expired');
    }
    expect((await incident(incidentId)).acknowledged).toBe(false);
  });

  it('answer a page, never a stack trace, for an unknown or malformed token', async () => {
    for (const token of ['A'.repeat(43), 'not-a-token', '%3Cscript%3E']) {
      for (const response of [await open(token), await click(token)]) {
        expect(response.status).toBe(404);
        expect(response.headers.get('content-type')).toContain('text/html');
        expect(response.body).toContain('This link is not valid');
        expect(response.body).not.toContain('<script>');
      }
    }
    const tooLong = await open('x'.repeat(600));
    expect(tooLong.status).toBe(404);
    expect(tooLong.body).toContain('This link is not valid');
  });

  it('check the link and the incident when the acknowledgement is written, not only when they are read', async () => {
    const cases = [
      ['resolved', (id: string) => api.request('DELETE', `/api/incidents/${id}`, { token: owner.token }), 'The incident is resolved'],
      ['acknowledged', (id: string) => api.request('POST', `/api/incidents/${id}/acknowledge`, { token: owner.token, body: { method: 'api' } }), 'The incident is already acknowledged'],
      // Resolved, then reopened to the very status the click read: only the resolution since the page tells.
      ['reopened', async (id: string) => {
        await api.request('DELETE', `/api/incidents/${id}`, { token: owner.token });
        return api.request('PUT', `/api/incidents/${id}`, { token: owner.token, body: { status: 'INVESTIGATING' } });
      }, 'The incident is resolved'],
    ] as const;
    const recipients = cases.map(([name]) => uniqueEmail(`held-${name}`));
    const fixtures = await linkedIncidents(...recipients.map((to) => [to]));
    for (const [index, [name, meanwhile, page]] of cases.entries()) {
      const to = recipients[index]!;
      const { incidentId, links } = fixtures[index]!;
      // The click has read the link and the incident; its transaction waits while the incident changes.
      const hold = holdCalls('acknowledge-link-confirm', 'TransactWriteItemsCommand');
      const clicking = click(links[to]!);
      await hold.arrived();
      expect((await meanwhile(incidentId)).status).toBe(200);
      hold.release();
      const response = await clicking;
      expect(response.status, name).toBe(410);
      expect(response.body, name).toContain(page);
      expect((await incident(incidentId)).acknowledgement?.method ?? null, name).toBe(name === 'acknowledged' ? 'api' : null);
    }
  });

  it('are written with the delivery record: none for a redelivered event, none left by a failed send', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Direct' });
    const created = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Direct page' } })).body.incident;
    const to = uniqueEmail('direct');
    const detail = {
      version: 1,
      event_id: randomUUID(),
      occurred_at: new Date().toISOString(),
      incident: { ...created, monitor_name: 'Direct', owner_id: owner.id, message: null, automatic: true, escalation_policy_id: null },
      step: { step_order: 1, delay_minutes: 0, emails: [to] },
    };
    const linksOf = async (eventId: string) =>
      (await db().send(new ScanCommand({ TableName: tableName(), FilterExpression: '#type = :link AND event_id = :event', ExpressionAttributeNames: { '#type': 'type' }, ExpressionAttributeValues: { ':link': 'acknowledge_link', ':event': eventId } }))).Items ?? [];

    // SES refuses the first send: nothing of it is left, so the retry sends (with one link).
    const name = 'failFirstSend';
    sesClient().middlewareStack.add(
      () => async () => {
        sesClient().middlewareStack.remove(name);
        throw Object.assign(new Error('Email address is not verified.'), { name: 'MessageRejected', $metadata: { httpStatusCode: 400 } });
      },
      { step: 'initialize', name },
    );
    await expect(notify('incident.escalation_step', detail, notifier)).rejects.toThrow('1 of 1 e-mails failed');
    expect(await linksOf(detail.event_id)).toEqual([]);
    expect((await db().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(detail.event_id, to) }))).Item).toBeUndefined();

    expect(await notify('incident.escalation_step', detail, notifier)).toEqual({ sent: 1, duplicates: 0, possible_duplicates: 0 });
    expect(await notify('incident.escalation_step', detail, notifier)).toEqual({ sent: 0, duplicates: 1, possible_duplicates: 0 });
    expect(await linksOf(detail.event_id)).toHaveLength(1);
    expect(await mailTo(api, to)).toHaveLength(1);
  });

  it('let exactly one of a click and an API acknowledge win', async () => {
    const recipients = Array.from({ length: 6 }, () => uniqueEmail('race'));
    const rounds = await linkedIncidents(...recipients.map((to) => [to]));
    for (let round = 0; round < 6; round++) {
      const to = recipients[round]!;
      const { incidentId, links } = rounds[round]!;
      const [link, viaApi] = await Promise.all([
        click(links[to]!),
        api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: owner.token, body: { method: 'api' } }),
      ]);
      const winners = [link.status === 200, viaApi.status === 200].filter(Boolean).length;
      expect(winners, `round ${round}: link ${link.status}, api ${viaApi.status}`).toBe(1);
      if (link.status !== 200) expect(link.status).toBe(410);
      else expect(viaApi.body).toEqual({ error: 'Incident already acknowledged' });
      const acknowledgement = (await incident(incidentId)).acknowledgement;
      expect(acknowledgement.method).toBe(link.status === 200 ? 'email' : 'api');
      const timeline = await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: owner.token });
      expect(timeline.body.updates.filter((entry: { kind: string }) => entry.kind === 'acknowledged')).toHaveLength(1);
    }
  });
});
