/**
 * SES's bounces and complaints, through SES's mailbox simulator as the local SES plays it: a
 * subscriber who hard-bounces or complains is suppressed (the list says so) and gets no more
 * e-mail; a bounced escalation page is logged as an error and counted for the alarm, and the target
 * is still paged at the next step; soft bounces, deleted subscriptions and foreign e-mails change nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { sesEvents } from '../../shared/system.js';
import { advanceClock, resetClock } from '../../shared/platform/clock.js';
import { allMailTo, Api, awaitMail, eventually, mailTo, settle, uniqueEmail, type User, subscribeConfirmed } from '../support/api.js';
import { createMonitor, reportDown } from '../support/teams.js';
import { captureLogs } from '../support/logs.js';
import { dynamoCalls } from '../../infra/testing/ddb-calls.js';
import { workers } from '../../shared/system.js';

const calls = dynamoCalls();

vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');

let api: Api;
let owner: User;
let jsonLines: () => Record<string, any>[];

beforeAll(async () => {
  jsonLines = captureLogs().jsonLines;
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('feedback'));
});
afterAll(async () => {
  await api.close();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});
afterEach(() => resetClock());

/** SES's mailbox simulator addresses, made unique with a label. */
const simulator = (kind: 'bounce' | 'complaint') => `${kind}+${randomUUID().slice(0, 8)}@simulator.amazonses.com`;

async function subscribe(monitorId: string, email: string) {
  return subscribeConfirmed(api, owner.token, monitorId, email);
}

const subscribersOf = async (monitorId: string) =>
  (await api.request('GET', `/api/monitors/${monitorId}/subscribers`, { token: owner.token })).body.subscribers as {
    id: string;
    email: string;
    suppression: { reason: string; at: string } | null;
  }[];

/** An SES event as EventBridge hands it to the function (the local invoke API, the same handler). */
const sesEvent = <D extends object>(detailType: string, detail: D) => ({
  version: '0',
  id: randomUUID(),
  'detail-type': detailType,
  source: sesEvents.source,
  account: '000000000000',
  time: new Date().toISOString(),
  region: 'local',
  resources: [],
  detail,
});

