/**
 * SMS replies and receipts (issue 43 §4): a person's text to the service's number, as AWS's SNS topic
 * carries it (here through `POST /local/phones/reply`), acts on the incident their reply code names
 * (`<n>a` acknowledges with method sms, `<n>r` resolves, `<n>e` escalates now), turns their SMS
 * pages off and on (STOP / START), or is answered with the commands; receipts mark a notification's
 * timeline entry delivered or failed.
 *
 * Set up as people do it: each person's SMS method added and verified through the API (the code read
 * from the local phone inbox, test/support/contacts.ts), a rule on it, and an incident of their own
 * monitor paged to them for real, whose SMS names its reply code.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { messageEventRecord, snsNotification } from '../../infra/local/aws/phones.js';
import { resetClock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { replyTexts } from '../../shared/phones/replies.js';
import { workers } from '../../shared/system.js';
import { advance, Api, awaitMail, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { addContactMethod, awaitPhoneMessage, replaceRules } from '../support/contacts.js';
import { createMonitor, reportDown, seedTeam } from '../support/teams.js';
import { dynamoCalls, failNextDynamoCall } from '../../infra/testing/ddb-calls.js';

const calls = dynamoCalls();

let api: Api;
let owner: User;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('sms-owner'), 'Olivia Owner');
});
afterAll(() => api.close());
afterEach(() => resetClock());

const LOCAL_NUMBER = '+18005550100';
let next = 0;
const phone = () => `+1650${String(process.pid % 1000).padStart(3, '0')}${String(1000 + next++).slice(-4)}`;

const put = (item: Record<string, unknown>) => db().send(new PutCommand({ TableName: tableName(), Item: item }));
const get = async (key: Record<string, unknown>) => (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

/** A person with a verified SMS method on `number` (through the API) whose high-urgency pages go to it at once. */
async function smsPerson(number: string, name = 'Sam Sms') {
  const person = await api.signUp(uniqueEmail('sms-person'), name);
  const methodId = await addContactMethod(api, person, 'sms', number);
  await replaceRules(api, person, [{ contact_method_id: methodId, delay_minutes: 0, urgency: 'high' }]);
  return { person, methodId };
}

/**
 * Opens an incident of `person`'s own monitor, whose policy pages them (then `later`, when given), and
 * waits for its SMS on `number`: the incident and the reply code the SMS names.
 */
async function pageOf(person: User, number: string, later: Record<string, unknown>[] = []) {
  const policy = await api.request('POST', '/api/escalation-policies', {
    token: person.token,
    body: { name: 'Me', steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: person.id }] }, ...later] },
  });
  expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  const monitor = await createMonitor(api, person, { name: 'Checkout', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id });
  const { incident_id: incidentId } = await reportDown(monitor.id);
  await settle(api);
  const page = await awaitPhoneMessage(api, number, (message) => message.channel === 'sms' && message.body.includes(incidentTitle) && !seen.has(message.id));
  seen.add(page.id);
  const code = Number(/^\[(\d+)\] /.exec(page.body)![1]);
  return { incidentId: incidentId as string, code, page };
}
const incidentTitle = 'Checkout is down';
const seen = new Set<string>();

const reply = async (from: string, body: string) => {
  const response = await api.request('POST', '/local/phones/reply', { body: { from, body } });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body.message).toMatchObject({ channel: 'sms', from, to: LOCAL_NUMBER, body });
  return response.body.message as { id: string };
};
/** The newest SMS the service sent to `number`. */
const lastSmsTo = (number: string) => api.runtime.phones.messages(number).find((message) => message.channel === 'sms')?.body;
const incident = async (id: string, as: User = owner) => (await api.request('GET', `/api/incidents/${id}`, { token: as.token })).body.incident;
const methodOf = async (user: User, id: string) =>
  ((await api.request('GET', '/api/me/contact-methods', { token: user.token })).body.contact_methods as { id: string; disabled: boolean }[]).find((method) => method.id === id);

/** A person paged by SMS for an open incident of theirs: its reply code in the SMS. */
async function pagedIncident() {
  const number = phone();
  const { person, methodId } = await smsPerson(number);
  const { incidentId, code } = await pageOf(person, number);
  return { person, incidentId, number, methodId, code };
}

