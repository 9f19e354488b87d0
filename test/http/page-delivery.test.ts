/**
 * Escalation pages are sent at least once, through the local runtime with injected faults: the
 * invocation dies between the pending record and the send, SES times out after or before taking the
 * e-mail, SES refuses it once, the same event runs twice at once. No page is lost in any case, and
 * every duplicate is one the delivery record counted as possible.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { advanceClock, resetClock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { NOTIFIER_TIMEOUT_SECONDS } from '../../shared/system.js';
import { sesClient } from '../../shared/channels/email.js';
import { Api, eventually, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { reportDown } from '../support/teams.js';

let api: Api;
let owner: User;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('pager'));
});
afterAll(() => api.close());
afterEach(() => resetClock());

const recipientOf = (input: unknown) =>
  ((input as { Destination?: { ToAddresses?: string[] } }).Destination?.ToAddresses?.[0] ?? '').toLowerCase();

/** Runs `body` with a middleware on a client's stack, removed afterwards. */
async function withMiddleware(
  stack: { add: (middleware: any, options: { step: 'initialize'; name: string }) => void; remove: (name: string) => boolean },
  middleware: (next: (args: any) => Promise<any>) => (args: any) => Promise<any>,
  body: () => Promise<void>,
) {
  const name = `injectedFault${Math.random()}`;
  stack.add(middleware, { step: 'initialize', name });
  try {
    await body();
  } finally {
    stack.remove(name);
  }
}

/** An automatic incident whose first step pages `emails` at once; answers the incident id. */
async function pageAtOnce(emails: string[]) {
  const policy = await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: 'Pager', steps: [{ delay_minutes: 0, emails }] } });
  expect(policy.status).toBe(201);
  const monitor = await api.request('POST', '/api/monitors', {
    token: owner.token,
    body: { name: 'Payments', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id },
  });
  return (await reportDown(monitor.body.monitor.id)).incident_id;
}

const pageEvent = (incidentId: string) =>
  api.runtime.bus.published.find(
    (event) => event['detail-type'] === 'incident.escalation_step' && (event.detail as { incident: { id: string } }).incident.id === incidentId,
  )!;

async function deliveryRecord(incidentId: string, recipient: string) {
  const event = await eventually(async () => pageEvent(incidentId), Boolean);
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.delivery((event.detail as { event_id: string }).event_id, recipient), ConsistentRead: true }),
  );
  return Item;
}

const pages = async (to: string) => (await mailTo(api, to)).filter((email) => email.subject.startsWith('[Escalation step 1]'));

/** The SES error the SDK throws when a request times out: no answer from SES, so it may have sent. */
const timeout = () => Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });

describe('escalation pages under injected faults', () => {
  it('sends a page whose invocation died between the pending record and the send, once the lease has passed', async () => {
    const [doomed, bystander] = [uniqueEmail('doomed'), uniqueEmail('bystander')];
    let died = 0;
    await withMiddleware(
      db().middlewareStack,
      (next) => async (args) => {
        const result = await next(args);
        const written = JSON.stringify(args.input);
        // The first pending write for `doomed` lands, then the invocation dies before it sends.
        if (died === 0 && written.includes(doomed.toLowerCase()) && written.includes('pending')) {
          died++;
          throw new Error('injected: the invocation died');
        }
        return result;
      },
      async () => {
        const incidentId = await pageAtOnce([doomed, bystander]);
        await api.runtime.stream.pollOnce();
        // The retry finds the page pending under the dead invocation's lease, and waits for it.
        await eventually(() => deliveryRecord(incidentId, doomed), (item) => item?.state === 'pending' && died === 1);
        expect(await pages(doomed)).toHaveLength(0);
        advanceClock(NOTIFIER_TIMEOUT_SECONDS * 1000 + 1_000);
        await settle(api);
        await eventually(() => pages(doomed), (emails) => emails.length >= 1);
        expect(await pages(doomed)).toHaveLength(1);
        expect(await pages(bystander)).toHaveLength(1);
        // Taken over after a send of unknown fate: counted as a possible duplicate (none happened).
        expect(await deliveryRecord(incidentId, doomed)).toMatchObject({ state: 'sent', attempts: 2, possible_duplicates: 1 });
        expect(await deliveryRecord(incidentId, bystander)).toMatchObject({ state: 'sent', attempts: 1 });
        expect((await deliveryRecord(incidentId, bystander))?.possible_duplicates).toBeUndefined();
      },
    );
  });

  it('sends again after SES timed out: twice when SES had taken it (a counted duplicate), once when it had not', async () => {
    const [tookIt, neverSawIt] = [uniqueEmail('took'), uniqueEmail('never')];
    const timedOut = new Set([tookIt.toLowerCase(), neverSawIt.toLowerCase()]);
    await withMiddleware(
      sesClient().middlewareStack,
      (next) => async (args) => {
        const to = recipientOf(args.input);
        if (!timedOut.delete(to)) return next(args);
        if (to === tookIt.toLowerCase()) await next(args); // SES sent it; its answer never came back
        throw timeout();
      },
      async () => {
        const incidentId = await pageAtOnce([tookIt, neverSawIt]);
        await settle(api);
        await eventually(() => pages(neverSawIt), (emails) => emails.length >= 1);
        await eventually(() => pages(tookIt), (emails) => emails.length >= 2);
        expect(await pages(tookIt)).toHaveLength(2);
        expect(await pages(neverSawIt)).toHaveLength(1);
        for (const recipient of [tookIt, neverSawIt]) {
          expect(await deliveryRecord(incidentId, recipient)).toMatchObject({ state: 'sent', attempts: 2, possible_duplicates: 1 });
        }
      },
    );
  });

  it('sends again after SES refused once, counting no duplicate', async () => {
    const refused = uniqueEmail('refused');
    let refusals = 0;
    await withMiddleware(
      sesClient().middlewareStack,
      (next) => async (args) => {
        if (recipientOf(args.input) !== refused.toLowerCase() || refusals++ > 0) return next(args);
        throw Object.assign(new Error('Email address is not verified.'), { name: 'MessageRejected', $metadata: { httpStatusCode: 400 } });
      },
      async () => {
        const incidentId = await pageAtOnce([refused]);
        await settle(api);
        await eventually(() => pages(refused), (emails) => emails.length >= 1);
        const record = await deliveryRecord(incidentId, refused);
        // The refused attempt left nothing behind: the retry wrote the record afresh.
        expect(record).toMatchObject({ state: 'sent', attempts: 1 });
        expect(record?.possible_duplicates).toBeUndefined();
        expect(await pages(refused)).toHaveLength(1);
      },
    );
  });

  it('pages once per event when the same event runs twice at once', async () => {
    const target = uniqueEmail('twice');
    const incidentId = await pageAtOnce([target]);
    await settle(api);
    await eventually(() => pages(target), (emails) => emails.length >= 1);
    // The same page as a new event (its own delivery records), delivered twice at once.
    const original = pageEvent(incidentId);
    const event = { ...original, detail: { ...(original.detail as object), event_id: randomUUID() } };
    const results = await Promise.all([invokeFunction('notifier', event), invokeFunction('notifier', event)]);
    expect(results).toEqual(
      expect.arrayContaining([
        { sent: 1, duplicates: 0, possible_duplicates: 0 },
        { sent: 0, duplicates: 1, possible_duplicates: 0 },
      ]),
    );
    expect(await pages(target)).toHaveLength(2);
  });
});
