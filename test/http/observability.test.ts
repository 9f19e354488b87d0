/**
 * Logs and metrics as operators see them: one structured line per request (route, status,
 * latency, request id, caller id, cold start), business metrics as CloudWatch EMF, masked
 * e-mail addresses, and never a token — checked on everything the functions print.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Api, awaitMail, eventually, settle, uniqueEmail, type User, subscribeConfirmed } from '../support/api.js';
import { captureLogs } from '../support/logs.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

// Before any handler module loads (they load on the first request): log and emit metrics.
vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');

let api: Api;
let receiver: Receiver;
let alice: User;
let bob: User;
let printed: string[];
let jsonLines: () => Record<string, any>[];

beforeAll(async () => {
  ({ printed, jsonLines } = captureLogs());
  receiver = await startReceiver((request, response) => response.writeHead(request.path === '/fail' ? 500 : 204).end(request.path === '/fail' ? 'nope' : ''));
  api = await Api.start({ webhookPorts: [receiver.port] });
  alice = await api.signUp(uniqueEmail('alice.observed'), 'Alice');
  bob = await api.signUp(uniqueEmail('bob.observed'), 'Bob');
});
afterAll(async () => {
  await api.close();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});


describe('observability', () => {
  let inviteToken = '';
  let subscriber = '';

  beforeAll(async () => {
    const monitor = (await api.request('POST', '/api/monitors', { token: alice.token, body: { name: 'Observed' } })).body.monitor;
    subscriber = uniqueEmail('watcher');
    await subscribeConfirmed(api, alice.token, monitor.id, subscriber);
    const incident = (await api.request('POST', '/api/incidents', { token: alice.token, body: { monitorId: monitor.id, title: 'Seen' } })).body.incident;
    await api.request('POST', `/api/incidents/${incident.id}/acknowledge`, { token: alice.token, body: { method: 'api' } });
    await api.request('DELETE', `/api/incidents/${incident.id}`, { token: alice.token });
    const team = (await api.request('POST', '/api/teams', { token: alice.token, body: { name: 'Obs', slug: `obs-${Date.now()}` } })).body.team;
    inviteToken = (await api.request('POST', `/api/teams/${team.id}/invite`, { token: alice.token, body: { email: bob.email, role: 'VIEWER' } })).body.invite.token;
    await api.request('POST', `/api/teams/invites/${inviteToken}/accept`, { token: bob.token });
    await api.request('GET', `/api/incidents/${incident.id}`, { token: bob.token });
    await awaitMail(api, subscriber, 2);
    await awaitMail(api, bob.email, 1);
    await settle(api);
  });

  it('logs one structured line per request: route, status, latency, request id, caller id, cold start', () => {
    const requests = jsonLines().filter((line) => line.message === 'invocation' && String(line.operation).includes('/api/'));
    const create = requests.find((line) => line.operation === 'POST /api/incidents')!;
    expect(create).toMatchObject({
      level: 'INFO',
      service: 'incident-service',
      status: 201,
      latency_ms: expect.any(Number),
      request_id: expect.any(String),
      caller_id: alice.id,
      cold_start: true,
      function_name: 'incidents-create',
    });
    // The first invocation of each function is its cold start.
    const gets = requests.filter((line) => line.operation === 'GET /api/incidents/{id}');
    expect(gets[0]).toMatchObject({ cold_start: true });
    expect(gets[0]).toMatchObject({ status: 404, caller_id: bob.id });
    expect(requests.map((line) => line.operation)).toContain('POST /api/teams/invites/{token}/accept');
    // Workers log too.
    expect(jsonLines().some((line) => line.operation === 'notifier' && /^sent /.test(line.status))).toBe(true);
  });

  it('never prints a token or an Authorization header, and masks e-mail addresses', () => {
    const all = printed.join('');
    for (const secret of [alice.token, bob.token, inviteToken, 'Bearer ', 'authorization']) expect(all).not.toContain(secret);
    for (const email of [alice.email, bob.email, subscriber]) expect(all).not.toContain(email);
  });

  it('emits the business metrics as CloudWatch EMF with their dimensions', () => {
    const metrics = jsonLines()
      .filter((line) => line._aws?.CloudWatchMetrics)
      .flatMap((line) =>
        line._aws.CloudWatchMetrics[0].Metrics.map((metric: { Name: string }) => ({
          name: metric.Name,
          namespace: line._aws.CloudWatchMetrics[0].Namespace,
          dimensions: Object.fromEntries(line._aws.CloudWatchMetrics[0].Dimensions.flat().map((name: string) => [name, line[name]])),
        })),
      );
    const find = (name: string) => metrics.filter((metric) => metric.name === name);
    expect(find('IncidentCreated')[0]).toMatchObject({ namespace: 'IncidentService', dimensions: { kind: 'manual', service: 'incident-service' } });
    expect(find('IncidentAcknowledged')[0]?.dimensions).toMatchObject({ method: 'api' });
    expect(find('IncidentResolved')).toHaveLength(1);
    expect(find('InviteCreated')).toHaveLength(1);
    expect(find('InviteAccepted')).toHaveLength(1);
    expect(find('NotificationSent').map((metric) => metric.dimensions.kind).sort()).toEqual(['confirmation', 'invite', 'subscriber', 'subscriber']);
    expect(find('ColdStart').length).toBeGreaterThan(0);
  });

  it('answers every request with x-request-id', async () => {
    for (const [method, path] of [['GET', '/api/incidents'], ['GET', '/api/incidents/not-a-uuid']] as const) {
      const response = await api.request(method, path, { token: alice.token });
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers.get('x-request-id')).toBe(response.headers.get('apigw-requestid'));
    }
  });
});

describe('webhook signing secrets', () => {
  it('never appear in what the functions print: create, deliveries (signed with both after a rotation), rotate-secret, a failing test', async () => {
    try {
      const monitor = (await api.request('POST', '/api/monitors', { token: alice.token, body: { name: 'Hooked' } })).body.monitor;
      const created = await api.request('POST', '/api/webhooks', { token: alice.token, body: { url: `${receiver.origin}/ok`, events: ['incident.created'], monitor_id: monitor.id } });
      expect(created.status).toBe(201);
      const hook = created.body.webhook as { id: string; secret: string };
      const okCount = () => receiver.requests.filter((request) => request.path === '/ok').length;
      await api.request('POST', '/api/incidents', { token: alice.token, body: { monitorId: monitor.id, title: 'Delivered' } });
      await eventually(async () => okCount(), (count) => count === 1);
      const rotated = await api.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token: alice.token });
      expect(rotated.status).toBe(200);
      const secrets = [hook.secret, rotated.body.secret as string];
      // Signed with both now, by the worker and by a test.
      await api.request('POST', '/api/incidents', { token: alice.token, body: { monitorId: monitor.id, title: 'Delivered again' } });
      await eventually(async () => okCount(), (count) => count === 2);
      expect((await api.request('POST', `/api/webhooks/${hook.id}/test`, { token: alice.token })).body.delivery.state).toBe('succeeded');
      expect(String(receiver.requests.at(-1)!.headers['webhook-signature']).split(' ')).toHaveLength(2);
      await api.request('PUT', `/api/webhooks/${hook.id}`, { token: alice.token, body: { url: `${receiver.origin}/fail` } });
      expect((await api.request('POST', `/api/webhooks/${hook.id}/test`, { token: alice.token })).body.delivery.state).toBe('failed');
      await settle(api);

      // The functions did log all of it (so the check below looks at something).
      const operations = new Set(jsonLines().map((line) => line.operation));
      for (const operation of ['POST /api/webhooks', 'POST /api/webhooks/{id}/rotate-secret', 'POST /api/webhooks/{id}/test', 'PUT /api/webhooks/{id}', 'webhook-delivery']) {
        expect(operations, operation).toContain(operation);
      }
      const all = printed.join('');
      for (const secret of secrets) {
        expect(all).not.toContain(secret);
        // Nor its key alone (the base64 after `whsec_`), nor that key's bytes in hex.
        const key = secret.slice('whsec_'.length);
        expect(all).not.toContain(key);
        expect(all).not.toContain(Buffer.from(key, 'base64').toString('hex'));
      }
    } finally {
      await receiver.close();
    }
  });
});

