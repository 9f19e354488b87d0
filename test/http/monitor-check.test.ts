/** The monitor-check function, invoked through the local Lambda Invoke API as the monitoring system would. */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { queryCollection } from '../../shared/platform/db/ops.js';
import { keys } from '../../shared/platform/db/keys.js';

let api: Api;
let owner: User;
let lambda: LambdaClient;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('checker'));
  lambda = new LambdaClient({ endpoint: api.url, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});
afterAll(async () => {
  lambda.destroy();
  await api.close();
});

async function check(payload: unknown) {
  const result = await lambda.send(
    new InvokeCommand({ FunctionName: 'monitor-check', Payload: new TextEncoder().encode(JSON.stringify(payload)) }),
  );
  expect(result.FunctionError).toBeUndefined();
  return JSON.parse(new TextDecoder().decode(result.Payload));
}

async function monitor(body: Record<string, unknown> = {}) {
  const response = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Checkout', ...body } });
  expect(response.status).toBe(201);
  return response.body.monitor as { id: string; name: string };
}

const down = (monitorId: string, consecutiveFailures: number) => ({
  monitorId,
  status: 'down',
  consecutiveFailures,
  checkedAt: new Date().toISOString(),
  message: 'HTTP 503 from /health',
});
const up = (monitorId: string) => ({ monitorId, status: 'up', consecutiveFailures: 0, checkedAt: new Date().toISOString() });

const incidentsOf = async (monitorId: string) =>
  ((await api.request('GET', '/api/incidents', { token: owner.token })).body.incidents as { monitor_id: string; id: string; status: string }[]).filter(
    (incident) => incident.monitor_id === monitorId,
  );

describe('monitor-check', () => {
  it('opens nothing at the threshold and one incident beyond it', async () => {
    const m = await monitor({ failure_threshold: 3 });
    expect(await check(down(m.id, 3))).toEqual({ ok: true, outcome: 'below_threshold' });
    expect(await incidentsOf(m.id)).toEqual([]);
    const opened = await check(down(m.id, 4));
    expect(opened).toEqual({ ok: true, outcome: 'incident_opened', incident_id: expect.any(String) });
    const incident = (await api.request('GET', `/api/incidents/${opened.incident_id}`, { token: owner.token })).body.incident;
    expect(incident).toMatchObject({
      monitor_id: m.id,
      monitor_name: 'Checkout',
      title: 'Checkout is down',
      status: 'INVESTIGATING',
      severity: 'HIGH',
      acknowledged: false,
      resolved_at: null,
      escalation_policy_id: null,
    });
    expect(await check(down(m.id, 9))).toEqual({ ok: true, outcome: 'incident_already_open', incident_id: opened.incident_id });
  });

  it('opens exactly one incident for 10 concurrent down-checks', async () => {
    const m = await monitor({ failure_threshold: 1 });
    const results = await Promise.all(Array.from({ length: 10 }, () => check(down(m.id, 5))));
    expect(results.filter((result) => result.outcome === 'incident_opened')).toHaveLength(1);
    expect(new Set(results.map((result) => result.incident_id)).size).toBe(1);
    expect(await incidentsOf(m.id)).toHaveLength(1);
  });

  it('resolves the open incident on recovery, once', async () => {
    const m = await monitor({ failure_threshold: 1 });
    const { incident_id } = await check(down(m.id, 2));
    expect(await check(up(m.id))).toEqual({ ok: true, outcome: 'incident_resolved', incident_id });
    const incident = (await api.request('GET', `/api/incidents/${incident_id}`, { token: owner.token })).body.incident;
    expect(incident.status).toBe('RESOLVED');
    expect(incident.resolved_at).toEqual(expect.any(String));
    expect(await check(up(m.id))).toEqual({ ok: true, outcome: 'no_open_incident' });
  });

  it('lets manual resolution win: never reopened, a later failure opens a new incident', async () => {
    const m = await monitor({ failure_threshold: 1 });
    const first = await check(down(m.id, 2));
    const resolved = await api.request('PUT', `/api/incidents/${first.incident_id}`, { token: owner.token, body: { status: 'RESOLVED' } });
    const resolvedAt = resolved.body.incident.resolved_at;
    expect(await check(up(m.id))).toMatchObject({ ok: true, outcome: 'no_open_incident' });
    const second = await check(down(m.id, 2));
    expect(second.outcome).toBe('incident_opened');
    expect(second.incident_id).not.toBe(first.incident_id);
    const old = (await api.request('GET', `/api/incidents/${first.incident_id}`, { token: owner.token })).body.incident;
    expect(old).toMatchObject({ status: 'RESOLVED', resolved_at: resolvedAt });
    // DELETE resolves too, and the next failure again opens a new incident.
    await api.request('DELETE', `/api/incidents/${second.incident_id}`, { token: owner.token });
    expect((await check(down(m.id, 2))).outcome).toBe('incident_opened');
    expect(await incidentsOf(m.id)).toHaveLength(3);
  });

  it('never auto-resolves a manual incident', async () => {
    const m = await monitor({ failure_threshold: 1 });
    const manual = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: m.id, title: 'Maintenance' } });
    expect(await check(up(m.id))).toEqual({ ok: true, outcome: 'no_open_incident' });
    const still = await api.request('GET', `/api/incidents/${manual.body.incident.id}`, { token: owner.token });
    expect(still.body.incident.status).toBe('INVESTIGATING');
  });

  it.each([
    [{}, 'monitorId'],
    [{ monitorId: 'nope', status: 'down', consecutiveFailures: 1, checkedAt: new Date().toISOString() }, 'monitorId'],
    [{ monitorId: randomUUID(), status: 'sideways', consecutiveFailures: 1, checkedAt: new Date().toISOString() }, 'status'],
    [{ monitorId: randomUUID(), status: 'down', consecutiveFailures: -1, checkedAt: new Date().toISOString() }, 'consecutiveFailures'],
    [{ monitorId: randomUUID(), status: 'down', consecutiveFailures: 1.5, checkedAt: new Date().toISOString() }, 'consecutiveFailures'],
    [{ monitorId: randomUUID(), status: 'down', consecutiveFailures: 1, checkedAt: 'yesterday' }, 'checkedAt'],
  ])('answers a clear error result for an invalid payload %j, writing nothing', async (payload, field) => {
    const result = await check(payload);
    expect(result.ok).toBe(false);
    expect(result.error).toBe('Validation errors');
    expect(result.details).toContainEqual(expect.objectContaining({ field }));
  });

  it('answers Monitor not found for an unknown monitor, writing nothing', async () => {
    const monitorId = randomUUID();
    expect(await check(down(monitorId, 99))).toEqual({ ok: false, error: 'Monitor not found' });
    expect(await queryCollection(keys.monitorPartition(monitorId))).toEqual([]);
  });

  it('is reachable with `npm run invoke` semantics: an unknown function is a 404', async () => {
    const response = await fetch(`${api.url}/2015-03-31/functions/nope/invocations`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
  });
});
