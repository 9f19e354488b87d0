/** The background thread's own server of the local AWS APIs (`serveAwsApis`), driven by the AWS SDK as the functions drive it. */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CreateScheduleCommand, DeleteScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsApis, serveAwsApis } from '../../infra/local/aws/aws-apis.js';
import type { PutEventsEntry } from '../../infra/local/aws/bus.js';
import type { ScheduleRequest } from '../../infra/local/aws/scheduler.js';

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

  it('answers 404 for what it does not serve', async () => {
    const response = await fetch(`${url}/api/incidents`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'No local AWS API at GET /api/incidents' });
  });
});
