/**
 * Outgoing webhooks through the local runtime, with a real receiver process on loopback:
 * management (scopes and team rights, the secret shown once, refused URLs), delivery (signatures
 * a receiver verifies with `standardwebhooks`, retries on the service clock, 410, redeliver,
 * rotation, order per incident, the Slack format), and that a receiver which never answers does
 * not hold up an escalation e-mail.
 */
import { createRequire } from 'node:module';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { queues } from '../../shared/system.js';
import { getMessage, setDeliveryTimeout, setDrainLimit, setFirstSendHold } from '../../shared/webhooks/delivery.js';
import { sign } from '../../shared/webhooks/signing.js';
import { replayWindow } from '../../shared/platform/events/replay.js';
import { Api, awaitMail, dynamodbEndpoint, eventually, settle, uniqueEmail, walk, type User } from '../support/api.js';
import { checkWebhookBody } from '../support/contract.js';
import { createIncident, createMonitor, reportDown, teamWithRoles, type TeamWithRoles } from '../support/teams.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/webhook-receiver.js';
import { within } from '../support/deadlines.js';

const { Webhook } = createRequire(import.meta.url)('standardwebhooks') as typeof import('standardwebhooks');

/**
 * What the receiver answers on a path, in turn (`hang`: never, until released; `late`: 500 once the
 * service clock has moved 10 s, as if the request had taken that long); 204 once the script is spent.
 */
type Answer = number | 'hang' | 'late';
const scripts = new Map<string, Answer[]>();
const hanging: ServerResponse[] = [];
function answer(request: ReceivedRequest, response: ServerResponse) {
  const next = scripts.get(request.path)?.shift() ?? 204;
  if (next === 'hang') hanging.push(response);
  else if (next === 'late') {
    advanceClock(10 * SECOND);
    response.writeHead(500).end('status 500');
  } else response.writeHead(next).end(next >= 400 ? `status ${next}` : '');
}
const at = (path: string) => receiver.requests.filter((request) => request.path === path);
const bodyOf = (request: ReceivedRequest) => JSON.parse(request.body);

let api: Api;
let owner: User;
let receiver: Receiver;
let roles: TeamWithRoles;
let ownMonitor: { id: string };
let teamMonitor: { id: string };

beforeAll(async () => {
  // The runtime lets webhooks reach this machine only on the ports named (LOCAL_WEBHOOK_PORTS): the receiver's.
  receiver = await startReceiver(answer);
  api = await Api.start({ webhookPorts: [receiver.port] });
  [owner, roles] = await Promise.all([api.signUp(uniqueEmail('hooks'), 'Hook Owner'), teamWithRoles(api)]);
  [ownMonitor, teamMonitor] = await Promise.all([
    createMonitor(api, owner, { name: 'Checkout API', failure_threshold: 1 }),
    createMonitor(api, roles.users.MEMBER, { name: 'Team API', team_id: roles.team.id }),
  ]);
});
afterAll(async () => {
  await Promise.all([api.close(), receiver.close()]);
});
// One event at a time in all but the ordering test, which keeps the worker's hold.
beforeEach(() => setFirstSendHold(0));
afterEach(() => {
  resetClock();
  setDeliveryTimeout(undefined);
  setDrainLimit(undefined);
  for (const response of hanging.splice(0)) response.writeHead(204).end();
});

const hookBody = (extra: Record<string, unknown> = {}) => ({ url: `${receiver.origin}/hooks`, events: ['incident.created'], ...extra });

async function createHook(user: User, extra: Record<string, unknown> = {}) {
  const response = await api.request('POST', '/api/webhooks', { token: user.token, body: hookBody(extra) });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.webhook as { id: string; secret: string; status: string };
}