describe('SMS replies', () => {
  it('<n>a acknowledges as that person, with method sms', async () => {
    const { person, incidentId, number, code } = await pagedIncident();
    await reply(number, `${code}a`);
    expect(lastSmsTo(number)).toBe(replyTexts.acknowledged(code));
    expect(replyTexts.acknowledged(12)).toBe('[12] acknowledged.');
    const acknowledged = await incident(incidentId, person);
    expect(acknowledged.acknowledged).toBe(true);
    expect(acknowledged.acknowledgement).toMatchObject({ user_id: person.id, user_name: 'Sam Sms', method: 'sms' });
    // Again: already acknowledged, nothing changes.
    await reply(number, `${code}A`);
    expect(lastSmsTo(number)).toBe(`[${code}] is already acknowledged.`);
  });

  it("<n>a acknowledges by the page's right, as the e-mailed link does: a person paged for an incident they may not otherwise read", async () => {
    const number = phone();
    const { person } = await smsPerson(number, 'Pat Paged');
    // The owner's own monitor and policy; the policy may name Pat, who shares a team with the owner.
    await seedTeam(owner, [[person, 'MEMBER']], 'Pat crew');
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: owner.token,
      body: { name: 'Owner pages Pat', steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: person.id }] }] },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const monitor = await createMonitor(api, owner, { name: 'Checkout', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id });
    const { incident_id: incidentId } = await reportDown(monitor.id);
    await settle(api);
    const page = await awaitPhoneMessage(api, number, (message) => message.channel === 'sms' && message.body.includes(incidentTitle) && !seen.has(message.id));
    seen.add(page.id);
    const code = Number(/^\[(\d+)\] /.exec(page.body)![1]);
    expect((await api.request('GET', `/api/incidents/${incidentId}`, { token: person.token })).status).toBe(404);
    await reply(number, `${code}a`);
    expect(lastSmsTo(number)).toBe(replyTexts.acknowledged(code));
    expect((await incident(incidentId)).acknowledgement).toMatchObject({ user_id: person.id, user_name: 'Pat Paged', method: 'sms' });
    // Resolving takes a right on the incident, as it does through the API: the page gives none.
    await reply(number, `${code}r`);
    expect(lastSmsTo(number)).toBe(replyTexts.notAllowed(code));
    expect((await incident(incidentId)).status).not.toBe('RESOLVED');
  });

  it('costs a bounded number of DynamoDB calls, whatever the history: the number, its methods, the code, then the acknowledgement', async () => {
    const { number, code } = await pagedIncident();
    calls.reset();
    await reply(number, `${code}a`);
    // The number's lookups (one Query), their methods; the code and its incident; the account and
    // incident, and the acknowledgement's transaction.
    expect(calls.commandsOf(workers.smsInbound.name)).toEqual([
      'QueryCommand',
      'BatchGetItemCommand',
      'BatchGetItemCommand',
      'BatchGetItemCommand',
      'BatchGetItemCommand',
      'TransactWriteItemsCommand',
    ]);
    calls.reset();
    await reply(number, 'HELP');
    expect(calls.commandsOf(workers.smsInbound.name)).toEqual(['QueryCommand', 'BatchGetItemCommand']);
  });

  it('case and spaces are ignored: " <n> A " acknowledges', async () => {
    const { person, incidentId, number, code } = await pagedIncident();
    await reply(number, ` ${code} A `);
    expect(lastSmsTo(number)).toBe(`[${code}] acknowledged.`);
    expect((await incident(incidentId, person)).acknowledged).toBe(true);
  });

  it('<n>r resolves; the code then names no open incident', async () => {
    const { person, incidentId, number, code } = await pagedIncident();
    await reply(number, `${code}r`);
    expect(lastSmsTo(number)).toBe(`[${code}] resolved.`);
    expect((await incident(incidentId, person)).status).toBe('RESOLVED');
    await reply(number, `${code}r`);
    expect(lastSmsTo(number)).toBe(`No open incident ${code} for this number. Reply HELP for the commands.`);
  });

  it('<n>e pages the next step now (through escalation-step), and the step is not paged again at its time', async () => {
    const second = uniqueEmail('step-two');
    const number = phone();
    const { person } = await smsPerson(number);
    const { incidentId, code } = await pageOf(person, number, [{ delay_minutes: 30, emails: [second] }]);
    expect(await mailTo(api, second)).toEqual([]);
    const pagedSteps = async () =>
      ((await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: person.token })).body.updates as { kind: string; details: { step_order: number } }[])
        .filter((entry) => entry.kind === 'escalation_paged')
        .map((entry) => entry.details.step_order);
    expect(await pagedSteps()).toEqual([1]);

    await reply(number, `${code}e`);
    expect(lastSmsTo(number)).toBe(`[${code}] escalating to step 2 now.`);
    // A one-time schedule of step 2, due now (a second ahead): escalation-step pages it early.
    await advance(api, 2_000);
    await awaitMail(api, second);
    expect(await pagedSteps()).toEqual([1, 2]);

    await reply(number, `${code}e`);
    expect(lastSmsTo(number)).toBe(`[${code}] has no further escalation step.`);
    // Its schedule, when it fires at its time, finds it sent: one e-mail only, one page of step 2.
    await advance(api, 31 * 60_000);
    expect(await mailTo(api, second)).toHaveLength(1);
    expect(await pagedSteps()).toEqual([1, 2]);
  });

  it('STOP disables the number on every account having it, START enables it again', async () => {
    const number = phone();
    const { person, methodId: mine } = await smsPerson(number);
    const { person: other, methodId: theirs } = await smsPerson(number, 'Other');
    const disabled = async () => [(await methodOf(person, mine))?.disabled, (await methodOf(other, theirs))?.disabled];
    expect(await disabled()).toEqual([false, false]);

    await reply(number, 'stop');
    expect(lastSmsTo(number)).toBe(replyTexts.stopped);
    expect(replyTexts.stopped).toBe('SMS pages to this number are off. Reply START to turn them back on.');
    expect(await disabled()).toEqual([true, true]);

    await reply(number, 'START');
    expect(lastSmsTo(number)).toBe('SMS pages to this number are on again. Reply STOP to end them.');
    expect(await disabled()).toEqual([false, false]);

    // A carrier's synonym.
    await reply(number, 'Unsubscribe');
    expect(await disabled()).toEqual([true, true]);
    await reply(number, 'unstop');
    expect(await disabled()).toEqual([false, false]);
  });

  it('HELP and anything else answer the commands and change nothing', async () => {
    const { person, incidentId, number, methodId, code } = await pagedIncident();
    expect(replyTexts.help).toBe(
      'Incident pages: reply 12a to acknowledge, 12r to resolve, 12e to escalate (12: the number in the page). STOP ends SMS pages, START resumes.',
    );
    for (const body of ['HELP', 'ack', 'hello there', `${code}x`, `${code}`]) {
      await reply(number, body);
      expect(lastSmsTo(number), body).toBe(replyTexts.help);
    }
    expect((await incident(incidentId, person)).acknowledged).toBe(false);
    expect((await incident(incidentId, person)).status).toBe('INVESTIGATING');
    expect((await methodOf(person, methodId))?.disabled).toBe(false);
  });

  it('a number no account has gets the help text, whatever it sends', async () => {
    const stranger = phone();
    for (const body of ['12a', 'STOP']) {
      await reply(stranger, body);
      expect(lastSmsTo(stranger)).toBe(replyTexts.help);
    }
  });

  it('a failing sms-inbound is a 502 that says where to look, and says nothing of the failure itself', async () => {
    const { person, incidentId, number, code } = await pagedIncident();
    failNextDynamoCall(workers.smsInbound.name);
    const response = await api.request('POST', '/local/phones/reply', { body: { from: number, body: `${code}a` } });
    expect(response).toMatchObject({ status: 502, body: { error: 'The sms-inbound function failed on this reply; the runtime log says why' } });
    expect(JSON.stringify(response.body)).not.toContain('secret-internal-detail');
    expect((await incident(incidentId, person)).acknowledged).toBe(false);
  });

  it('a code that names no open incident of the person is answered so', async () => {
    const { number, code } = await pagedIncident();
    await reply(number, `${code + 1}a`);
    expect(lastSmsTo(number)).toBe(`No open incident ${code + 1} for this number. Reply HELP for the commands.`);
  });

  it('an unverified method does not act as its account', async () => {
    const { person, incidentId, code } = await pagedIncident();
    // Another number of the same person, never verified: its text does not act as them.
    const unverified = phone();
    await addContactMethod(api, person, 'sms', unverified, { verified: false });
    // Its code comes first (sent through the bus): the answer to the reply is then the inbox's last.
    await awaitPhoneMessage(api, unverified, (message) => /verification code/i.test(message.body));
    await reply(unverified, `${code}a`);
    expect(lastSmsTo(unverified)).toBe(`No open incident ${code} for this number. Reply HELP for the commands.`);
    expect((await incident(incidentId, person)).acknowledged).toBe(false);
  });

  it('two accounts on one number both holding the code: nothing is done', async () => {
    const number = phone();
    const { person } = await smsPerson(number);
    const { person: other } = await smsPerson(number, 'Other');
    // Each is paged for an incident of their own on the shared number: both hold code 1.
    const mine = await pageOf(person, number);
    const theirs = await pageOf(other, number);
    expect([mine.code, theirs.code]).toEqual([1, 1]);
    await reply(number, '1a');
    expect(lastSmsTo(number)).toBe("1 names incidents of more than one account on this number: use the link in the page's e-mail.");
    expect((await incident(mine.incidentId, person)).acknowledged).toBe(false);
    expect((await incident(theirs.incidentId, other)).acknowledged).toBe(false);
    // Only one of them holding code 2: that one is acted on.
    const again = await pageOf(other, number);
    expect(again.code).toBe(2);
    await reply(number, '2a');
    expect(lastSmsTo(number)).toBe('[2] acknowledged.');
    expect((await incident(again.incidentId, other)).acknowledgement).toMatchObject({ user_id: other.id, method: 'sms' });
    expect((await incident(mine.incidentId, person)).acknowledged).toBe(false);
  });

  it("reply codes of two people on two incidents: each one's 1a acknowledges their own incident, as them", async () => {
    const [first, second] = [phone(), phone()];
    const { person: ana } = await smsPerson(first, 'Ana');
    const { person: ben } = await smsPerson(second, 'Ben');
    // Ana's monitors are her team's, so Ben, paged by them, may act on their incidents.
    const { team } = await seedTeam(ana, [[ben, 'MEMBER']], 'Pair');
    const policyPaging = async (people: User[]) => {
      const policy = await api.request('POST', '/api/escalation-policies', {
        token: ana.token,
        body: { name: 'Pair', team_id: team.id, steps: [{ delay_minutes: 0, targets: people.map((person) => ({ type: 'user', id: person.id })) }] },
      });
      expect(policy.status, JSON.stringify(policy.body)).toBe(201);
      return policy.body.escalation_policy.id as string;
    };
    const open = async (name: string, policyId: string) => {
      const monitor = await createMonitor(api, ana, { name, failure_threshold: 1, escalation_policy_id: policyId, team_id: team.id });
      const { incident_id } = await reportDown(monitor.id);
      await settle(api);
      return incident_id as string;
    };
    const codeIn = async (number: string, name: string) =>
      Number(/^\[(\d+)\] /.exec((await awaitPhoneMessage(api, number, (message) => message.body.includes(`${name} is down`))).body)![1]);
    // Alpha pages Ana, Beta pages Ben: each holds 1, for their own incident.
    const alpha = await open('Alpha', await policyPaging([ana]));
    const beta = await open('Beta', await policyPaging([ben]));
    expect([await codeIn(first, 'Alpha'), await codeIn(second, 'Beta')]).toEqual([1, 1]);
    await reply(first, '1a');
    expect(lastSmsTo(first)).toBe('[1] acknowledged.');
    await reply(second, '1a');
    expect(lastSmsTo(second)).toBe('[1] acknowledged.');
    expect((await incident(alpha, ana)).acknowledgement).toMatchObject({ user_id: ana.id, user_name: 'Ana', method: 'sms' });
    expect((await incident(beta, ana)).acknowledgement).toMatchObject({ user_id: ben.id, user_name: 'Ben', method: 'sms' });
    // Gamma pages both: their 1 still names their open incident, so Gamma is 2 for each.
    const gamma = await open('Gamma', await policyPaging([ana, ben]));
    expect([await codeIn(first, 'Gamma'), await codeIn(second, 'Gamma')]).toEqual([2, 2]);
    await reply(second, '2a');
    expect(lastSmsTo(second)).toBe('[2] acknowledged.');
    expect((await incident(gamma, ana)).acknowledgement).toMatchObject({ user_id: ben.id, user_name: 'Ben', method: 'sms' });
    await reply(first, '2a');
    expect(lastSmsTo(first)).toBe('[2] is already acknowledged.');
  });
});

