/**
 * Replaying what the dead-letter and on-failure queues hold (`npm run replay`): a stream batch the
 * publisher gave up on is re-published from the outbox records of its time window, a failed
 * invocation is invoked again; replaying twice, or an event that was delivered after all, e-mails
 * nobody twice.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replayMessages } from '../../infra/ops/replay.js';
import { Api, awaitMail, mailTo, settle, uniqueEmail, type User, subscribeConfirmed } from '../support/api.js';
import { createMonitor, reportDown } from '../support/teams.js';
import { eventRules, workers } from '../../shared/system.js';
import { advanceClock, resetClock } from '../../shared/platform/clock.js';
import { randomUUID } from 'node:crypto';

let api: Api;
let owner: User;

beforeAll(async () => {
  // The local stream mapping gives a failing batch up after 2 attempts (20 retries on AWS).
  api = await Api.start({ streamMaxAttempts: 2 });
  owner = await api.signUp(uniqueEmail('replayer'));
});
afterAll(() => api.close());
afterEach(() => resetClock());

const titled = async (to: string, title: string) => (await mailTo(api, to)).filter((email) => email.subject.includes(title));

describe('npm run replay', () => {
  it('re-publishes a given-up stream batch from the outbox, and e-mails nobody twice', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Storefront' });
    const reader = uniqueEmail('reader');
    await subscribeConfirmed(api, owner.token, monitor.id, reader);

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
    await subscribeConfirmed(api, owner.token, monitor.id, reader);
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

  it("pages a step whose schedule EventBridge Scheduler dead-lettered (the schedule's input, with its attributes), once", async () => {
    const [first, second] = [uniqueEmail('first'), uniqueEmail('second')];
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: owner.token,
      body: { name: 'Night', steps: [{ delay_minutes: 0, emails: [first] }, { delay_minutes: 5, emails: [second] }] },
    });
    const monitor = await api.request('POST', '/api/monitors', {
      token: owner.token,
      body: { name: 'Checkout', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id },
    });
    const { incident_id: incidentId } = await reportDown(monitor.body.monitor.id);
    await settle(api);
    await awaitMail(api, first, 1);
    // The scheduler gave step 2 up: its schedule is gone, its input in the escalation dead-letter queue.
    api.runtime.scheduler.delete(`esc-${incidentId}-2`);
    advanceClock(6 * 60_000);
    const scheduleArn = `arn:aws:scheduler:local:000000000000:schedule/incident-service-escalation/esc-${incidentId}-2`;
    const attribute = (StringValue: string) => ({ StringValue, DataType: 'String' });
    const deadLetter = {
      Messages: [
        {
          Body: JSON.stringify({ incident_id: incidentId, step_order: 2 }),
          MessageAttributes: {
            ERROR_CODE: attribute('Lambda.TooManyRequestsException'),
            ERROR_MESSAGE: attribute('Rate exceeded.'),
            EXHAUSTED_RETRY_CONDITION: attribute('MaximumRetryAttempts'),
            RETRY_ATTEMPTS: attribute('10'),
            TARGET_ARN: attribute('arn:aws:lambda:local:000000000000:function:escalation-step'),
            'X-Amz-Scheduler-Attempt': attribute('11'),
            'X-Amz-Scheduler-Group': attribute('incident-service-escalation'),
            'X-Amz-Scheduler-Schedule-Arn': attribute(scheduleArn),
          },
        },
      ],
    };
    const [dry] = await replayMessages(deadLetter, { dryRun: true });
    expect(dry).toEqual({
      message: 1,
      kind: 'schedule-dead-letter',
      detail: { schedule: scheduleArn, error: 'Lambda.TooManyRequestsException', function: 'arn:aws:lambda:local:000000000000:function:escalation-step', payload: { incident_id: incidentId, step_order: 2 } },
    });
    await settle(api);
    expect(await mailTo(api, second)).toEqual([]);

    const [done] = await replayMessages(deadLetter);
    expect(done!.detail).toMatchObject({ result: { outcome: 'sent' } });
    await settle(api);
    expect((await awaitMail(api, second, 1))[0]!.subject).toBe('[Escalation step 2] Checkout is down');

    // Again, and without TARGET_ARN against the local runtime: nobody is paged twice.
    const { TARGET_ARN: _target, ...withoutTarget } = deadLetter.Messages[0]!.MessageAttributes;
    const [again] = await replayMessages({ Messages: [{ ...deadLetter.Messages[0]!, MessageAttributes: withoutTarget }] }, { local: true });
    expect(again!.detail).toMatchObject({ function: expect.stringMatching(/escalation-step$/), result: { outcome: 'already_sent' } });
    await settle(api);
    expect(await mailTo(api, second)).toHaveLength(1);
    expect(await mailTo(api, first)).toHaveLength(1);
  });

  it('understands a message of every dead-letter and on-failure queue the stack has', async () => {
    const arn = (name: string) => `arn:aws:lambda:local:000000000000:function:${name}`;
    const event = { version: '0', id: 'e-1', 'detail-type': 'incident.created', source: 'incident-service', detail: {} };
    const sesEvent = { version: '0', id: 'e-2', 'detail-type': 'Email Bounced', source: 'aws.ses', detail: {} };
    const withAttributes = (body: unknown, attributes: Record<string, string>) => ({
      Body: JSON.stringify(body),
      MessageAttributes: Object.fromEntries(Object.entries(attributes).map(([name, StringValue]) => [name, { StringValue, DataType: 'String' }])),
    });
    const queues: { queue: string; message: unknown; kind: string; function?: string }[] = [
      {
        queue: 'OutboxPublisher (stream on-failure)',
        message: withAttributes({ requestContext: { condition: 'RetryAttemptsExhausted' }, DDBStreamBatchInfo: { shardId: 's', batchSize: 1, approximateArrivalOfFirstRecord: new Date().toISOString(), approximateArrivalOfLastRecord: new Date().toISOString() } }, {}),
        kind: 'stream-batch',
      },
      // Every rule's dead-letter queue (EventBridge could not invoke its target) and every target's on-failure queue.
      ...eventRules.flatMap((rule) => [
        {
          queue: `${rule.name} rule`,
          message: withAttributes(rule.from === 'ses' ? sesEvent : event, { RULE_ARN: `arn:aws:events:local:000000000000:rule/${rule.name}`, TARGET_ARN: arn(rule.target), ERROR_CODE: 'Throttling' }),
          kind: 'rule-dead-letter',
          function: arn(rule.target),
        },
        {
          queue: `${rule.target} failed`,
          message: withAttributes({ requestContext: { functionArn: `${arn(rule.target)}:$LATEST`, condition: 'RetriesExhausted' }, requestPayload: rule.from === 'ses' ? sesEvent : event }, {}),
          kind: 'failed-invocation',
          function: arn(rule.target),
        },
      ]),
      {
        queue: 'EscalationStep (its on-failure)',
        message: withAttributes({ requestContext: { functionArn: arn(workers.escalationStep.name), condition: 'RetriesExhausted' }, requestPayload: { incident_id: randomUUID(), step_order: 1 } }, {}),
        kind: 'failed-invocation',
        function: arn(workers.escalationStep.name),
      },
      {
        queue: "EscalationStep (the scheduler's dead letters)",
        message: withAttributes({ incident_id: randomUUID(), step_order: 1 }, { TARGET_ARN: arn(workers.escalationStep.name), 'X-Amz-Scheduler-Schedule-Arn': 'arn:aws:scheduler:local:000000000000:schedule/g/s', 'X-Amz-Scheduler-Group': 'g', 'X-Amz-Scheduler-Attempt': '11' }),
        kind: 'schedule-dead-letter',
        function: arn(workers.escalationStep.name),
      },
    ];
    const outcomes = await replayMessages({ Messages: queues.map((queue) => queue.message) }, { dryRun: true });
    expect(outcomes.map((outcome, index) => [queues[index]!.queue, outcome.kind])).toEqual(queues.map((queue) => [queue.queue, queue.kind]));
    for (const [index, queue] of queues.entries()) {
      if (queue.function) expect((outcomes[index]!.detail as { function: string }).function, queue.queue).toBe(queue.function);
    }
    // The service's own event without TARGET_ARN goes back on the bus; a schedule's dead letter that is no step's input is refused.
    expect(await replayMessages(event, { dryRun: true })).toEqual([{ message: 1, kind: 'rule-dead-letter', detail: { bus: true, event_type: 'incident.created', published: 0 } }]);
    await expect(replayMessages({ Messages: [withAttributes({ hello: 'world' }, { 'X-Amz-Scheduler-Schedule-Arn': 'arn' })] }, { dryRun: true })).rejects.toThrow(
      "Message 1: a schedule's dead letter that is not an escalation step's input",
    );
  });

  it('answers a mistaken command line with its usage and exit code 2', async () => {
    const run = promisify(execFile);
    const failure = await run(process.execPath, ['--import', 'tsx', 'infra/ops/replay.ts', '--from', '2026-11-23T10:00:00Z'], { env: { ...process.env } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: npm run replay') });
  });
});
