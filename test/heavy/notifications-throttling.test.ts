/**
 * A status page of 500 subscribers (120 in `npm test`, test/support/scale.ts) while SES throttles every
 * third recipient: the notifier sends a few at a time, waits and retries throttled sends inside the
 * invocation, and loses no e-mail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sesClient } from '../../shared/channels/email.js';
import { SEND_CONCURRENCY } from '../../shared/notifications/notifier.js';
import { Api, eventually, settle, uniqueEmail } from '../support/api.js';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { subscriptionItems } from '../../shared/subscribers/repository.js';
import { newSubscriber, subscribersOf } from '../../shared/subscribers/service.js';
import { createMonitor } from '../support/teams.js';
import { dynamoCalls } from '../../infra/testing/ddb-calls.js';
import { count, scaled } from '../support/scale.js';
import { within } from '../support/deadlines.js';

/** Many times SEND_CONCURRENCY either way: the notifier's batching and retries are all exercised. */
const N = scaled(500, 120);

const calls = dynamoCalls();

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());

describe('notifier under SES throttling', () => {
  it(`delivers to all ${count(N)} subscribers exactly once, at most a few at a time, when SES throttles every third recipient`, async () => {
    const owner = await api.signUp(uniqueEmail('throttled'));
    const monitor = await createMonitor(api, owner, { name: 'Busy status page' });
    const recipients = Array.from({ length: N }, (_, index) => uniqueEmail(`sub${index}`).toLowerCase());
    // The subscriptions' items as subscribing writes them, seeded in batches (subscribing over HTTP is
    // covered elsewhere; a transaction each here only cost time).
    const subscriptions = recipients.map((email) => subscriptionItems(monitor, newSubscriber(monitor.id, email, 'confirmed')));
    await batchWrite(subscriptions.flatMap((items) => Object.values(items).map((Item) => ({ PutRequest: { Item } }))));
    expect(await subscribersOf(monitor.id)).toHaveLength(N);

    // SES refuses the first send to every third recipient (rate exceeded); a retry goes through.
    const throttledOnce = new Set(recipients.filter((_, index) => index % 3 === 0));
    let throttled = 0;
    let underWay = 0;
    let mostAtOnce = 0;
    const name = 'throttleEveryThirdRecipient';
    sesClient().middlewareStack.add(
      (next) => async (args) => {
        const to = (args.input as { Destination?: { ToAddresses?: string[] } }).Destination?.ToAddresses?.[0]?.toLowerCase() ?? '';
        if (throttledOnce.delete(to)) {
          throttled++;
          throw Object.assign(new Error('Maximum sending rate exceeded.'), { name: 'Throttling', $metadata: { httpStatusCode: 400 } });
        }
        underWay++;
        mostAtOnce = Math.max(mostAtOnce, underWay);
        try {
          return await next(args);
        } finally {
          underWay--;
        }
      },
      { step: 'initialize', name },
    );
    try {
      calls.reset();
      const created = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Everything is slow' } });
      expect(created.status).toBe(201);
      await settle(api);
      const delivered = await eventually(
        async () => (await api.runtime.mailbox.emails()).filter((email) => email.subject.includes('Everything is slow')),
        (emails) => emails.length >= N,
        60_000,
      );
      const to = delivered.flatMap((email) => email.destination.to.map((address) => address.toLowerCase()));
      expect(to.sort()).toEqual([...recipients].sort());
      expect(throttled).toBe(Math.ceil(N / 3));
      expect(mostAtOnce).toBeLessThanOrEqual(SEND_CONCURRENCY);
      // Within one invocation: it read the subscribers once, so the bus never had to deliver the event again.
      expect(calls.commandsOf('notifier').filter((command) => command === 'QueryCommand')).toHaveLength(1);
    } finally {
      sesClient().middlewareStack.remove(name);
    }
  }, within(300_000));
});
