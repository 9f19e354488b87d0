/**
 * SMS replies and receipts (issue 43 §4): a person's text to the service's number, as AWS's SNS topic
 * carries it (here through `POST /local/phones/reply`), acts on the incident their reply code names
 * (`<n>a` acknowledges with method sms, `<n>r` resolves, `<n>e` escalates now), turns their SMS
 * pages off and on (STOP / START), or is answered with the commands; receipts mark a notification's
 * timeline entry delivered or failed.
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
import { createIncident, createMonitor, reportDown } from '../support/teams.js';
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

/**
 * SEED (switch to the API at merge): a verified SMS contact method on `number` for `user`, with its
 * PHONE# lookup item, as shared/contacts writes them (design43.md "Items"); POST
 * /api/me/contact-methods + verify once the contacts helper's routes are merged.
 */
async function seedSmsMethod(user: User, number: string, fields: { verified?: boolean; type?: 'sms' | 'voice' } = {}) {
  const id = randomUUID();
  const type = fields.type ?? 'sms';
  await put({
    ...keys.contactMethod(user.id, id),
    type: 'contact_method',
    id,
    user_id: user.id,
    method_type: type,
    address: number,
    name: null,
    verified: fields.verified ?? true,
    disabled: false,
    created_at: new Date().toISOString(),
  });
  await put({ ...keys.phoneContact(number, user.id, id), user_id: user.id, contact_method_id: id, method_type: type });
  return id;
}

/** SEED (the seam helper's reply-codes.ts allocates these at merge): `user`'s code `code` names `incidentId`. */
async function seedReplyCode(user: User, code: number, incidentId: string) {
  await put({ ...keys.replyCode(user.id, code), type: 'reply_code', incident_id: incidentId, allocated_at: new Date().toISOString() });
  await put({ ...keys.incidentReplyCode(incidentId, user.id), type: 'reply_code_of', code });
}

const reply = async (from: string, body: string) => {
  const response = await api.request('POST', '/local/phones/reply', { body: { from, body } });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body.message).toMatchObject({ channel: 'sms', from, to: LOCAL_NUMBER, body });
  return response.body.message as { id: string };
};
/** The newest SMS the service sent to `number`. */
const lastSmsTo = (number: string) => api.runtime.phones.messages(number).find((message) => message.channel === 'sms')?.body;
const incident = async (id: string) => (await api.request('GET', `/api/incidents/${id}`, { token: owner.token })).body.incident;

/** An open manual incident of the owner's, and the owner's phone holding code `code` for it. */
async function pagedIncident(code = 12) {
  const monitor = await createMonitor(api, owner, { name: 'Checkout' });
  const incidentId = await createIncident(api, owner, monitor.id, 'Checkout 5xx above 2%');
  const number = phone();
  const methodId = await seedSmsMethod(owner, number);
  await seedReplyCode(owner, code, incidentId);
  return { incidentId, number, methodId };
}

