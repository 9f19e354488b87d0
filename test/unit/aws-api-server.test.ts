/** The background thread's own server of the local AWS APIs (`serveAwsApis`), driven by the AWS SDK as the functions drive it. */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CreateScheduleCommand, DeleteScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsApis, serveAwsApis } from '../../infra/local/aws/aws-apis.js';
import type { PutEventsEntry } from '../../infra/local/aws/bus.js';
import { LocalQueues } from '../../infra/local/aws/queue.js';
import type { ScheduleRequest } from '../../infra/local/aws/scheduler.js';
import { advanceClock, freezeClock, resetClock } from '../../shared/platform/clock.js';

/** The local queues, their consumer failing while `failing` is set. */
const consumed: { functionName: string; event: { Records: { body: string; eventSource: string }[] } }[] = [];
let failing = false;
const queues = new LocalQueues({
  invoke: async (functionName, event) => {
    if (failing) throw new Error('consumer down');
    consumed.push({ functionName, event: event as (typeof consumed)[number]['event'] });
  },
  queues: [{ name: 'retries', consumer: 'webhook-delivery', producers: ['webhook-delivery'], urlEnv: 'UNUSED', visibilityTimeoutSeconds: 60, maxReceiveCount: 2 }],
});

const published: PutEventsEntry[] = [];
const schedules = new Map<string, ScheduleRequest>();
const server = serveAwsApis(
  awsApis({
    background: {
      putEvents: (entries) => {
        published.push(...entries);
        return { FailedEntryCount: 0, Entries: entries.map((_, index) => ({ EventId: `event-${index}` })) };
      },
      createSchedule: (name, request) => {
        schedules.set(name, request);
        return { ScheduleArn: `arn:aws:scheduler:local:000000000000:schedule/default/${name}` };
      },
      deleteSchedule: (name) => {
        if (!schedules.delete(name)) throw Object.assign(new Error(`Schedule ${name} does not exist.`), { name: 'ResourceNotFoundException' });
      },
      sendMessage: (queueUrl, body, delaySeconds) => queues.send(queueUrl, body, delaySeconds),
    },
    mailboxUrl: 'http://127.0.0.1:9',
  }),
);
let url = '';
const sdk = { region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('serveAwsApis', () => {
  it('hands PutEvents to the background and answers as EventBridge does', async () => {
    const client = new EventBridgeClient({ ...sdk, endpoint: url });
    const answer = await client.send(new PutEventsCommand({ Entries: [{ EventBusName: 'bus', Source: 'test', DetailType: 'thing.happened', Detail: '{"a":1}' }] }));
    expect(answer).toMatchObject({ FailedEntryCount: 0, Entries: [{ EventId: 'event-0' }] });
    expect(published).toEqual([{ EventBusName: 'bus', Source: 'test', DetailType: 'thing.happened', Detail: '{"a":1}' }]);
    client.destroy();
  });

  it("creates and deletes schedules, with the scheduler's errors", async () => {
    const client = new SchedulerClient({ ...sdk, endpoint: url });
    const created = await client.send(
      new CreateScheduleCommand({
        Name: 'esc-1',
        ScheduleExpression: 'at(2026-11-23T23:00:00)',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { Arn: 'arn:aws:lambda:local:000000000000:function:escalation-step', RoleArn: 'arn:aws:iam::000000000000:role/local' },
      }),
    );
    expect(created.ScheduleArn).toMatch(/schedule\/default\/esc-1$/);
    expect(schedules.get('esc-1')).toMatchObject({ ScheduleExpression: 'at(2026-11-23T23:00:00)' });
    await client.send(new DeleteScheduleCommand({ Name: 'esc-1' }));
    await expect(client.send(new DeleteScheduleCommand({ Name: 'esc-1' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    client.destroy();
  });

  it('takes SendMessage as SQS does and hands each message to the consumer once its delay has passed on the service clock (issue 46 §5)', async () => {
    const client = new SQSClient({ ...sdk, endpoint: url });
    freezeClock();
    try {
      const sent = await client.send(new SendMessageCommand({ QueueUrl: `${url}/000000000000/retries`, MessageBody: '{"n":1}', DelaySeconds: 5 }));
      expect(sent.MessageId).toEqual(expect.any(String));
      await queues.deliverDue();
      expect(consumed).toHaveLength(0);
      advanceClock(4_999);
      await queues.deliverDue();
      expect(consumed).toHaveLength(0);
      advanceClock(1);
      await queues.deliverDue();
      expect(consumed).toEqual([{ functionName: 'webhook-delivery', event: { Records: [expect.objectContaining({ body: '{"n":1}', eventSource: 'aws:sqs' })] } }]);
      await expect(client.send(new SendMessageCommand({ QueueUrl: `${url}/000000000000/retries`, MessageBody: '{}', DelaySeconds: 901 }))).rejects.toMatchObject({
        message: 'Value 901 for parameter DelaySeconds is invalid. Reason: must be between 0 and 900.',
      });
      await expect(client.send(new SendMessageCommand({ QueueUrl: `${url}/000000000000/nowhere`, MessageBody: '{}' }))).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
      // A failing consumer: back after the visibility timeout, then a dead letter after maxReceiveCount receives.
      failing = true;
      await client.send(new SendMessageCommand({ QueueUrl: `${url}/000000000000/retries`, MessageBody: '{"n":2}' }));
      await queues.deliverDue();
      expect(queues.list()).toHaveLength(1);
      advanceClock(60_000);
      await queues.deliverDue();
      expect(queues.list()).toHaveLength(0);
      expect(queues.deadLetters.map((message) => [message.body, message.receives])).toEqual([['{"n":2}', 2]]);
    } finally {
      failing = false;
      resetClock();
      client.destroy();
    }
  });

  it('answers 404 for what it does not serve', async () => {
    const response = await fetch(`${url}/api/incidents`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'No local AWS API at GET /api/incidents' });
  });
});