describe('SMS and voice receipts', () => {
  /**
   * A notification's timeline entry still `sent`, and its MESSAGE# lookup, as a page writes them
   * (`notifications/pages.ts`). Written directly: a real page's receipt follows its send at once
   * locally, so its entry never stays `sent` for a test to send receipts of its own (a real page's
   * whole round, delivered and failed, is in person-paging.test.ts and phone-paging-e2e.test.ts).
   */
  async function seedNotification(incidentId: string, messageId: string) {
    const entryId = randomUUID();
    const at = new Date().toISOString();
    const key = keys.incidentUpdate(incidentId, at, 0, entryId);
    await put({
      ...key,
      type: 'incident_update',
      id: entryId,
      incident_id: incidentId,
      kind: 'notification',
      status: 'INVESTIGATING',
      message: null,
      user_id: owner.id,
      user_name: owner.name,
      created_at: at,
      details: { channel: 'sms', address: '+1•••0100', user_id: owner.id, user_name: owner.name, status: 'sent', step_order: 1, message_id: messageId },
    });
    await put({ ...keys.notificationMessage(messageId), incident_id: incidentId, entry_sk: key.sk });
    return key;
  }

  const receipt = (messageId: string, to: string, channel: 'sms' | 'voice' = 'sms', context?: Record<string, string>) =>
    invokeFunction(
      workers.smsReceipts.name,
      snsNotification('arn:aws:sns:local:000000000000:incident-service-sms-events', messageEventRecord({ id: messageId, channel, to, from: LOCAL_NUMBER, body: 'page', sent_at: '' }, context, Date.now())),
    );

  it("marks the entry delivered, or failed, and never back", async () => {
    const { incidentId } = await pagedIncident();
    const delivered = await seedNotification(incidentId, randomUUID());
    const failed = await seedNotification(incidentId, randomUUID());
    const statusOf = async (key: Record<string, unknown>) => ((await get(key))?.details as { status: string }).status;

    // The page's own receipts (and their retries) first, so that only this receipt's calls are counted.
    await api.runtime.idle();
    calls.reset();
    expect(await receipt((await get(delivered))!.details.message_id, '+14155550123')).toEqual(['updated']);
    // The message's lookup items (one Query: here a message's single item of before issue 43's
    // combined messages, still read), the entry's conditional update.
    expect(calls.commandsOf(workers.smsReceipts.name)).toEqual(['QueryCommand', 'UpdateItemCommand']);
    expect(await statusOf(delivered)).toBe('delivered');
    expect(await receipt((await get(failed))!.details.message_id, '+14155550000', 'voice')).toEqual(['updated']);
    expect(await statusOf(failed)).toBe('failed');
    // A later, contradicting receipt changes nothing.
    expect(await receipt((await get(delivered))!.details.message_id, '+14155550000')).toEqual(['already_final']);
    expect(await statusOf(delivered)).toBe('delivered');
  });

  it('ignores the receipt of a message it does not know', async () => {
    expect(await receipt(randomUUID(), '+14155550123')).toEqual(['unknown_message']);
    // A verification code's or a reply's (their tags): never a timeline entry, ignored too.
    expect(await receipt(randomUUID(), '+14155550123', 'sms', { kind: 'verification', contact_method: randomUUID() })).toEqual(['unknown_message']);
  });

  it("fails (to be retried) on a page's receipt that comes before its timeline entry, and applies it once the entry is there", async () => {
    const { incidentId } = await pagedIncident();
    const messageId = randomUUID();
    const tags = { kind: 'escalation', incident: incidentId, step: '1' };
    await expect(receipt(messageId, '+14155550123', 'sms', tags)).rejects.toThrow(
      '1 receipt(s) of page messages came before their timeline entries were written: to be retried',
    );
    const entry = await seedNotification(incidentId, messageId);
    expect(await receipt(messageId, '+14155550123', 'sms', tags)).toEqual(['updated']);
    expect(((await get(entry))?.details as { status: string }).status).toBe('delivered');
  });

  it('refuses an event that is not an SNS notification of an event record', async () => {
    await expect(invokeFunction(workers.smsReceipts.name, { Records: [{ EventSource: 'aws:sqs' }] })).rejects.toThrow();
    await expect(invokeFunction(workers.smsReceipts.name, snsNotification('arn:aws:sns:local:0:x', { hello: 'world' }))).rejects.toThrow();
  });
});
