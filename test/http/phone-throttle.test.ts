/**
 * Throttles per phone contact method (issue 43 §4, GoAlert's: SMS 5 per 15 minutes and 11 per hour,
 * voice 3 per 15 minutes and 7 per hour): past them, pages are held and go out as one combined message
 * when the window allows, leaving out incidents acknowledged meanwhile; never dropped, never twice
 * (concurrent pages, redelivered events); each incident of a combined message has its notification
 * entry, and the message's receipts update each.
 *
 * The clock is the service's, moved (`advance`) rather than waited for.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { channelFor } from '../../shared/channels/index.js';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { messageEventRecord, snsNotification } from '../../infra/local/aws/phones.js';
import { dynamoCalls, holdCalls } from '../../infra/testing/ddb-calls.js';
import { replyCodeFor } from '../../shared/incidents/reply-codes.js';
import { resetClock } from '../../shared/platform/clock.js';
import { keys } from '../../shared/platform/db/keys.js';
import { queryCollection } from '../../shared/platform/db/ops.js';
import { workers } from '../../shared/system.js';
import { advance, Api, eventually, settle, uniqueEmail, type User } from '../support/api.js';
import { addContactMethod, phoneMessages, replaceRules, type PhoneMessage } from '../support/contacts.js';
import { reportDown, seedTeam } from '../support/teams.js';

const calls = dynamoCalls();

let api: Api;
let owner: User;

const MINUTE = 60_000;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('throttle-owner'), 'Olivia Owner');
});
afterAll(() => api.close());
afterEach(() => resetClock());

let numbers = 0;
/** A fresh number per method (never ending in 0000: its receipts would fail). */
const phone = () => `+1555${String(process.pid % 1000).padStart(3, '0')}${String(1001 + numbers++).slice(-4)}`;

/** A person on call by one phone method only (rules: that method at 0 minutes, high urgency), and a policy paging them. */
async function pagedPerson(type: 'sms' | 'voice' = 'sms') {
  const person = await api.signUp(uniqueEmail('tess'), 'Tess Throttled');
  await seedTeam(owner, [[person, 'MEMBER']], `Crew ${numbers}`);
  const number = phone();
  const methodId = await addContactMethod(api, person, type, number);
  await replaceRules(api, person, [{ contact_method_id: methodId, delay_minutes: 0, urgency: 'high' }]);
  const policy = await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: 'Phone', steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: person.id }] }] } });
  expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  const policyId = policy.body.escalation_policy.id as string;
  let monitors = 0;
  /** A new monitor with the policy, reported down: its (HIGH, high-urgency) incident's id, once its page settled. */
  const page = async (settled = true) => {
    const name = `Svc ${++monitors}`;
    const monitor = await api.request('POST', '/api/monitors', { token: owner.token, body: { name, failure_threshold: 1, escalation_policy_id: policyId } });
    expect(monitor.status).toBe(201);
    const { incident_id } = await reportDown(monitor.body.monitor.id);
    if (settled) await settle(api);
    return incident_id;
  };
  return { person, number, methodId, page };
}

/** The pages (not verification codes) in the number's inbox, oldest first. */
const pagesTo = async (number: string, channel: 'sms' | 'voice' = 'sms') =>
  (await phoneMessages(api, number)).filter((message) => message.channel === channel && !/verification code/i.test(message.body)).reverse();

const awaitPages = (number: string, count: number, channel: 'sms' | 'voice' = 'sms') =>
  eventually(() => pagesTo(number, channel), (messages: PhoneMessage[]) => messages.length >= count);

const notifications = async (incidentId: string) =>
  ((await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: owner.token })).body.updates as { kind: string; details: Record<string, unknown> }[])
    .filter((entry) => entry.kind === 'notification')
    .map((entry) => entry.details);

/** The method's ledger and held pages, as the table has them. */
const throttleItems = async (methodId: string) => {
  const items = await queryCollection(keys.throttlePartition(methodId));
  return { ledger: items.find((item) => item.sk === 'LEDGER'), held: items.filter((item) => item.type === 'held_page') };
};

