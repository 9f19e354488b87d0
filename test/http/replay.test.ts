/**
 * Replaying what the dead-letter and on-failure queues hold (`npm run replay`): a stream batch the
 * publisher gave up on is re-published from the outbox records of its time window, a failed
 * invocation is invoked again; replaying twice, or an event that was delivered after all, e-mails
 * nobody twice.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayMessages } from '../../infra/tools/replay.js';
import { Api, awaitMail, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { createMonitor } from '../support/teams.js';

let api: Api;
let owner: User;

beforeAll(async () => {
  // The local stream mapping gives a failing batch up after 2 attempts (20 retries on AWS).
  api = await Api.start({ streamMaxAttempts: 2 });
  owner = await api.signUp(uniqueEmail('replayer'));
});
afterAll(() => api.close());

const titled = async (to: string, title: string) => (await mailTo(api, to)).filter((email) => email.subject.includes(title));

describe('npm run replay', () => {
  it('re-publishes a given-up stream batch from the outbox, and e-mails nobody twice', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Storefront' });
    const reader = uniqueEmail('reader');
    expect((await api.request('POST', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token, body: { email: reader } })).status).toBe(201);

    // EventBridge is down for both attempts (the SDK tries each PutEvents 3 times): the batch is
    // given up, its e-mail never sent.
    api.runtime.bus.failPutEvents(6);
    const lost = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Lost in the stream' } });
    expect(lost.status).toBe(201);
    await api.runtime.stream.pollOnce();
    await api.runtime.stream.pollOnce();
    await settle(api);
    expect(api.runtime.stream.deadLetters).toHaveLength(1);
    const failure = api.runtime.stream.deadLetters[0]!;
    expect(failure.DDBStreamBatchInfo).toMatchObject({ batchSize: expect.any(Number), approximateArrivalOfFirstRecord: expect.any(String) });
    expect(await titled(reader, 'Lost in the stream')).toEqual([]);

    // A later incident goes through normally (it falls in the same replay window).
    const later = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Delivered anyway' } });
    expect(later.status).toBe(201);
    await settle(api);
    await awaitMail(api, reader, 1);

    // As `aws sqs receive-message` prints it.
    const received = { Messages: [{ MessageId: 'm-1', Body: JSON.stringify(failure), MessageAttributes: {} }] };
    const [dry] = await replayMessages(received, { dryRun: true });
    expect(dry!.kind).toBe('stream-batch');
    const listed = (dry!.detail as { events: { event_type: string; event_id: string }[]; published: number });
    expect(listed.published).toBe(0);
    expect(listed.events.map((event) => event.event_type)).toEqual(expect.arrayContaining(['incident.created']));
    await settle(api);
    expect(await titled(reader, 'Lost in the stream')).toEqual([]);

    const [done] = await replayMessages(received);
    expect((done!.detail as { published: number }).published).toBe(listed.events.length);
    await settle(api);
    expect(await titled(reader, 'Lost in the stream')).toHaveLength(1);
    expect(await titled(reader, 'Delivered anyway')).toHaveLength(1);

    // Replaying again sends nothing new.
    await replayMessages(received);
    await settle(api);
    expect(await titled(reader, 'Lost in the stream')).toHaveLength(1);
    expect(await titled(reader, 'Delivered anyway')).toHaveLength(1);
  });

  it('invokes a failed function again with its event (on-failure message), idempotently', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Search' });
    const reader = uniqueEmail('searcher');
    expect((await api.request('POST', `/api/monitors/${monitor.id}/subscribers`, { token: owner.token, body: { email: reader } })).status).toBe(201);
    const created = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Search is down' } });
    await settle(api);
    await awaitMail(api, reader, 1);
    const event = api.runtime.bus.published.find(
      (candidate) => candidate['detail-type'] === 'incident.created' && (candidate.detail as { incident: { id: string } }).incident.id === created.body.incident.id,
    )!;
    // What Lambda puts in a function's on-failure queue.
    const onFailure = {
      version: '1.0',
      timestamp: new Date().toISOString(),
      requestContext: { requestId: 'r-1', functionArn: 'arn:aws:lambda:local:000000000000:function:notifier:$LATEST', condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      requestPayload: event,
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: 'Error', errorMessage: 'Maximum sending rate exceeded.' },
    };
    const [outcome] = await replayMessages({ Body: JSON.stringify(onFailure) });
    expect(outcome).toEqual({
      message: 1,
      kind: 'failed-invocation',
      detail: { function: 'arn:aws:lambda:local:000000000000:function:notifier', result: { sent: 0, duplicates: 1, possible_duplicates: 0 } },
    });
    expect(await mailTo(api, reader)).toHaveLength(1);

    // A rule's dead letter names its target in an attribute; anything else is left alone.
    const [ruleDeadLetter, unknown] = await replayMessages({
      Messages: [
        { Body: JSON.stringify(event), MessageAttributes: { TARGET_ARN: { StringValue: 'arn:aws:lambda:local:000000000000:function:notifier', DataType: 'String' } } },
        { Body: JSON.stringify({ hello: 'world' }) },
      ],
    });
    expect(ruleDeadLetter).toMatchObject({ kind: 'rule-dead-letter', detail: { result: { sent: 0, duplicates: 1 } } });
    expect(unknown!.kind).toBe('unknown');
  });

  it('answers a mistaken command line with its usage and exit code 2', async () => {
    const run = promisify(execFile);
    const failure = await run(process.execPath, ['--import', 'tsx', 'infra/tools/replay.ts', '--from', '2026-11-23T10:00:00Z'], { env: { ...process.env } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: npm run replay') });
  });
});