describe('managing webhooks', () => {
  it('shows the secret on create only, and lists, updates and deletes', async () => {
    const created = await createHook(owner, { monitor_id: ownMonitor.id, description: 'Status page' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).toMatchObject({ status: 'enabled', disabled_reason: null, monitor_id: ownMonitor.id, team_id: null, format: 'standard' });

    const got = await api.request('GET', `/api/webhooks/${created.id}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body.webhook).not.toHaveProperty('secret');
    expect(JSON.stringify(got.body)).not.toContain(created.secret);

    const listed = await api.request('GET', '/api/webhooks', { token: owner.token });
    expect(listed.body.webhooks.map((hook: { id: string }) => hook.id)).toContain(created.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);

    const updated = await api.request('PUT', `/api/webhooks/${created.id}`, { token: owner.token, body: { events: ['incident.resolved'], format: 'slack' } });
    expect(updated.status).toBe(200);
    expect(updated.body.webhook).toMatchObject({ events: ['incident.resolved'], format: 'slack' });

    const rotated = await api.request('POST', `/api/webhooks/${created.id}/rotate-secret`, { token: owner.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);

    const deleted = await api.request('DELETE', `/api/webhooks/${created.id}`, { token: owner.token });
    expect(deleted.body).toEqual({ message: 'Webhook deleted' });
    expect((await api.request('GET', `/api/webhooks/${created.id}`, { token: owner.token })).body).toEqual({ error: 'Webhook not found' });
  });

  it("follows the monitor's and the team's rights: MEMBER+ manages, VIEWER reads, outsiders see nothing", async () => {
    const { OWNER, MEMBER, VIEWER, NON_MEMBER } = roles.users;
    const teamHook = await createHook(MEMBER, { team_id: roles.team.id });
    const monitorHook = await createHook(OWNER, { monitor_id: teamMonitor.id });

    for (const id of [teamHook.id, monitorHook.id]) {
      expect((await api.request('GET', `/api/webhooks/${id}`, { token: VIEWER.token })).status).toBe(200);
      expect((await api.request('GET', `/api/webhooks/${id}`, { token: NON_MEMBER.token })).body).toEqual({ error: 'Webhook not found' });
      expect((await api.request('PUT', `/api/webhooks/${id}`, { token: VIEWER.token, body: {} })).body).toEqual({ error: 'Not authorized' });
      expect((await api.request('POST', `/api/webhooks/${id}/test`, { token: VIEWER.token })).body).toEqual({ error: 'Not authorized' });
      expect((await api.request('GET', `/api/webhooks/${id}/deliveries`, { token: VIEWER.token })).status).toBe(200);
      expect((await api.request('GET', `/api/webhooks/${id}/deliveries`, { token: NON_MEMBER.token })).body).toEqual({ error: 'Webhook not found' });
      expect((await api.request('DELETE', `/api/webhooks/${id}`, { token: NON_MEMBER.token })).status).toBe(404);
    }
    const teamList = await api.request('GET', `/api/webhooks?team_id=${roles.team.id}`, { token: VIEWER.token });
    // A team monitor's webhook is the team's: listed to every member, with the team's own (issue 41 §2).
    expect(teamList.body.webhooks.map((hook: { id: string }) => hook.id)).toEqual([monitorHook.id, teamHook.id]);

    expect((await api.request('POST', '/api/webhooks', { token: VIEWER.token, body: hookBody({ team_id: roles.team.id }) })).body).toEqual({ error: 'Not authorized' });
    expect((await api.request('POST', '/api/webhooks', { token: NON_MEMBER.token, body: hookBody({ team_id: roles.team.id }) })).body).toEqual({ error: 'Not a team member' });
    expect((await api.request('POST', '/api/webhooks', { token: VIEWER.token, body: hookBody({ monitor_id: teamMonitor.id }) })).body).toEqual({ error: 'Not authorized' });
    expect((await api.request('POST', '/api/webhooks', { token: NON_MEMBER.token, body: hookBody({ monitor_id: teamMonitor.id }) })).body).toEqual({ error: 'Monitor not found' });
    expect((await api.request('POST', '/api/webhooks', { token: owner.token, body: hookBody({ team_id: crypto.randomUUID() }) })).body).toEqual({ error: 'Team not found' });
    const both = await api.request('POST', '/api/webhooks', { token: owner.token, body: hookBody({ monitor_id: ownMonitor.id, team_id: roles.team.id }) });
    expect(both.body.details).toEqual([{ field: 'team_id', message: 'A webhook covers one monitor (monitor_id) or one team (team_id), not both' }]);
  });

  it("is deleted by the sharing protocol: its creator or the team's OWNER or ADMIN; a MEMBER changes one in place but deletes only their own", async () => {
    const { OWNER, ADMIN, MEMBER } = roles.users;
    const ownersMonitor = await createMonitor(api, OWNER, { name: 'Owner API', team_id: roles.team.id });
    const [adminsTeamHook, membersTeamHook, adminsMonitorHook] = await Promise.all([
      createHook(ADMIN, { team_id: roles.team.id }),
      createHook(MEMBER, { team_id: roles.team.id }),
      createHook(ADMIN, { monitor_id: ownersMonitor.id }),
    ]);
    const remove = (user: User, id: string) => api.request('DELETE', `/api/webhooks/${id}`, { token: user.token });

    for (const id of [adminsTeamHook.id, adminsMonitorHook.id]) {
      // As for a team monitor, policy or schedule: a MEMBER may change it, not delete it.
      expect((await api.request('PUT', `/api/webhooks/${id}`, { token: MEMBER.token, body: { description: 'Renamed' } })).status).toBe(200);
      const refused = await remove(MEMBER, id);
      expect([refused.status, refused.body]).toEqual([403, { error: 'Not authorized' }]);
      expect((await api.request('GET', `/api/webhooks/${id}`, { token: MEMBER.token })).status).toBe(200);
    }
    expect((await remove(MEMBER, membersTeamHook.id)).body).toEqual({ message: 'Webhook deleted' });
    expect((await remove(ADMIN, adminsTeamHook.id)).body).toEqual({ message: 'Webhook deleted' });
    expect((await remove(OWNER, adminsMonitorHook.id)).body).toEqual({ message: 'Webhook deleted' });
  });

  it('refuses every URL class it must not call', async () => {
    const refused: [string, string][] = [
      ['ftp://hooks.example.com/x', 'URL must use https'],
      ['http://hooks.example.com/x', 'URL must use https (plain http only to a loopback address with a port)'],
      ['http://127.0.0.1/x', 'URL must use https (plain http only to a loopback address with a port)'],
      ['https://user:pass@hooks.example.com/x', 'URL must not contain credentials'],
      ['https://10.0.0.1/x', 'URL points to a private address (10.0.0.1)'],
      ['https://192.168.1.20/x', 'URL points to a private address (192.168.1.20)'],
      ['https://169.254.169.254/latest/meta-data', 'URL points to a link-local address (169.254.169.254)'],
      ['https://224.0.0.1/x', 'URL points to a multicast address (224.0.0.1)'],
      ['https://240.0.0.1/x', 'URL points to a reserved address (240.0.0.1)'],
      ['https://[fd00::1]/x', 'URL points to a private address (fd00::1)'],
      ['https://[fe80::1]/x', 'URL points to a link-local address (fe80::1)'],
      ['https://[ff02::1]/x', 'URL points to a multicast address (ff02::1)'],
      ['https://[::ffff:10.0.0.1]/x', 'URL points to a private address (::ffff:a00:1)'],
      ['not a url', 'URL is not valid'],
      // This machine only on the ports named (LOCAL_WEBHOOK_PORTS: here the receiver's): never the runtime's own API, its
      // mailbox or DynamoDB Local, which a webhook's test would otherwise call and read 1 KB back from.
      ...[api.runtime.port, Number(new URL(api.runtime.mailbox.url).port), Number(new URL(dynamodbEndpoint()).port)].map((port): [string, string] => [
        `http://127.0.0.1:${port}/`,
        `URL points to port ${port} of this machine, which LOCAL_WEBHOOK_PORTS does not name (127.0.0.1)`,
      ]),
    ];
    const [none, twice, badDelivery] = await Promise.all([
      api.request('POST', '/api/webhooks', { token: owner.token, body: hookBody({ events: [] }) }),
      api.request('POST', '/api/webhooks', { token: owner.token, body: hookBody({ events: ['incident.created', 'incident.created'] }) }),
      api.request('POST', `/api/webhooks/${crypto.randomUUID()}/deliveries/42/redeliver`, { token: owner.token }),
    ]);
    expect(none.body.details).toEqual([{ field: 'events', message: 'At least one event type is required' }]);
    expect(twice.body.details).toEqual([{ field: 'events', message: 'Event types must not repeat' }]);
    expect(badDelivery.body.details).toEqual([{ field: 'deliveryId', message: 'Must be a delivery id (msg_…)' }]);
    const answers = await Promise.all(refused.map(([url]) => api.request('POST', '/api/webhooks', { token: owner.token, body: hookBody({ url }) })));
    answers.forEach((answer, index) => {
      expect(answer.status, refused[index]![0]).toBe(400);
      expect(answer.body.details, refused[index]![0]).toEqual([{ field: 'url', message: refused[index]![1] }]);
    });
  });
});

