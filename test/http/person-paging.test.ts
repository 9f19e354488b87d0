/**
 * Paging a person by their notification rules (issue 43 §1, §3): a step's person is reached through
 * each of their rules for the incident's urgency after its delay, never after an acknowledgement,
 * never on an unverified or disabled method, and at their account's e-mail when no rule is usable;
 * each message is a `notification` timeline entry; the page's event (version 2) names its recipients
 * and keeps version 1's fields; a person's acknowledge link acknowledges as the person, whatever
 * address it went to; reply codes are per person and reused once their incident resolves. By phone:
 * an SMS to a failing destination shows failed on the timeline (its receipt) and escalation goes on at
 * its time; a call reads the incident twice.
 *
 * The clock is the service's, moved (`advance`) rather than waited for.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetClock } from '../../shared/platform/clock.js';
import { accountEmailMethod, addContactMethod, awaitPhoneMessage, phoneMessages, replaceRules, type PhoneMessage } from '../support/contacts.js';
import { dynamoCalls } from '../../infra/testing/ddb-calls.js';
import { workers } from '../../shared/system.js';
import { incidentForReplyCode, replyCodeFor } from '../../shared/incidents/reply-codes.js';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { advance, Api, awaitMail, eventually, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { createIncident, reportDown, seedTeam } from '../support/teams.js';

const calls = dynamoCalls();
let api: Api;
let owner: User;
let ana: User;
let ben: User;

const MINUTE = 60_000;

beforeAll(async () => {
  api = await Api.start();
  [owner, ana, ben] = (await Promise.all(['owner', 'ana', 'ben'].map((name) => api.signUp(uniqueEmail(name), name)))) as [User, User, User];
  // A policy names only people who share a team with its owner (issue 41, 5).
  await seedTeam(owner, [[ana, 'MEMBER'], [ben, 'MEMBER']], 'Crew');
});
afterAll(() => api.close());
afterEach(() => resetClock());

interface SeedMethod {
  address: string;
  verified?: boolean;
  disabled?: boolean;
}

/**
 * Gives a person e-mail methods and notification rules through the API (`rules` name a method by its
 * index in [account e-mail, ...methods]); their rules replace the account's defaults.
 */
async function seedContacts(user: User, methods: SeedMethod[], rules: { method: number; delay_minutes: number; urgency: 'high' | 'low' }[]) {
  const ids = [await accountEmailMethod(api, user)];
  for (const method of methods) ids.push(await addContactMethod(api, user, 'email', method.address, method));
  await replaceRules(api, user, rules.map((rule) => ({ contact_method_id: ids[rule.method]!, delay_minutes: rule.delay_minutes, urgency: rule.urgency })));
}

async function policy(steps: Record<string, unknown>[]) {
  const response = await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: 'People', steps } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.escalation_policy.id as string;
}

/** A monitor with the policy; `down` opens its incident (HIGH: high urgency) and lets its due steps be paged. */
async function monitorWith(policyId: string) {
  const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Checkout', failure_threshold: 1, escalation_policy_id: policyId } })).body.monitor;
  return {
    id: monitor.id as string,
    down: async () => {
      const { incident_id } = await reportDown(monitor.id);
      await settle(api);
      return incident_id;
    },
  };
}

const notifications = async (incidentId: string) =>
  ((await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: owner.token })).body.updates as { kind: string; user_id: string | null; details: Record<string, unknown> }[])
    .filter((entry) => entry.kind === 'notification')
    .map((entry) => entry.details);

const pager = (user: User, name: string) => user.email.replace('@', `+${name}@`);
const masked = (address: string) => `${address[0]}•••${address.slice(address.lastIndexOf('@'))}`;

