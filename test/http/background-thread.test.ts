/**
 * The runtime as `npm start` runs it (`startService`): the background in a worker thread with its
 * own AWS APIs, and the calls of every function invocation recorded in either thread on request.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../infra/local/perf/service.js';
import { BACKGROUND_NICE } from '../../infra/local/perf/priority.js';
import { TABLE_NAME_ENV } from '../../shared/system.js';
import { db } from '../../shared/platform/db/client.js';
import { confirmFromMailbox, pagingMonitor } from '../../infra/testing/scenarios.js';
import { dynamodbEndpoint } from '../support/api.js';
import { within } from '../support/deadlines.js';

let service: Service;
let token: string;

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return response.json() as Promise<any>;
};

beforeAll(async () => {
  service = await startService({ port: 0, dynamodbEndpoint: dynamodbEndpoint(), tableName: process.env[TABLE_NAME_ENV], sesPort: 0, pollMs: 50, log: () => undefined });
  token = (await call('POST', '/local/users', { email: `thread-${randomUUID()}@example.com`, name: 'Thread' })).token;
});
afterAll(() => service.close());

describe('startService', () => {
  // Two waits on the background thread (the confirmation, 30 s at most, then the down check's mail).
  it("records the calls of a down check's whole path: monitor-check here, the notifier's in the background thread", { timeout: within(120_000) }, async () => {
    const confirm = confirmFromMailbox(() => service.mailbox.emails(), (path) => fetch(`${service.url}${path}`, { method: 'POST' }));
    const { tag, subscriber, oncall, monitorId } = await pagingMonitor(call, confirm);
    await service.idle();

    // What reaches the gateway's thread (Node reports every request an HTTP server of this thread takes).
    const gateway: string[] = [];
    const served = (message: unknown) => {
      const { request } = message as { request: IncomingMessage };
      if (request.headers.host?.endsWith(`:${service.port}`)) gateway.push(`${request.method} ${request.url} ${request.headers['x-amz-target'] ?? request.headers['content-type'] ?? ''}`);
    };
    subscribe('http.server.request.start', served);
    let calls: Awaited<ReturnType<Service['recordedCalls']>>;
    try {
      await service.recordCalls();
      const lambda = new LambdaClient({ endpoint: service.url, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
      const payload = { monitorId, status: 'down', consecutiveFailures: 2, checkedAt: new Date().toISOString() };
      await lambda.send(new InvokeCommand({ FunctionName: 'monitor-check', Payload: new TextEncoder().encode(JSON.stringify(payload)) }));
      lambda.destroy();
      let delivered: string[] = [];
      for (const deadline = Date.now() + within(60_000); delivered.length < 2 && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
        // The down check's mail (the subscription's confirmation came before it).
        delivered = (await service.mailbox.emails())
          .filter((email) => !email.subject.startsWith('Confirm your subscription'))
          .flatMap((email) => email.destination.to)
          .filter((to) => to.includes(tag));
      }
      expect(delivered.sort()).toEqual([oncall, subscriber].sort());
      await service.idle();
    } finally {
      calls = await service.recordedCalls();
      unsubscribe('http.server.request.start', served);
    }
    // The invocation alone: the notifier's SendEmail and the publisher's PutEvents go to the background thread's own APIs.
    expect(gateway).toEqual([expect.stringMatching(/^POST \/2015-03-31\/functions\/monitor-check\/invocations/)]);

    const transaction = calls.find((entry) => entry.functionName === 'monitor-check' && entry.command === 'TransactWriteItemsCommand');
    expect(transaction).toMatchObject({ service: 'DynamoDB', input: { TransactItems: expect.any(Array) } });
    const sends = calls.filter((entry) => entry.service === 'SES');
    expect(sends.map((entry) => entry.functionName)).toEqual(['notifier', 'notifier']);
    expect(sends.flatMap((entry) => (entry.input as { Destination: { ToAddresses: string[] } }).Destination.ToAddresses).sort()).toEqual([oncall, subscriber].sort());
    // One clock for both threads: the notifier's calls begin after the transaction that led to them ended.
    const background = calls.filter((entry) => entry.functionName !== 'monitor-check');
    expect(background.length).toBeGreaterThan(2);
    for (const entry of background) expect(entry.startedAt).toBeGreaterThan(transaction!.endedAt);
  });

  it.runIf(existsSync('/proc/self/task') && getPriority(process.pid) < BACKGROUND_NICE)('runs the background thread at a lower priority than the gateway\'s (Linux)', () => {
    const nice = readdirSync('/proc/self/task').map((threadId) => getPriority(Number(threadId)));
    expect(nice).toContain(BACKGROUND_NICE);
    expect(getPriority(process.pid)).toBeLessThan(BACKGROUND_NICE);
  });

  it("records a request's calls while recording, and takes its middleware off the clients when it stops", async () => {
    const recorder = () => db().middlewareStack.identify().filter((name) => name.startsWith('localCallRecorder'));
    expect(recorder()).toEqual([]);
    await service.recordCalls();
    expect(recorder()).toHaveLength(1);
    await call('GET', '/api/incidents?limit=5');
    const recorded = await service.recordedCalls();
    expect(recorded.map((entry) => `${entry.functionName} ${entry.command}`)).toContain('incidents-list QueryCommand');
    expect(recorder()).toEqual([]);
  });
});