describe('SMS replies', () => {
  it('12a acknowledges as that person, with method sms', async () => {
    const { incidentId, number } = await pagedIncident();
    await reply(number, '12a');
    expect(lastSmsTo(number)).toBe(replyTexts.acknowledged(12));
    expect(replyTexts.acknowledged(12)).toBe('[12] acknowledged.');
    const acknowledged = await incident(incidentId);
    expect(acknowledged.acknowledged).toBe(true);
    expect(acknowledged.acknowledgement).toMatchObject({ user_id: owner.id, user_name: 'Olivia Owner', method: 'sms' });
    // Again: already acknowledged, nothing changes.
    await reply(number, '12A');
    expect(lastSmsTo(number)).toBe('[12] is already acknowledged.');
  });

  it('costs a bounded number of DynamoDB calls, whatever the history: the number, its methods, the code, then the acknowledgement', async () => {
    const { number } = await pagedIncident();
    calls.reset();
    await reply(number, '12a');
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

  it('case and spaces are ignored: " 12 A " acknowledges', async () => {
    const { incidentId, number } = await pagedIncident();
    await reply(number, ' 12 A ');
    expect(lastSmsTo(number)).toBe('[12] acknowledged.');
    expect((await incident(incidentId)).acknowledged).toBe(true);
  });

  it('12r resolves; the code then names no open incident', async () => {
    const { incidentId, number } = await pagedIncident();
    await reply(number, '12r');
    expect(lastSmsTo(number)).toBe('[12] resolved.');
    expect((await incident(incidentId)).status).toBe('RESOLVED');
    await reply(number, '12r');
    expect(lastSmsTo(number)).toBe('No open incident 12 for this number. Reply HELP for the commands.');
  });

  it('12e pages the next step now (through escalation-step), and the step is not paged again at its time', async () => {
    const first = uniqueEmail('step-one');
    const second = uniqueEmail('step-two');
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: owner.token,
      body: { name: 'Two steps', steps: [{ delay_minutes: 0, emails: [first] }, { delay_minutes: 30, emails: [second] }] },
    });
    expect(policy.status).toBe(201);
    const monitor = await createMonitor(api, owner, { name: 'Edge', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id });
    const { incident_id: incidentId } = await reportDown(monitor.id);
    await settle(api);
    await awaitMail(api, first);
    expect(await mailTo(api, second)).toEqual([]);
    const number = phone();
    await seedSmsMethod(owner, number);
    await seedReplyCode(owner, 3, incidentId);

    await reply(number, '3e');
    expect(lastSmsTo(number)).toBe('[3] escalating to step 2 now.');
    // A one-time schedule of step 2, due now (a second ahead): escalation-step pages it early.
    await advance(api, 2_000);
    await awaitMail(api, second);
    const steps = (await incident(incidentId)).escalation_steps as { step_order: number; sent_at: string | null }[];
    expect(steps.map((step) => step.sent_at !== null)).toEqual([true, true]);

    await reply(number, '3e');
    expect(lastSmsTo(number)).toBe('[3] has no further escalation step.');
    // Its schedule, when it fires at its time, finds it sent: one e-mail only.
    await advance(api, 31 * 60_000);
    expect(await mailTo(api, second)).toHaveLength(1);
  });

  it('STOP disables the number on every account having it, START enables it again', async () => {
    const other = await api.signUp(uniqueEmail('sms-other'));
    const number = phone();
    const mine = await seedSmsMethod(owner, number);
    const theirs = await seedSmsMethod(other, number);
    const disabled = async () => [(await get(keys.contactMethod(owner.id, mine)))?.disabled, (await get(keys.contactMethod(other.id, theirs)))?.disabled];

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
    const { incidentId, number, methodId } = await pagedIncident();
    expect(replyTexts.help).toBe(
      'Incident pages: reply 12a to acknowledge, 12r to resolve, 12e to escalate (12: the number in the page). STOP ends SMS pages, START resumes.',
    );
    for (const body of ['HELP', 'ack', 'hello there', '12x', '12']) {
      await reply(number, body);
      expect(lastSmsTo(number), body).toBe(replyTexts.help);
    }
    expect((await incident(incidentId)).acknowledged).toBe(false);
    expect((await incident(incidentId)).status).toBe('INVESTIGATING');
    expect((await get(keys.contactMethod(owner.id, methodId)))?.disabled).toBe(false);
  });

  it('a number no account has gets the help text, whatever it sends', async () => {
    const stranger = phone();
    for (const body of ['12a', 'STOP']) {
      await reply(stranger, body);
      expect(lastSmsTo(stranger)).toBe(replyTexts.help);
    }
  });

  it('a failing sms-inbound is a 502 that says where to look, and says nothing of the failure itself', async () => {
    const { incidentId, number } = await pagedIncident();
    failNextDynamoCall(workers.smsInbound.name);
    const response = await api.request('POST', '/local/phones/reply', { body: { from: number, body: '12a' } });
    expect(response).toMatchObject({ status: 502, body: { error: 'The sms-inbound function failed on this reply; the runtime log says why' } });
    expect(JSON.stringify(response.body)).not.toContain('secret-internal-detail');
    expect((await incident(incidentId)).acknowledged).toBe(false);
  });

  it('a code that names no open incident of the person is answered so', async () => {
    const { number } = await pagedIncident(12);
    await reply(number, '13a');
    expect(lastSmsTo(number)).toBe('No open incident 13 for this number. Reply HELP for the commands.');
  });

  it('an unverified method does not act as its account', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Unverified' });
    const incidentId = await createIncident(api, owner, monitor.id);
    const number = phone();
    await seedSmsMethod(owner, number, { verified: false });
    await seedReplyCode(owner, 12, incidentId);
    await reply(number, '12a');
    expect(lastSmsTo(number)).toBe('No open incident 12 for this number. Reply HELP for the commands.');
    expect((await incident(incidentId)).acknowledged).toBe(false);
  });

  it('two accounts on one number both holding the code: nothing is done', async () => {
    const other = await api.signUp(uniqueEmail('sms-twin'));
    const mine = await createIncident(api, owner, (await createMonitor(api, owner, { name: 'Mine' })).id);
    const theirs = await createIncident(api, other, (await createMonitor(api, other, { name: 'Theirs' })).id);
    const number = phone();
    await seedSmsMethod(owner, number);
    await seedSmsMethod(other, number);
    await seedReplyCode(owner, 5, mine);
    await seedReplyCode(other, 5, theirs);
    await reply(number, '5a');
    expect(lastSmsTo(number)).toBe("5 names incidents of more than one account on this number: use the link in the page's e-mail.");
    expect((await incident(mine)).acknowledged).toBe(false);
    // Only one of them holding code 6: that one is acted on.
    await seedReplyCode(other, 6, theirs);
    await reply(number, '6a');
    expect(lastSmsTo(number)).toBe('[6] acknowledged.');
    const acknowledged = await api.request('GET', `/api/incidents/${theirs}`, { token: other.token });
    expect(acknowledged.body.incident.acknowledgement).toMatchObject({ user_id: other.id, method: 'sms' });
  });
});

describe('SMS and voice receipts', () => {
  /** SEED (the seam helper writes these with each page at merge): a notification's timeline entry, `sent`, and its MESSAGE# lookup. */
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

  const receipt = (messageId: string, to: string, channel: 'sms' | 'voice' = 'sms') =>
    invokeFunction(
      workers.smsReceipts.name,
      snsNotification('arn:aws:sns:local:000000000000:incident-service-sms-events', messageEventRecord({ id: messageId, channel, to, from: LOCAL_NUMBER, body: 'page', sent_at: '' }, undefined, Date.now())),
    );

  it("marks the entry delivered, or failed, and never back", async () => {
    const { incidentId } = await pagedIncident();
    const delivered = await seedNotification(incidentId, randomUUID());
    const failed = await seedNotification(incidentId, randomUUID());
    const statusOf = async (key: Record<string, unknown>) => ((await get(key))?.details as { status: string }).status;

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
  });

  it('refuses an event that is not an SNS notification of an event record', async () => {
    await expect(invokeFunction(workers.smsReceipts.name, { Records: [{ EventSource: 'aws:sqs' }] })).rejects.toThrow();
    await expect(invokeFunction(workers.smsReceipts.name, snsNotification('arn:aws:sns:local:0:x', { hello: 'world' }))).rejects.toThrow();
  });

});