/** Moves the service clock past a retry's due time and lets the scheduler and the event flow catch up. */
async function advance(ms: number) {
  advanceClock(ms);
  await api.runtime.scheduler.tick();
  await settle(api);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('delivering', () => {
  it('signs every message so that standardwebhooks verifies it, with the incident as GET returns it', async () => {
    const user = await api.signUp(uniqueEmail('own-hooks'), 'Own Hooks');
    const monitor = await createMonitor(api, user, { name: 'Own API' });
    const hook = await createHook(user, { url: `${receiver.origin}/own`, events: ['incident.created', 'incident.updated', 'incident.resolved'] });
    const incidentId = await createIncident(api, user, monitor.id, 'Checkout down');
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: user.token })).body.incident;
    await settle(api);
    expect((await api.request('PUT', `/api/incidents/${incidentId}`, { token: user.token, body: { severity: 'CRITICAL', title: 'Checkout very down' } })).status).toBe(200);
    await settle(api);
    expect((await api.request('DELETE', `/api/incidents/${incidentId}`, { token: user.token })).status).toBe(200);
    const received = await eventually(async () => at('/own'), (requests) => requests.length >= 3);

    const verifier = new Webhook(hook.secret);
    for (const request of received) expect(verifier.verify(request.body, request.headers as Record<string, string>)).toEqual(bodyOf(request));
    expect(new Set(received.map((request) => request.headers['webhook-id'])).size).toBe(3);
    const [created, updated, resolved] = received.map(bodyOf);
    expect(created).toEqual({ type: 'incident.created', timestamp: incident.created_at, data: { incident } });
    expect(updated.type).toBe('incident.updated');
    expect(updated.data.changes).toEqual({ severity: { from: incident.severity, to: 'CRITICAL' }, title: { from: 'Checkout down', to: 'Checkout very down' } });
    expect(updated.data.incident).toMatchObject({ id: incidentId, severity: 'CRITICAL', title: 'Checkout very down' });
    expect(resolved).toMatchObject({ type: 'incident.resolved', data: { previous_status: 'INVESTIGATING', incident: { id: incidentId, status: 'RESOLVED' } } });
    expect(JSON.stringify(received.map((request) => request.headers))).not.toContain(hook.secret);
  });

  it('retries a timeout, 429 and 5xx on the backoff schedule with one webhook-id, and records every attempt', async () => {
    setDeliveryTimeout(300);
    scripts.set('/retry', [500, 429, 'hang', 200]);
    const monitor = await createMonitor(api, owner, { name: 'Flaky receiver' });
    const hook = await createHook(owner, { url: `${receiver.origin}/retry`, monitor_id: monitor.id });
    await createIncident(api, owner, monitor.id);
    await eventually(async () => at('/retry'), (requests) => requests.length >= 1);
    await settle(api);
    const deliveryId = String(at('/retry')[0]!.headers['webhook-id']);
    const early = await api.request('POST', `/api/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`, { token: owner.token });
    expect(early.status).toBe(409);
    expect(early.body).toEqual({ error: 'Delivery is still pending' });
    // Each step of the schedule (5 s, 5 min, 30 min), lengthened by at most 10 %.
    for (const [step, count] of [[5 * SECOND, 2], [5 * MINUTE, 3], [30 * MINUTE, 4]] as const) {
      expect(at('/retry')).toHaveLength(count - 1);
      await advance(step * 1.1 + SECOND);
      await eventually(async () => at('/retry'), (requests) => requests.length >= count);
      await settle(api);
    }
    const requests = at('/retry');
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    const message = await getMessage(hook.id, String(requests[0]!.headers['webhook-id']));
    expect(message?.state).toBe('succeeded');
    expect(message?.attempts.map((attempt) => attempt.status)).toEqual([500, 429, null, 200]);
    expect(message?.attempts[0]!.response).toBe('status 500');
    expect(message?.attempts[2]!.error).toBe('Timed out after 300 ms');

    const listed = await api.request('GET', `/api/webhooks/${hook.id}/deliveries`, { token: owner.token });
    expect(listed.body.next_cursor).toBeNull();
    expect(listed.body.deliveries).toHaveLength(1);
    expect(listed.body.deliveries[0]).toMatchObject({ id: deliveryId, event_type: 'incident.created', state: 'succeeded', next_attempt_at: null });
    expect(listed.body.deliveries[0].attempts.map((attempt: { status: number | null }) => attempt.status)).toEqual([500, 429, null, 200]);
  });

  it('retries at the precision it claims: 5 s and 5 min through the retry queue to the second, 30 min through the Scheduler (issue 46 §5)', async () => {
    setDeliveryTimeout(300);
    scripts.set('/precise', [500, 500, 500, 200]);
    const monitor = await createMonitor(api, owner, { name: 'Precise receiver' });
    await createHook(owner, { url: `${receiver.origin}/precise`, monitor_id: monitor.id });
    freezeClock();
    await createIncident(api, owner, monitor.id);
    await eventually(async () => at('/precise'), (requests) => requests.length >= 1);
    await settle(api);
    const messageId = String(at('/precise')[0]!.headers['webhook-id']).replace(/^msg_/, '');
    const retries = () => api.runtime.queues.list(queues.webhookRetries.name);
    const schedules = () => api.runtime.scheduler.list().filter((schedule) => schedule.name.startsWith(`whk-${messageId}-`));
    const delayOf = (message: { sentAt: string; visibleAt: string }) => Date.parse(message.visibleAt) - Date.parse(message.sentAt);

    // 5 s (plus at most 10 %), rounded up to the second: due at 5 or 6 s, not at the next minute.
    expect(retries()).toHaveLength(1);
    expect(delayOf(retries()[0]!)).toBeGreaterThanOrEqual(5 * SECOND);
    expect(delayOf(retries()[0]!)).toBeLessThanOrEqual(6 * SECOND);
    expect(schedules()).toEqual([]);
    await advance(4 * SECOND);
    expect(at('/precise')).toHaveLength(1);
    await advance(2 * SECOND);
    await eventually(async () => at('/precise'), (requests) => requests.length >= 2);
    await settle(api);

    // 5 min: still within SQS's 15 minutes.
    expect(retries()).toHaveLength(1);
    expect(delayOf(retries()[0]!)).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(schedules()).toEqual([]);
    await advance(5.5 * MINUTE + SECOND);
    await eventually(async () => at('/precise'), (requests) => requests.length >= 3);
    await settle(api);

    // 30 min: past SQS's limit, a one-time schedule.
    expect(retries()).toEqual([]);
    expect(schedules().map((schedule) => schedule.name)).toEqual([`whk-${messageId}-3`]);
    expect(Date.parse(schedules()[0]!.at) - clock.now().getTime()).toBeGreaterThanOrEqual(30 * MINUTE);
    await advance(33 * MINUTE + SECOND);
    await eventually(async () => at('/precise'), (requests) => requests.length >= 4);
    await settle(api);
    expect(schedules()).toEqual([]);
  });

  it('sends a retry whose due time passed during the attempt at once, never scheduled in the past (issue 46 §5)', async () => {
    scripts.set('/overdue', ['late', 200]);
    const monitor = await createMonitor(api, owner, { name: 'Slow receiver' });
    await createHook(owner, { url: `${receiver.origin}/overdue`, monitor_id: monitor.id });
    freezeClock();
    await createIncident(api, owner, monitor.id);
    await eventually(async () => at('/overdue'), (requests) => requests.length >= 1);
    await settle(api);
    // Due 5 to 5.5 s after the attempt began, which took 10 s: sent now, with no delay.
    const [retry] = api.runtime.queues.list(queues.webhookRetries.name);
    expect(retry && retry.visibleAt).toBe(retry?.sentAt);
    expect(api.runtime.scheduler.list().filter((schedule) => schedule.name.startsWith('whk-'))).toEqual([]);
    await advance(0);
    const requests = await eventually(async () => at('/overdue'), (received) => received.length >= 2);
    expect(requests[1]!.headers['webhook-id']).toBe(requests[0]!.headers['webhook-id']);
  });

  it('disables a webhook at once on 410, and a PUT enables it again', async () => {
    scripts.set('/gone', [410]);
    const monitor = await createMonitor(api, owner, { name: 'Gone receiver' });
    const hook = await createHook(owner, { url: `${receiver.origin}/gone`, monitor_id: monitor.id });
    await createIncident(api, owner, monitor.id);
    const disabled = await eventually(
      async () => (await api.request('GET', `/api/webhooks/${hook.id}`, { token: owner.token })).body.webhook,
      (webhook) => webhook.status === 'disabled',
    );
    expect(disabled.disabled_reason).toBe('The receiver answered 410 Gone');
    const [mail] = await awaitMail(api, owner.email);
    expect(mail!.subject).toBe(`Webhook disabled: ${receiver.origin}/gone`);
    const enabled = await api.request('PUT', `/api/webhooks/${hook.id}`, { token: owner.token, body: {} });
    expect(enabled.body.webhook).toMatchObject({ status: 'enabled', disabled_reason: null });

    // Sent again by hand: the same webhook-id and body, and this time the receiver takes it.
    const [first] = at('/gone');
    const again = await api.request('POST', `/api/webhooks/${hook.id}/deliveries/${first!.headers['webhook-id']}/redeliver`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.body.delivery).toMatchObject({ id: first!.headers['webhook-id'], state: 'succeeded' });
    expect(again.body.delivery.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([410, 204]);
    const [, second] = at('/gone');
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const unknown = await api.request('POST', `/api/webhooks/${hook.id}/deliveries/msg_${crypto.randomUUID()}/redeliver`, { token: owner.token });
    expect(unknown.body).toEqual({ error: 'Delivery not found' });
  });

  it('disables a webhook whose every attempt failed for 3 days, and e-mails its owner', async () => {
    scripts.set('/down', [503, 503, 503]);
    const user = await api.signUp(uniqueEmail('down-owner'), 'Down Owner');
    const monitor = await createMonitor(api, user, { name: 'Down receiver' });
    const hook = await createHook(user, { url: `${receiver.origin}/down`, monitor_id: monitor.id, description: 'Ticketing' });
    await createIncident(api, user, monitor.id);
    await eventually(async () => at('/down'), (requests) => requests.length >= 1);
    await settle(api);
    const read = async () => (await api.request('GET', `/api/webhooks/${hook.id}`, { token: user.token })).body.webhook;
    expect((await read()).status).toBe('enabled');
    // The 5 s retry, run 3 days late: the streak that began with the first attempt is 3 days old.
    await advance(3 * 24 * 60 * MINUTE);
    await eventually(async () => at('/down'), (requests) => requests.length >= 2);
    const disabled = await eventually(read, (webhook) => webhook.status === 'disabled');
    expect(disabled.disabled_reason).toBe('Every delivery failed for 3 days');
    const [mail] = await awaitMail(api, user.email);
    expect(mail!.subject).toBe('Webhook disabled: Ticketing');
  });

  it('sends a ping now and answers its outcome', async () => {
    const hook = await createHook(owner, { url: `${receiver.origin}/ping`, monitor_id: ownMonitor.id });
    const tested = await api.request('POST', `/api/webhooks/${hook.id}/test`, { token: owner.token });
    expect(tested.status).toBe(200);
    expect(tested.body.delivery).toMatchObject({ event_type: 'ping', incident_id: null, state: 'succeeded', attempts: [{ status: 204, error: null }] });
    const [request] = at('/ping');
    expect(new Webhook(hook.secret).verify(request!.body, request!.headers as Record<string, string>)).toMatchObject({
      type: 'ping',
      data: { webhook_id: hook.id },
    });
    expect(request!.headers['webhook-id']).toBe(tested.body.delivery.id);
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Rotating' });
    const hook = await createHook(owner, { url: `${receiver.origin}/rotate`, monitor_id: monitor.id });
    const { secret } = (await api.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token: owner.token })).body;
    await createIncident(api, owner, monitor.id);
    const [request] = await eventually(async () => at('/rotate'), (requests) => requests.length >= 1);
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const key of [secret, hook.secret]) expect(new Webhook(key).verify(request!.body, request!.headers as Record<string, string>)).toEqual(bodyOf(request!));

    advanceClock(24 * 60 * MINUTE + SECOND);
    await createIncident(api, owner, monitor.id);
    const [, later] = await eventually(async () => at('/rotate'), (requests) => requests.length >= 2);
    // (Its timestamp is a day ahead of the real clock, which `verify` refuses: the signature is computed here.)
    const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = later!.headers as Record<string, string>;
    expect(signature).toBe(sign(secret, id!, Number(timestamp), later!.body));
  });

  // 80 requests to set up, then a 60 s wait for 60 deliveries: past the default test timeout.
  it('delivers each incident\'s messages in order while 20 incidents change at once', { timeout: within(120_000) }, async () => {
    setFirstSendHold(undefined);
    const user = await api.signUp(uniqueEmail('order'), 'Order');
    const monitor = await createMonitor(api, user, { name: 'Busy' });
    await createHook(user, { url: `${receiver.origin}/order`, monitor_id: monitor.id, events: ['incident.created', 'incident.updated'] });
    const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => createIncident(api, user, monitor.id, `Incident ${n}`)));
    await Promise.all(
      ids.map(async (id) => {
        await api.request('PUT', `/api/incidents/${id}`, { token: user.token, body: { severity: 'HIGH' } });
        await api.request('PUT', `/api/incidents/${id}`, { token: user.token, body: { title: 'Renamed' } });
      }),
    );
    const received = await eventually(async () => at('/order'), (requests) => requests.length >= 60, 60_000);
    for (const id of ids) {
      const messages = received.map(bodyOf).filter((body) => body.data.incident.id === id);
      expect(messages.map((body) => [body.type, Object.keys(body.data.changes ?? {})]), id).toEqual([
        ['incident.created', []],
        ['incident.updated', ['severity']],
        ['incident.updated', ['title']],
      ]);
    }
  });

  it('goes on, in a scheduled invocation, with a queue an invocation stopped sending at its limit', { timeout: within(120_000) }, async () => {
    // One message per invocation, and every event queued before the first send: the invocations
    // the events started race for the head, one sends it and stops; nothing else would send the rest.
    setDrainLimit(1);
    setFirstSendHold(undefined);
    const user = await api.signUp(uniqueEmail('continue'), 'Continue');
    const monitor = await createMonitor(api, user, { name: 'Long queue' });
    await createHook(user, { url: `${receiver.origin}/continue`, monitor_id: monitor.id, events: ['incident.created', 'incident.updated'] });
    const id = await createIncident(api, user, monitor.id, 'Queued');
    for (const severity of ['HIGH', 'LOW']) {
      const updated = await api.request('PUT', `/api/incidents/${id}`, { token: user.token, body: { severity } });
      expect(updated.status).toBe(200);
    }
    // Each continuation falls due a second later on the service clock (through the retry queue): moved, not waited for.
    const continuations = () => api.runtime.queues.list(queues.webhookRetries.name);
    const received = await eventually(
      async () => {
        if (continuations().length > 0) await advance(2 * SECOND);
        return at('/continue');
      },
      (requests) => requests.length >= 3,
      60_000,
    );
    expect(received.map(bodyOf).map((body) => [body.type, body.data.changes?.severity?.to ?? null])).toEqual([
      ['incident.created', null],
      ['incident.updated', 'HIGH'],
      ['incident.updated', 'LOW'],
    ]);
  });

  it('sends a webhook only what happened while it existed, however late the bus hands an event over', async () => {
    const user = await api.signUp(uniqueEmail('late'), 'Late');
    const monitor = await createMonitor(api, user, { name: 'Before the hook' });
    const from = new Date(Date.now() - 1000);
    await createIncident(api, user, monitor.id, 'Before');
    await settle(api);
    await createHook(user, { url: `${receiver.origin}/late`, monitor_id: monitor.id });
    // The bus hands the earlier event over again, now that the webhook exists (as a backlog or a retry would).
    const replayed = await replayWindow(from, new Date());
    expect(replayed.published).toBeGreaterThan(0);
    await settle(api);
    await createIncident(api, user, monitor.id, 'After');
    const [request] = await eventually(async () => at('/late'), (requests) => requests.length >= 1);
    await settle(api);
    expect(at('/late').map((received) => bodyOf(received).data.incident.title)).toEqual(['After']);
    expect(bodyOf(request!).data.incident.title).toBe('After');
  });

  it('posts the Slack format: text and Block Kit blocks with the incident\'s link, signature headers kept', async () => {
    const monitor = await createMonitor(api, owner, { name: 'Chatty' });
    await createHook(owner, { url: `${receiver.origin}/slack`, monitor_id: monitor.id, format: 'slack' });
    const incidentId = await createIncident(api, owner, monitor.id, 'Payments <down>');
    const [request] = await eventually(async () => at('/slack'), (requests) => requests.length >= 1);
    const body = bodyOf(request!);
    expect(body.text).toContain('New incident: Payments &lt;down&gt;');
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Payments <down>', emoji: false } });
    // The console's incident page (issue 44), not the JSON API's.
    expect(JSON.stringify(body.blocks)).toContain(`<${api.runtime.oidc.consoleOrigin}/incidents/${incidentId}|View incident>`);
    expect(body.text).not.toContain('/api/incidents/');
    expect(request!.headers['webhook-signature']).toMatch(/^v1,/);
  });

  it('never holds up an escalation e-mail while a receiver does not answer', async () => {
    setDeliveryTimeout(60_000);
    scripts.set('/hang', ['hang']);
    const oncall = uniqueEmail('oncall');
    const policy = await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: 'Now', steps: [{ delay_minutes: 0, emails: [oncall] }] } });
    const monitor = await createMonitor(api, owner, { name: 'Paging', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id });
    await createHook(owner, { url: `${receiver.origin}/hang`, monitor_id: monitor.id, events: ['incident.created', 'incident.escalated'] });
    await reportDown(monitor.id);
    await eventually(async () => hanging.length, (count) => count === 1);
    const [page] = await awaitMail(api, oncall);
    expect(page!.subject).toContain('Paging');
    // The webhook request is still open: the page did not wait for it.
    expect(hanging).toHaveLength(1);
  });

  it('sends incident.escalated for each step paged, naming whom it paged (e-mails, a schedule\'s on-call person), as documented', async () => {
    const user = await api.signUp(uniqueEmail('escalated'), 'Escalated');
    const oncall = uniqueEmail('paged');
    const hourly = { name: 'Hourly', start: `${clock.nowIso().slice(0, 13)}:00`, rotation: { type: 'hourly', length: 1 }, members: [user.id] };
    const rota = await api.request('POST', '/api/schedules', { token: user.token, body: { name: 'Rota', time_zone: 'UTC', layers: [hourly] } });
    expect(rota.status, JSON.stringify(rota.body)).toBe(201);
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: user.token,
      body: { name: 'Two steps', steps: [{ delay_minutes: 0, emails: [oncall] }, { delay_minutes: 5, targets: [{ type: 'schedule', id: rota.body.schedule.id }] }] },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const monitor = await createMonitor(api, user, { name: 'Escalating', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id });
    const hook = await createHook(user, { url: `${receiver.origin}/escalated`, monitor_id: monitor.id, events: ['incident.escalated'] });
    const { incident_id: incidentId } = await reportDown(monitor.id);
    await eventually(async () => at('/escalated'), (requests) => requests.length >= 1);
    await settle(api);
    // Step 2 falls due: whoever is on call in the schedule then is paged.
    await advance(5 * MINUTE + SECOND);
    const received = await eventually(async () => at('/escalated'), (requests) => requests.length >= 2);
    expect(received).toHaveLength(2);
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: user.token })).body.incident;
    for (const request of received) {
      const body = bodyOf(request);
      // (Step 2's timestamp is 5 minutes ahead of the real clock, which `verify` refuses: the signature is computed here.)
      const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = request.headers as Record<string, string>;
      expect(signature).toBe(sign(hook.secret, id!, Number(timestamp), request.body));
      // docs/events.md: `{type, timestamp, data: {incident, step: {step_order, delay_minutes, emails}}}`; OpenAPI's webhooks section likewise.
      checkWebhookBody('incident.escalated', body);
      expect(Object.keys(body).sort()).toEqual(['data', 'timestamp', 'type']);
      expect(Object.keys(body.data).sort()).toEqual(['incident', 'step']);
      expect(Object.keys(body.data.incident).sort()).toEqual(Object.keys(incident).sort());
      expect(body.data.incident).toMatchObject({ id: incidentId, monitor_id: monitor.id, title: incident.title, escalation_policy_id: policy.body.escalation_policy.id, acknowledged: false });
    }
    const [first, second] = received.map(bodyOf);
    expect(first).toMatchObject({ type: 'incident.escalated', timestamp: incident.started_at, data: { step: { step_order: 1, delay_minutes: 0, emails: [oncall] } } });
    expect(second.type).toBe('incident.escalated');
    expect(second.data.step).toEqual({ step_order: 2, delay_minutes: 5, emails: [user.email] });
  });

  it('lists deliveries newest first, paged by limit and next_cursor with no overlap and no gap; a bad cursor is a 400 on cursor', async () => {
    const user = await api.signUp(uniqueEmail('listed'), 'Listed');
    const monitor = await createMonitor(api, user, { name: 'Listed' });
    const hook = await createHook(user, { url: `${receiver.origin}/listed`, monitor_id: monitor.id });
    const other = await createHook(user, { url: `${receiver.origin}/listed-other`, monitor_id: monitor.id });
    for (let n = 1; n <= 5; n++) {
      await createIncident(api, user, monitor.id, `Listed ${n}`);
      await eventually(async () => at('/listed'), (requests) => requests.length >= n);
    }
    await settle(api);
    const sent = at('/listed').map((request) => String(request.headers['webhook-id']));
    expect(new Set(sent).size).toBe(5);

    const first = await api.request('GET', `/api/webhooks/${hook.id}/deliveries?limit=2`, { token: user.token });
    expect(first.body.deliveries).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const { items, pages } = await walk<{ id: string; created_at: string }>(api, user.token, `/api/webhooks/${hook.id}/deliveries?limit=2`, 'deliveries');
    // 2 + 2 + 1: every delivery once, newest first, and the last page's next_cursor null (walk stops there).
    expect(pages).toBe(3);
    expect(items.map((delivery) => delivery.id)).toEqual([...sent].reverse());
    expect(items.map((delivery) => delivery.created_at)).toEqual(items.map((delivery) => delivery.created_at).sort().reverse());
    const all = await api.request('GET', `/api/webhooks/${hook.id}/deliveries?limit=5`, { token: user.token });
    expect(all.body.next_cursor).toBeNull();
    expect(all.headers.get('link')).toBeNull();

    // Not a cursor; another list's cursor (the webhooks); another webhook's deliveries' cursor.
    const hooksCursor = (await api.request('GET', '/api/webhooks?limit=1', { token: user.token })).body.next_cursor;
    await eventually(async () => at('/listed-other'), (requests) => requests.length >= 5);
    const otherCursor = (await api.request('GET', `/api/webhooks/${other.id}/deliveries?limit=2`, { token: user.token })).body.next_cursor;
    expect([hooksCursor, otherCursor]).toEqual([expect.any(String), expect.any(String)]);
    const invalid = { error: 'Validation errors', details: [{ field: 'cursor', message: 'Invalid cursor: pass the next_cursor of the previous page of this list, with the same filters' }] };
    for (const cursor of ['abc', hooksCursor, otherCursor]) {
      const refused = await api.request('GET', `/api/webhooks/${hook.id}/deliveries?limit=2&cursor=${encodeURIComponent(cursor)}`, { token: user.token });
      expect(refused.status, cursor).toBe(400);
      expect(refused.body, cursor).toEqual(invalid);
    }
  });

  it('does not hold up one webhook\'s delivery of an event while another webhook\'s receiver hangs', async () => {
    setDeliveryTimeout(60_000);
    scripts.set('/hang-a', ['hang']);
    scripts.set('/hang-c', ['hang']);
    const user = await api.signUp(uniqueEmail('apart'), 'Apart');
    const monitor = await createMonitor(api, user, { name: 'Apart' });
    // The fast one between two that hang, in creation order and in every scope's order: one worker
    // sending them one after another would reach it only after a hang (60 s), past `eventually`'s deadline.
    await createHook(user, { url: `${receiver.origin}/hang-a`, monitor_id: monitor.id });
    await createHook(user, { url: `${receiver.origin}/fast`, monitor_id: monitor.id });
    await createHook(user, { url: `${receiver.origin}/hang-c`, monitor_id: monitor.id });
    const incidentId = await createIncident(api, user, monitor.id, 'Seen by three');
    const [fast] = await eventually(async () => at('/fast'), (requests) => requests.length >= 1);
    expect(bodyOf(fast!).data.incident.id).toBe(incidentId);
    // Both hanging requests are still open: the fast one did not wait for either.
    await eventually(async () => hanging.length, (count) => count === 2);
    expect(at('/hang-a')).toHaveLength(1);
    expect(at('/hang-c')).toHaveLength(1);
  });
});

