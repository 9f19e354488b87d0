/**
 * The Idempotency-Key wrapper alone, around a stub route, against a real table (a DynamoDB Local
 * leased from the run's pool for this file; the variables it sets and its sandbox are put back after).
 * test/http/idempotency.test.ts covers the routes that use it.
 */
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { ensureTable } from '../../../infra/local/aws/table.js';
import { newSandbox } from '../../../shared/platform/sandbox.js';
import { table, TABLE_NAME_ENV } from '../../../shared/system.js';
import { leaseDynamoDb } from '../../../test/support/dynamodb-pool.js';
import { httpEvent } from '../../../infra/testing/events.js';
import { idempotently } from './idempotency.js';
import type { HttpResult } from './types.js';

const tableName = `unit-idempotency-${randomUUID()}`;
let lease: Awaited<ReturnType<typeof leaseDynamoDb>>;
let admin: DynamoDBClient;
beforeAll(async () => {
  lease = await leaseDynamoDb(inject('dynamodbPool'));
  for (const [name, value] of Object.entries({
    AWS_ENDPOINT_URL_DYNAMODB: lease.endpoint,
    AWS_REGION: 'local',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    [TABLE_NAME_ENV]: tableName,
  })) vi.stubEnv(name, value);
  newSandbox();
  admin = new DynamoDBClient({});
  await ensureTable(admin, tableName, table);
});
afterAll(async () => {
  try {
    await admin.send(new DeleteTableCommand({ TableName: tableName }));
  } finally {
    admin.destroy();
    vi.unstubAllEnvs();
    newSandbox();
    await lease.release(0);
  }
});

const alice = { userId: randomUUID() };
const bob = { userId: randomUUID() };
const request = (key: string | undefined, body = '{"title":"Checkout down"}') => {
  const event = httpEvent({ routeKey: 'POST /api/incidents', body });
  if (key !== undefined) event.headers['idempotency-key'] = key;
  return { event, body: JSON.parse(body) as unknown };
};

/** A stub route that answers each of `answers` in turn (an Error is thrown), counting its runs. */
function route(...answers: (HttpResult | Error)[]) {
  const run = vi.fn(async () => {
    const answer = answers[Math.min(run.mock.calls.length - 1, answers.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return answer;
  });
  return run;
}
const created = (id: string): HttpResult => ({ statusCode: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ incident: { id } }) });

describe('idempotently', () => {
  it('runs the route every time for requests without a key', async () => {
    const run = route(created('a'), created('b'));
    const { event, body } = request(undefined);
    expect(await idempotently(event, alice, body, run)).toEqual(created('a'));
    expect(await idempotently(event, alice, body, run)).toEqual(created('b'));
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('keeps a success and replays it for a repeat, marked Idempotent-Replayed, without running the route again', async () => {
    const key = randomUUID();
    const run = route(created('first'), created('second'));
    const first = await idempotently(request(key).event, alice, request(key).body, run);
    expect(first).toEqual(created('first'));
    const again = await idempotently(request(key).event, alice, request(key).body, run);
    expect(again).toEqual({ statusCode: 201, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' }, body: created('first').body });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("keeps a key to its caller: another caller's request with it runs", async () => {
    const key = randomUUID();
    const run = route(created('alice'), created('bob'));
    await idempotently(request(key).event, alice, request(key).body, run);
    expect(await idempotently(request(key).event, bob, request(key).body, run)).toEqual(created('bob'));
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('gives the key up after a refusal, so a retry runs again', async () => {
    const key = randomUUID();
    const refused: HttpResult = { statusCode: 409, body: '{"error":"Monitor is being moved"}' };
    const run = route(refused, created('later'));
    expect(await idempotently(request(key).event, alice, request(key).body, run)).toEqual(refused);
    expect(await idempotently(request(key).event, alice, request(key).body, run)).toEqual(created('later'));
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('gives the key up when the route throws, and passes the error on', async () => {
    const key = randomUUID();
    const run = route(new Error('table unavailable'), created('after'));
    await expect(idempotently(request(key).event, alice, request(key).body, run)).rejects.toThrow('table unavailable');
    expect(await idempotently(request(key).event, alice, request(key).body, run)).toEqual(created('after'));
  });

  it('refuses the key with another request: 422, the route not run', async () => {
    const key = randomUUID();
    const run = route(created('only'));
    await idempotently(request(key).event, alice, request(key).body, run);
    const other = request(key, '{"title":"Another title"}');
    await expect(idempotently(other.event, alice, other.body, run)).rejects.toMatchObject({ statusCode: 422, message: 'Idempotency key reused with a different request' });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('refuses a malformed key with 400 before claiming or running anything', async () => {
    const run = route(created('never'));
    const { event, body } = request('');
    await expect(idempotently(event, alice, body, run)).rejects.toMatchObject({
      statusCode: 400,
      details: [{ field: 'Idempotency-Key', message: 'Must be 1 to 255 printable ASCII characters' }],
    });
    expect(run).not.toHaveBeenCalled();
  });
});