/** A receipt of `messageId` as the configuration set's SNS destination hands it to sms-receipts. */
const receipt = (messageId: string, to: string) =>
  invokeFunction(
    workers.smsReceipts.name,
    snsNotification('arn:aws:sns:local:000000000000:incident-service-sms-events', messageEventRecord({ id: messageId, channel: 'sms', to, from: '+18005550100', body: 'page', sent_at: '' }, undefined, Date.now())),
  );

/** The page's event as the bus handed it to person-notification. */
const pageEventOf = (incidentId: string) =>
  api.runtime.bus.delivered.find((delivery) => delivery.target === 'person-notification' && (delivery.event.detail as { incident?: { id: string } }).incident?.id === incidentId)!.event;

describe('SMS throttle: 5 per 15 minutes', () => {
  it('sends 5 pages at once, holds the next ones, and sends them as one combined message once the window allows; each incident has its entry, and the receipt updates each', async () => {
    const { person, number, methodId, page } = await pagedPerson();
    const incidents: string[] = [];
    for (let index = 0; index < 7; index++) incidents.push(await page());
    const singles = await awaitPages(number, 5);
    expect(singles).toHaveLength(5);
    expect(singles.every((message) => /^\[\d+\] HIGH .* - reply \d+a to acknowledge, \d+r to resolve /.test(message.body))).toBe(true);
    const { ledger, held } = await throttleItems(methodId);
    expect(ledger?.sends).toHaveLength(5);
    expect(held).toHaveLength(2);
    expect(await notifications(incidents[5]!)).toEqual([]);

    // Redelivered, a held page holds nothing twice, a sent one takes no second slot.
    expect(await invokeFunction('person-notification', pageEventOf(incidents[6]!))).toEqual({ sent: 0, duplicates: 1, possible_duplicates: 0 });
    expect(await invokeFunction('person-notification', pageEventOf(incidents[0]!))).toEqual({ sent: 0, duplicates: 1, possible_duplicates: 0 });
    expect(await throttleItems(methodId)).toMatchObject({ ledger: { sends: ledger!.sends, flush_at: ledger!.flush_at }, held: [expect.anything(), expect.anything()] });

    // Not before the window allows.
    await advance(api, 14 * MINUTE);
    expect(await pagesTo(number)).toHaveLength(5);
    await advance(api, 2 * MINUTE);
    const all = await awaitPages(number, 6);
    expect(all).toHaveLength(6);
    const [sixth, seventh] = await Promise.all([replyCodeFor(person.id, incidents[5]!), replyCodeFor(person.id, incidents[6]!)]);
    expect(all[5]!.body).toBe(`2 new incidents: [${sixth}] HIGH Svc 6 is down; [${seventh}] HIGH Svc 7 is down - reply <n>a to acknowledge`);
    expect(await throttleItems(methodId)).toMatchObject({ held: [] });
    expect((await throttleItems(methodId)).ledger?.flush_at).toBeUndefined();

    // One entry in each incident, the same message; the message's receipt reaches both.
    const entries = [...(await notifications(incidents[5]!)), ...(await notifications(incidents[6]!))];
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ channel: 'sms', user_id: person.id, step_order: 1, address: `+1•••${number.slice(-4)}`, message_id: expect.any(String) });
    expect(entries[1]!.message_id).toBe(entries[0]!.message_id);
    // The stand-in's receipt (delivered) reaches both — or, when it came before the entries were written
    // (it answers at once; AWS's take seconds), SNS's redelivery of it does (handed over here).
    await api.runtime.idle();
    const statuses = async () => [...(await notifications(incidents[5]!)), ...(await notifications(incidents[6]!))].map((entry) => entry.status);
    if ((await statuses()).every((status) => status === 'sent')) expect(await receipt(String(entries[0]!.message_id), number)).toEqual(['updated']);
    expect(await statuses()).toEqual(['delivered', 'delivered']);
    // The message's lookup items (one Query), one conditional update per entry.
    calls.reset();
    expect(await receipt(String(entries[0]!.message_id), number)).toEqual(['already_final']);
    expect(calls.commandsOf(workers.smsReceipts.name)).toEqual(['QueryCommand', 'UpdateItemCommand', 'UpdateItemCommand']);

    // The schedule fired again (a retry): nothing more is sent.
    expect(await invokeFunction('person-notification', { held_for: methodId, user_id: person.id, email: person.email, flush_at: ledger!.flush_at })).toEqual({ outcome: 'stale' });
    expect(await pagesTo(number)).toHaveLength(6);
  });

  it('leaves out an incident acknowledged before the flush', async () => {
    const { person, number, page } = await pagedPerson();
    const incidents: string[] = [];
    for (let index = 0; index < 7; index++) incidents.push(await page());
    await awaitPages(number, 5);
    const acknowledge = await api.request('POST', `/api/incidents/${incidents[5]}/acknowledge`, { token: owner.token });
    expect(acknowledge.status, JSON.stringify(acknowledge.body)).toBe(200);
    await advance(api, 16 * MINUTE);
    const all = await awaitPages(number, 6);
    const seventh = await replyCodeFor(person.id, incidents[6]!);
    expect(all[5]!.body).toBe(`1 new incident: [${seventh}] HIGH Svc 7 is down - reply ${seventh}a to acknowledge, ${seventh}r to resolve`);
    expect(await notifications(incidents[5]!)).toEqual([]);
    expect(await notifications(incidents[6]!)).toHaveLength(1);
  });

  it('sends nothing when every held incident was acknowledged or resolved, and clears what was held', async () => {
    const { number, methodId, page } = await pagedPerson();
    const incidents: string[] = [];
    for (let index = 0; index < 7; index++) incidents.push(await page());
    await awaitPages(number, 5);
    expect((await api.request('POST', `/api/incidents/${incidents[5]}/acknowledge`, { token: owner.token })).status).toBe(200);
    expect((await api.request('DELETE', `/api/incidents/${incidents[6]}`, { token: owner.token })).status).toBe(200);
    await advance(api, 16 * MINUTE);
    await eventually(() => throttleItems(methodId), (items) => items.held.length === 0);
    await settle(api);
    expect(await pagesTo(number)).toHaveLength(5);
    expect((await throttleItems(methodId)).ledger?.flush_at).toBeUndefined();
  });

  it('never lets pages racing for the last slots past the limit: 7 at once, 5 go, 2 go combined', async () => {
    const { number, methodId, page } = await pagedPerson();
    // Each page reads the method's ledger once all 7 are about to (the read parked until then): all
    // read the same ledger, and only the conditional writes keep them apart.
    const hold = holdCalls(workers.personNotification.name, 'GetItemCommand');
    let settled: Promise<void> | undefined;
    try {
      await Promise.all(Array.from({ length: 7 }, () => page(false)));
      settled = settle(api);
      await hold.arrived(7);
    } finally {
      hold.release();
    }
    await settled;
    await awaitPages(number, 5);
    expect(await pagesTo(number)).toHaveLength(5);
    expect((await throttleItems(methodId)).held).toHaveLength(2);
    await advance(api, 16 * MINUTE);
    const all = await awaitPages(number, 6);
    expect(all).toHaveLength(6);
    expect(all[5]!.body).toMatch(/^2 new incidents: /);
  });

  it('a page held while a flush sends goes in the next message: never lost, never twice', async () => {
    const { person, number, methodId, page } = await pagedPerson();
    const incidents: string[] = [];
    for (let index = 0; index < 6; index++) incidents.push(await page());
    await awaitPages(number, 5);
    // A late incident (opened by hand: it pages nobody by itself), whose page arrives while the flush sends.
    const monitor = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Late' } });
    const late = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.body.monitor.id, title: 'Late arrival' } });
    expect(late.status).toBe(201);
    const sixth = pageEventOf(incidents[5]!);
    const latePage = { ...sixth, id: randomUUID(), detail: { ...(sixth.detail as Record<string, unknown>), event_id: randomUUID(), incident: { ...(sixth.detail as { incident: object }).incident, id: late.body.incident.id, title: 'Late arrival' } } };
    const sms = channelFor('sms');
    const send = sms.send;
    let arrived: unknown;
    sms.send = async (message) => {
      if (arrived === undefined && /^\d+ new incidents?: /.test(message.text)) arrived = await invokeFunction('person-notification', latePage);
      return send.call(sms, message);
    };
    try {
      await advance(api, 16 * MINUTE);
      const first = await awaitPages(number, 6);
      expect(arrived).toEqual({ sent: 0, duplicates: 0, possible_duplicates: 0, held: 1 });
      expect(first[5]!.body).toMatch(/^1 new incident: \[\d+\] HIGH Svc 6 is down/);
      expect((await throttleItems(methodId)).held).toHaveLength(1);
      // The next window (the flush took a slot at +16 minutes; the first five leave by +15).
      await advance(api, 16 * MINUTE);
      const all = await awaitPages(number, 7);
      const code = await replyCodeFor(person.id, late.body.incident.id);
      expect(all[6]!.body).toBe(`1 new incident: [${code}] MEDIUM Late arrival - reply ${code}a to acknowledge, ${code}r to resolve`);
      await advance(api, 16 * MINUTE);
      expect(await pagesTo(number)).toHaveLength(7);
      expect(await notifications(late.body.incident.id)).toHaveLength(1);
      expect(await throttleItems(methodId)).toMatchObject({ held: [] });
    } finally {
      sms.send = send;
    }
  });

  it('holds the 12th page of an hour (11 per hour), though 15 minutes allow it', async () => {
    const { number, methodId, page } = await pagedPerson();
    for (let round = 0; round < 3; round++) {
      if (round > 0) await advance(api, 16 * MINUTE);
      for (let index = 0; index < 4; index++) await page();
    }
    await awaitPages(number, 11);
    expect(await pagesTo(number)).toHaveLength(11);
    const { ledger, held } = await throttleItems(methodId);
    expect(held).toHaveLength(1);
    // The hour's window allows it once the first page's send is an hour old.
    expect(Date.parse(String(ledger!.flush_at))).toBe(Date.parse(String((ledger!.sends as string[])[0])) + 60 * MINUTE);
    await advance(api, 14 * MINUTE);
    expect(await pagesTo(number)).toHaveLength(11);
    await advance(api, 16 * MINUTE);
    const all = await awaitPages(number, 12);
    expect(all[11]!.body).toMatch(/^1 new incident: \[\d+\] HIGH Svc 12 is down/);
  });
});