describe('paging a person by their notification rules', () => {
  it("fires each of the person's rules for the incident's urgency after its delay, once however often redelivered, each a notification on the timeline", async () => {
    const later = pager(ana, 'later');
    const lowOnly = pager(ana, 'low');
    await seedContacts(ana, [{ address: later }, { address: lowOnly }], [
      { method: 0, delay_minutes: 0, urgency: 'high' },
      { method: 1, delay_minutes: 5, urgency: 'high' },
      { method: 2, delay_minutes: 0, urgency: 'low' },
    ]);
    const monitor = await monitorWith(await policy([{ delay_minutes: 0, targets: [{ type: 'user', id: ana.id }] }]));
    const incidentId = await monitor.down();
    const [now] = await awaitMail(api, ana.email, 1);
    expect(now!.subject).toBe('[Escalation step 1] Checkout is down');
    expect(await mailTo(api, later)).toHaveLength(0);
    expect(await mailTo(api, lowOnly)).toHaveLength(0);

    await advance(api, 5 * MINUTE);
    const [delayed] = await awaitMail(api, later, 1);
    expect(delayed!.subject).toBe('[Escalation step 1] Checkout is down');
    // The low-urgency rule never fires for a high-urgency incident; the account's rule fired once.
    expect(await mailTo(api, lowOnly)).toHaveLength(0);
    expect(await mailTo(api, ana.email)).toHaveLength(1);
    // The page's event delivered again, and the delayed rule's schedule fired again: nothing is sent twice.
    const delivered = api.runtime.bus.delivered.filter(
      (delivery) => delivery.target === 'person-notification' && (delivery.event.detail as { incident?: { id: string } }).incident?.id === incidentId,
    );
    expect(delivered).toHaveLength(1);
    // (Redelivered 5 minutes on, the delayed rule is due at once too: both rules' records say sent.)
    expect(await invokeFunction('person-notification', delivered[0]!.event)).toEqual({ sent: 0, duplicates: 2, possible_duplicates: 0 });
    const scheduled = api.runtime.bus.delivered.find(
      (delivery) => delivery.target === 'escalation-scheduler' && delivery.event['detail-type'] === 'person.notifications_delayed' && (delivery.event.detail as { notifications: { incident_id: string }[] }).notifications[0]?.incident_id === incidentId,
    );
    const { at, ...rule } = (scheduled!.event.detail as { notifications: Record<string, unknown>[] }).notifications[0]!;
    expect(at).toEqual(expect.any(String));
    expect(await invokeFunction('person-notification', rule)).toEqual({ outcome: 'duplicate' });
    expect(await mailTo(api, ana.email)).toHaveLength(1);
    expect(await mailTo(api, later)).toHaveLength(1);
    const entries = await notifications(incidentId);
    expect(entries.map(({ message_id, ...rest }) => (expect(message_id).toEqual(expect.any(String)), rest))).toEqual([
      { channel: 'email', address: masked(ana.email), user_id: ana.id, user_name: ana.name, status: 'sent', step_order: 1 },
      { channel: 'email', address: masked(later), user_id: ana.id, user_name: ana.name, status: 'sent', step_order: 1 },
    ]);
  });

  it("follows the low-urgency rules for a MEDIUM incident (an alert's warning)", async () => {
    const person = await api.signUp(uniqueEmail('eve'), 'Eve');
    await seedTeam(owner, [[person, 'MEMBER']], 'Eve crew');
    const quiet = pager(person, 'quiet');
    await seedContacts(person, [{ address: quiet }], [
      { method: 0, delay_minutes: 0, urgency: 'high' },
      { method: 1, delay_minutes: 0, urgency: 'low' },
    ]);
    const monitor = await monitorWith(await policy([{ delay_minutes: 0, targets: [{ type: 'user', id: person.id }] }]));
    const integration = (await api.request('POST', `/api/monitors/${monitor.id}/integrations`, { token: owner.token, body: { name: 'Prometheus' } })).body.integration;
    const trigger = await api.request('POST', '/v2/enqueue', {
      rawBody: JSON.stringify({ routing_key: integration.key, event_action: 'trigger', dedup_key: `low-${process.pid}`, payload: { summary: 'Disk 80% full', source: 'db-1', severity: 'warning' } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(trigger.status, JSON.stringify(trigger.body)).toBe(202);
    await settle(api);
    const [page] = await awaitMail(api, quiet, 1);
    expect(page!.subject).toBe('[Escalation step 1] Disk 80% full');
    expect(await mailTo(api, person.email)).toHaveLength(0);
  });

  it('never fires a delayed rule once the incident is acknowledged', async () => {
    const later = pager(ben, 'later');
    await seedContacts(ben, [{ address: later }], [
      { method: 0, delay_minutes: 0, urgency: 'high' },
      { method: 1, delay_minutes: 10, urgency: 'high' },
    ]);
    const monitor = await monitorWith(await policy([{ delay_minutes: 0, targets: [{ type: 'user', id: ben.id }] }]));
    const incidentId = await monitor.down();
    await awaitMail(api, ben.email, 1);
    const acknowledged = await api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: owner.token });
    expect(acknowledged.status, JSON.stringify(acknowledged.body)).toBe(200);
    await advance(api, 10 * MINUTE);
    await advance(api, MINUTE);
    expect(await mailTo(api, later)).toHaveLength(0);
    expect((await notifications(incidentId)).map((entry) => entry.address)).toEqual([masked(ben.email)]);
  });

  it('never pages an unverified or disabled method; with no usable rule, the account e-mail is paged', async () => {
    const person = await api.signUp(uniqueEmail('cleo'), 'Cleo');
    await seedTeam(owner, [[person, 'MEMBER']], 'Cleo crew');
    const unverified = pager(person, 'unverified');
    const disabled = pager(person, 'disabled');
    await seedContacts(person, [{ address: unverified, verified: false }, { address: disabled, disabled: true }], [
      { method: 1, delay_minutes: 0, urgency: 'high' },
      { method: 2, delay_minutes: 0, urgency: 'high' },
      // The account's e-mail only for low urgency: no usable rule for a high-urgency incident.
      { method: 0, delay_minutes: 0, urgency: 'low' },
    ]);
    const monitor = await monitorWith(await policy([{ delay_minutes: 0, targets: [{ type: 'user', id: person.id }] }]));
    const incidentId = await monitor.down();
    const [fallback] = await awaitMail(api, person.email, 1);
    expect(fallback!.subject).toBe('[Escalation step 1] Checkout is down');
    await advance(api, MINUTE);
    expect(await mailTo(api, unverified)).toHaveLength(0);
    expect(await mailTo(api, disabled)).toHaveLength(0);
    expect(await mailTo(api, person.email)).toHaveLength(1);
    expect((await notifications(incidentId)).map((entry) => entry.address)).toEqual([masked(person.email)]);
  });

  it("acknowledges as the person from a link sent to another of their addresses, and the page's event names its recipients beside version 1's fields", async () => {
    const person = await api.signUp(uniqueEmail('dora'), 'Dora');
    await seedTeam(owner, [[person, 'MEMBER']], 'Dora crew');
    const other = pager(person, 'phone-mail');
    const outside = uniqueEmail('outside');
    await seedContacts(person, [{ address: other }], [{ method: 1, delay_minutes: 0, urgency: 'high' }]);
    const monitor = await monitorWith(await policy([{ delay_minutes: 0, targets: [{ type: 'user', id: person.id }, { type: 'email', address: outside }] }]));
    calls.reset();
    const incidentId = await monitor.down();
    // A step due at once with no schedule to read is paged in the transaction that opens the incident
    // (the person read first, one BatchGetItem): the escalation scheduler finds it sent and writes nothing.
    expect(calls.commandsOf(workers.monitorCheck.name)).toContain('BatchGetItemCommand');
    expect(calls.commandsOf(workers.escalationScheduler.name)).not.toContain('TransactWriteItemsCommand');

    const event = api.runtime.bus.published.find(
      (published) => published['detail-type'] === 'incident.escalation_step' && (published.detail as { incident: { id: string } }).incident.id === incidentId,
    );
    expect(event!.detail).toMatchObject({
      version: 2,
      recipients: [
        { kind: 'person', user_id: person.id, name: 'Dora', email: person.email },
        { kind: 'address', channel: 'email', address: outside },
      ],
      step: { step_order: 1, delay_minutes: 0, emails: [person.email, outside] },
      people: [person.email],
    });

    const [page] = await awaitMail(api, other, 1);
    expect(await mailTo(api, person.email)).toHaveLength(0);
    const token = /\/acknowledge\/([\w-]+)/.exec(page!.body.text ?? '')![1]!;
    const pressed = await api.request('POST', `/acknowledge/${token}`, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(pressed.status).toBe(200);
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident;
    expect(incident.acknowledgement).toMatchObject({ user_id: person.id, user_name: 'Dora', method: 'email' });
  });
});

describe('reply codes', () => {
  it('are per person, the lowest free, kept per incident, and reused once their incident resolves', async () => {
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Codes' } })).body.monitor.id as string;
    const [first, second] = [await createIncident(api, owner, monitorId, 'First'), await createIncident(api, owner, monitorId, 'Second')];
    expect(await replyCodeFor(ana.id, first)).toBe(1);
    expect(await replyCodeFor(ana.id, second)).toBe(2);
    // Another person's codes are their own.
    expect(await replyCodeFor(ben.id, second)).toBe(1);
    expect(await replyCodeFor(ben.id, first)).toBe(2);
    expect(await replyCodeFor(ana.id, first)).toBe(1);
    expect(await incidentForReplyCode(ana.id, 2)).toBe(second);
    expect(await incidentForReplyCode(ben.id, 1)).toBe(second);
    expect(await incidentForReplyCode(ana.id, 3)).toBeUndefined();

    const resolved = await api.request('PUT', `/api/incidents/${first}`, { token: owner.token, body: { status: 'RESOLVED' } });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(await incidentForReplyCode(ana.id, 1)).toBeUndefined();
    const third = await createIncident(api, owner, monitorId, 'Third');
    expect(await replyCodeFor(ana.id, third)).toBe(1);
    expect(await incidentForReplyCode(ana.id, 1)).toBe(third);
    // Concurrent first asks for one incident agree on its code.
    const fourth = await createIncident(api, owner, monitorId, 'Fourth');
    const codes = await Promise.all([replyCodeFor(ben.id, fourth), replyCodeFor(ben.id, fourth), replyCodeFor(ben.id, fourth)]);
    expect(new Set(codes)).toEqual(new Set([2]));
  });
});

describe('paging a person by SMS and voice', () => {
  let next = 0;
  /** A fresh number per call, ending in `ending` when given. */
  const phone = (ending?: string) => `+1651${String(process.pid % 1000).padStart(3, '0')}${ending ?? String(2000 + next++).slice(-4)}`;

  /** A person of the owner's team whose high-urgency pages go to a `type` method on `number` at once. */
  async function personOn(type: 'sms' | 'voice', number: string, name: string) {
    const person = await api.signUp(uniqueEmail(name), name);
    await seedTeam(owner, [[person, 'MEMBER']], `${name} crew`);
    const methodId = await addContactMethod(api, person, type, number);
    await replaceRules(api, person, [{ contact_method_id: methodId, delay_minutes: 0, urgency: 'high' }]);
    return person;
  }
  const isPage = (message: PhoneMessage) => !/verification code/i.test(message.body);

  it("shows a failing destination's page failed on the timeline, and escalation does not wait for it", async () => {
    const dead = phone('0000');
    const person = await personOn('sms', dead, 'Finn');
    const next = uniqueEmail('next-step');
    const monitor = await monitorWith(await policy([
      { delay_minutes: 0, targets: [{ type: 'user', id: person.id }] },
      { delay_minutes: 5, targets: [{ type: 'email', address: next }] },
    ]));
    const incidentId = await monitor.down();
    // The page is sent (the inbox keeps it); its receipt says it failed.
    const page = await awaitPhoneMessage(api, dead, isPage);
    expect(page).toMatchObject({ channel: 'sms', to: dead, body: expect.stringMatching(/^\[1\] HIGH Checkout is down - reply 1a to acknowledge, 1r to resolve https?:\/\//) });
    const entries = await eventually(() => notifications(incidentId), (found) => found[0]?.status === 'failed');
    expect(entries).toEqual([{ channel: 'sms', address: `+1•••0000`, user_id: person.id, user_name: 'Finn', status: 'failed', step_order: 1, message_id: page.id }]);
    // Step 2 at its time, not before and not because of the failure; the person is not paged again.
    expect(await mailTo(api, next)).toHaveLength(0);
    await advance(api, 5 * MINUTE);
    const [second] = await awaitMail(api, next, 1);
    expect(second!.subject).toBe('[Escalation step 2] Checkout is down');
    expect((await phoneMessages(api, dead)).filter(isPage)).toHaveLength(1);
  });

  it('calls a voice method: the call reads the incident twice and says how to acknowledge', async () => {
    const number = phone();
    const person = await personOn('voice', number, 'Vera');
    const monitor = await monitorWith(await policy([{ delay_minutes: 0, targets: [{ type: 'user', id: person.id }] }]));
    const incidentId = await monitor.down();
    const call = await awaitPhoneMessage(api, number, isPage);
    expect(call).toMatchObject({ channel: 'voice', to: number, from: '+18005550100' });
    const told = 'A high severity incident on Checkout: Checkout is down.';
    expect(call.body.split(told)).toHaveLength(3);
    expect(call.body).toBe(`This is an incident page. ${told} Again: ${told} To acknowledge, reply to the text message with 1 A, or open the link in the e-mail. Goodbye.`);
    expect(await mailTo(api, person.email)).toHaveLength(0);
    const entries = await eventually(() => notifications(incidentId), (found) => found[0]?.status === 'delivered');
    expect(entries).toEqual([{ channel: 'voice', address: `+1•••${number.slice(-4)}`, user_id: person.id, user_name: 'Vera', status: 'delivered', step_order: 1, message_id: call.id }]);
  });
});