describe('bounces and complaints', () => {
  it('suppresses a subscriber who hard-bounces or complains (at its confirmation e-mail), shows it in the list, and e-mails them no more', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Status page' });
    const reader = await subscribe(monitor.id, uniqueEmail('reader'));
    const bouncing = await subscribe(monitor.id, simulator('bounce'));
    const complaining = await subscribe(monitor.id, simulator('complaint'));
    await settle(api);
    // Their confirmation e-mails already came back: SES reported the bounce and the complaint.
    for (const subscriber of [bouncing, complaining]) expect((await allMailTo(api, subscriber.email)).map((mail) => mail.subject)).toEqual(['Confirm your subscription to Status page']);
    const listed = await eventually(() => subscribersOf(monitor.id), (subscribers) => subscribers.filter((subscriber) => subscriber.suppression).length === 2);
    expect(listed.map((subscriber) => [subscriber.email, subscriber.suppression?.reason ?? null])).toEqual([
      [reader.email, null],
      [bouncing.email, 'bounce'],
      [complaining.email, 'complaint'],
    ]);
    const suppressedAt = listed[1]!.suppression!.at;
    expect(Date.parse(suppressedAt)).not.toBeNaN();

    const created = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Checkout is slow' } });
    expect(created.status).toBe(201);
    const updated = await api.request('PUT', `/api/incidents/${created.body.incident.id}`, { token: owner.token, body: { status: 'IDENTIFIED' } });
    expect(updated.status).toBe(200);
    await settle(api);
    await awaitMail(api, reader.email, 2);
    expect(await mailTo(api, bouncing.email)).toHaveLength(0);
    expect(await mailTo(api, complaining.email)).toHaveLength(0);

    // A later report (here a complaint about the bounced address) keeps the first reason and time.
    advanceClock(60_000);
    const again = await invokeFunction(
      'email-feedback',
      sesEvent(sesEvents.complained, {
        eventType: 'Complaint',
        mail: { messageId: 'm-1', tags: { kind: ['subscriber'], monitor: [monitor.id], subscriber: [bouncing.id], incident: [created.body.incident.id] } },
        complaint: { complainedRecipients: [{ emailAddress: bouncing.email }] },
      }),
    );
    expect(again).toMatchObject({ outcome: 'suppressed', reason: 'complaint' });
    expect((await subscribersOf(monitor.id))[1]!.suppression).toEqual({ reason: 'bounce', at: suppressedAt });
  });

  it('logs and counts a bounced escalation page, and still pages the target at the next step', async () => {
    const target = simulator('bounce');
    const policy = (
      await api.request('POST', '/api/escalation-policies', {
        token: owner.token,
        body: { name: 'Night shift', steps: [{ delay_minutes: 0, emails: [target] }, { delay_minutes: 10, emails: [target] }] },
      })
    ).body.escalation_policy as { id: string };
    const monitor = await createMonitor(api, owner, { name: 'Payments API', failure_threshold: 1, escalation_policy_id: policy.id });
    const opened = await reportDown(monitor.id);
    await settle(api);
    await api.runtime.scheduler.tick();
    await settle(api);
    await awaitMail(api, target, 1);

    const bounced = () => jsonLines().filter((line) => line.message === 'escalation e-mail bounced: the target was not paged');
    await eventually(async () => bounced(), (lines) => lines.length === 1);
    expect(bounced()[0]).toMatchObject({ level: 'ERROR', incident_id: opened.incident_id, step: '1', type: 'permanent bounce' });
    // The address is masked in the log, like every e-mail address.
    expect(JSON.stringify(bounced()[0])).not.toContain(target);
    const metrics = jsonLines().filter((line) => line._aws?.CloudWatchMetrics?.[0]?.Metrics?.[0]?.Name === 'EscalationTargetBounced');
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({ EscalationTargetBounced: 1, service: 'incident-service' });

    // Never skipped: the next step pages the same address again (and is reported again).
    advanceClock(10 * 60_000);
    await api.runtime.scheduler.tick();
    await settle(api);
    await awaitMail(api, target, 2);
    await eventually(async () => bounced(), (lines) => lines.length === 2);
  });

  it('changes nothing for a soft bounce, a deleted subscription or an e-mail the service did not tag', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Docs site' });
    const subscriber = await subscribe(monitor.id, uniqueEmail('soft'));
    const tags = { kind: ['subscriber'], monitor: [monitor.id], subscriber: [subscriber.id], incident: ['i'] };
    const soft = await invokeFunction(
      'email-feedback',
      sesEvent(sesEvents.bounced, {
        eventType: 'Bounce',
        mail: { messageId: 'm-2', tags },
        bounce: { bounceType: 'Transient', bounceSubType: 'MailboxFull', bouncedRecipients: [{ emailAddress: subscriber.email }] },
      }),
    );
    expect(soft).toEqual({ outcome: 'noted', kind: 'subscriber', type: 'transient bounce' });
    expect((await subscribersOf(monitor.id))[0]!.suppression).toBeNull();

    const removed = await api.request('DELETE', `/api/monitors/${monitor.id}/subscribers/${subscriber.id}`, { token: owner.token });
    expect(removed.status).toBe(200);
    const hard = sesEvent(sesEvents.bounced, {
      eventType: 'Bounce',
      mail: { messageId: 'm-3', tags },
      bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: subscriber.email }] },
    });
    calls.reset();
    expect(await invokeFunction('email-feedback', hard)).toEqual({ outcome: 'subscription_gone', monitor_id: monitor.id, subscriber_id: subscriber.id });
    // Its budget: one conditional UpdateItem, inside the monitor's partition (its only leading key on AWS).
    expect(calls.commandsOf(workers.emailFeedback.name)).toEqual(['UpdateItemCommand']);
    const touched = calls.calls
      .filter((call) => call.functionName === workers.emailFeedback.name)
      .map((call) => JSON.stringify((call.input as { Key: { pk: unknown } }).Key.pk).replace(/^\{"S":|\}$/g, '').replace(/"/g, ''));
    expect(touched).toEqual([`MONITOR#${monitor.id}`]);
    expect(touched.every((pk) => workers.emailFeedback.leadingKeys.some((prefix) => pk.startsWith(prefix)))).toBe(true);
    // Nothing was written back for the deleted subscription.
    expect(await subscribersOf(monitor.id)).toEqual([]);

    calls.reset();
    const foreign = await invokeFunction('email-feedback', sesEvent(sesEvents.bounced, { ...hard.detail, mail: { messageId: 'm-4', tags: {} } }));
    expect(foreign).toEqual({ outcome: 'ignored' });
    expect(calls.commandsOf(workers.emailFeedback.name)).toEqual([]);
  });
});