describe('voice throttle: 3 per 15 minutes', () => {
  it('calls 3 times, then once more with the held incident, read out', async () => {
    const { number, page } = await pagedPerson('voice');
    for (let index = 0; index < 4; index++) await page();
    await awaitPages(number, 3, 'voice');
    expect(await pagesTo(number, 'voice')).toHaveLength(3);
    await advance(api, 16 * MINUTE);
    const all = await awaitPages(number, 4, 'voice');
    expect(all[3]!.body).toMatch(/^This is an incident page\. 1 new incident\. Incident [\d ]+: high severity, on Svc 4: Svc 4 is down\. Again: /);
  });
});

describe('budgets', () => {
  it('person-notification: a held page reads the ledger and writes once; a flush costs O(held)', async () => {
    const { number, page } = await pagedPerson();
    for (let index = 0; index < 5; index++) await page();
    await awaitPages(number, 5);
    calls.reset();
    await page();
    // The rules (one Query), the reply code's allocation (its reverse item, the person's codes, their
    // incidents, the allocation), then the delivery record's claim — the ledger read, then the record
    // with the held page and the ledger's update (and the flush's event) in one transaction.
    expect(calls.commandsOf(workers.personNotification.name)).toEqual([
      'QueryCommand',
      'BatchGetItemCommand',
      'QueryCommand',
      'BatchGetItemCommand',
      'TransactWriteItemsCommand',
      'GetItemCommand',
      'TransactWriteItemsCommand',
    ]);
    await page();
    calls.reset();
    await advance(api, 16 * MINUTE);
    await awaitPages(number, 6);
    const perIncident = ['BatchGetItemCommand', 'QueryCommand'];
    expect(calls.commandsOf(workers.personNotification.name)).toEqual([
      // The method's ledger and held pages (one Query), its person's methods, the held incidents, then the slot and lease.
      'QueryCommand',
      'QueryCommand',
      'BatchGetItemCommand',
      'TransactWriteItemsCommand',
      // Each incident's reply code.
      ...perIncident,
      ...perIncident,
      // The entries with their lookup items; the end: read again, the held pages removed and the ledger cleared.
      'TransactWriteItemsCommand',
      'QueryCommand',
      'TransactWriteItemsCommand',
    ]);
  });
});
