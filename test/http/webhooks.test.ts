/**
 * Outgoing webhooks through the local runtime, with a real receiver process on loopback:
 * management (scopes and team rights, the secret shown once, refused URLs), delivery (signatures
 * a receiver verifies with `standardwebhooks`, retries on the service clock, 410, redeliver,
 * rotation, order per incident, the Slack format), and that a receiver which never answers does
 * not hold up an escalation e-mail.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetClock } from '../../shared/clock.js';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { createMonitor, teamWithRoles, type TeamWithRoles } from '../support/teams.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

let api: Api;
let owner: User;
let receiver: Receiver;
let roles: TeamWithRoles;
let ownMonitor: { id: string };
let teamMonitor: { id: string };

beforeAll(async () => {
  [api, receiver] = await Promise.all([Api.start(), startReceiver()]);
  [owner, roles] = await Promise.all([api.signUp(uniqueEmail('hooks'), 'Hook Owner'), teamWithRoles(api)]);
  [ownMonitor, teamMonitor] = await Promise.all([
    createMonitor(api, owner, { name: 'Checkout API', failure_threshold: 1 }),
    createMonitor(api, roles.users.MEMBER, { name: 'Team API', team_id: roles.team.id }),
  ]);
});
afterAll(async () => {
  await Promise.all([api.close(), receiver.close()]);
});
afterEach(() => resetClock());

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
      expect((await api.request('DELETE', `/api/webhooks/${id}`, { token: NON_MEMBER.token })).status).toBe(404);
    }
    const teamList = await api.request('GET', `/api/webhooks?team_id=${roles.team.id}`, { token: VIEWER.token });
    expect(teamList.body.webhooks.map((hook: { id: string }) => hook.id)).toEqual([teamHook.id]);

    expect((await api.request('POST', '/api/webhooks', { token: VIEWER.token, body: hookBody({ team_id: roles.team.id }) })).body).toEqual({ error: 'Not authorized' });
    expect((await api.request('POST', '/api/webhooks', { token: NON_MEMBER.token, body: hookBody({ team_id: roles.team.id }) })).body).toEqual({ error: 'Not a team member' });
    expect((await api.request('POST', '/api/webhooks', { token: VIEWER.token, body: hookBody({ monitor_id: teamMonitor.id }) })).body).toEqual({ error: 'Not authorized' });
    expect((await api.request('POST', '/api/webhooks', { token: NON_MEMBER.token, body: hookBody({ monitor_id: teamMonitor.id }) })).body).toEqual({ error: 'Monitor not found' });
    expect((await api.request('POST', '/api/webhooks', { token: owner.token, body: hookBody({ team_id: crypto.randomUUID() }) })).body).toEqual({ error: 'Team not found' });
    const both = await api.request('POST', '/api/webhooks', { token: owner.token, body: hookBody({ monitor_id: ownMonitor.id, team_id: roles.team.id }) });
    expect(both.body.details).toEqual([{ field: 'team_id', message: 'A webhook covers one monitor (monitor_id) or one team (team_id), not both' }]);
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
    ];
    const answers = await Promise.all(refused.map(([url]) => api.request('POST', '/api/webhooks', { token: owner.token, body: hookBody({ url }) })));
    answers.forEach((answer, index) => {
      expect(answer.status, refused[index]![0]).toBe(400);
      expect(answer.body.details, refused[index]![0]).toEqual([{ field: 'url', message: refused[index]![1] }]);
    });
  });
});
