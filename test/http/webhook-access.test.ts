/**
 * Issue 41 §2, §7, §8 (first part): what a removed team member keeps through what they created, the
 * webhook limits, and URLs shown as hints.
 * - A team monitor's webhook is the team's: listed to whoever may read the monitor (never in its
 *   creator's own list once they cannot), and it delivers only while its creator may still read what
 *   it sends (checked by the database before each message), else it is disabled
 *   (`creator_lost_access`) until someone who may manage it enables it again, becoming its creator.
 * - Integrations a removed member created keep working, named in the removal's answer and marked
 *   `created_by_left` in the monitor's list.
 * - At most 10 webhooks per monitor, 50 per team and 50 per account, counted in the creating transaction.
 * - Read forms show a webhook's URL as a hint; only the creating response shows it in full.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { setFirstSendHold } from '../../shared/webhooks/delivery.js';
import { Api, eventually, settle, uniqueEmail, type User } from '../support/api.js';
import { createIncident, createMonitor, createTeam, join, teamWithRoles } from '../support/teams.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { LOST_ACCESS_TEXT } from '../../shared/webhooks/deliveries.js';

let api: Api;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  api = await Api.start({ webhookPorts: [receiver.port] });
});
afterAll(async () => {
  await Promise.all([api.close(), receiver.close()]);
});
beforeEach(() => setFirstSendHold(0));

const at = (path: string) => receiver.requests.filter((request) => request.path === path);
const ids = (response: { body: { webhooks: { id: string }[] } }) => response.body.webhooks.map((hook) => hook.id);
const list = (user: User, teamId?: string) => api.request('GET', `/api/webhooks${teamId ? `?team_id=${teamId}` : ''}`, { token: user.token });
const getHook = (user: User, id: string) => api.request('GET', `/api/webhooks/${id}`, { token: user.token });

async function createHook(user: User, path: string, extra: Record<string, unknown>) {
  const response = await api.request('POST', '/api/webhooks', { token: user.token, body: { url: `${receiver.origin}${path}`, events: ['incident.created'], ...extra } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.webhook as { id: string; url: string; owner_id: string };
}

/** The webhook's one delivery, once it is no longer pending (sent, or dropped unsent). */
async function finished(user: User, webhookId: string) {
  const deliveries = await eventually(
    async () => (await api.request('GET', `/api/webhooks/${webhookId}/deliveries`, { token: user.token })).body.deliveries as { state: string }[],
    (found) => found.length === 1 && found[0]!.state !== 'pending',
  );
  return deliveries[0];
}

/** Sets the counter of a scope to `count` (as if it held that many webhooks). */
async function fillCounter(scope: 'monitor' | 'team' | 'owner', id: string, count: number) {
  await db().send(
    new UpdateCommand({ TableName: tableName(), Key: keys.webhookCount(scope, id), UpdateExpression: 'SET #count = :count', ExpressionAttributeNames: { '#count': 'count' }, ExpressionAttributeValues: { ':count': count } }),
  );
}

describe("a removed member and the team's webhooks", () => {
  it("lists a team monitor's webhook to the team, disables it when its creator is removed (no more deliveries), and a MEMBER's PUT enables it again as its creator", async () => {
    const ex = await api.signUp(uniqueEmail('ex-member'), 'Ex Member');
    const roles = await teamWithRoles(api, [[ex, 'MEMBER']]);
    const { OWNER, MEMBER, VIEWER } = roles.users;
    const monitor = await createMonitor(api, OWNER, { name: 'Payments', team_id: roles.team.id });
    const exHook = await createHook(ex, '/ex', { monitor_id: monitor.id });
    const control = await createHook(OWNER, '/control', { monitor_id: monitor.id });

    // The team's: every member lists it, in the team's list too (before: only its creator's list had it).
    for (const user of [OWNER, VIEWER]) expect(ids(await list(user))).toContain(exHook.id);
    expect(ids(await list(OWNER, roles.team.id))).toEqual([control.id, exHook.id]);

    const removed = await api.request('DELETE', `/api/teams/${roles.team.id}/members/${roles.otherIds[0]}`, { token: OWNER.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      message: 'Member removed',
      left_behind: { webhooks_disabled: [{ id: exHook.id, monitor_id: monitor.id, team_id: null, url: `${receiver.origin}/…` }], integrations: [] },
    });

    // The ex-member sees it nowhere; the team sees it disabled, and why.
    expect(ids(await list(ex))).not.toContain(exHook.id);
    expect((await getHook(ex, exHook.id)).body).toEqual({ error: 'Webhook not found' });
    expect((await getHook(VIEWER, exHook.id)).body.webhook).toMatchObject({ status: 'disabled', disabled_reason: 'creator_lost_access', owner_id: ex.id });

    await createIncident(api, OWNER, monitor.id, 'Card payments failing');
    await eventually(async () => at('/control'), (requests) => requests.length === 1);
    await settle(api);
    // Disabled by the removal: not even queued.
    expect((await api.request('GET', `/api/webhooks/${exHook.id}/deliveries`, { token: OWNER.token })).body.deliveries).toEqual([]);
    expect(at('/ex')).toHaveLength(0);

    // A MEMBER (who may manage it) enables it again and becomes its creator; it delivers again.
    const enabled = await api.request('PUT', `/api/webhooks/${exHook.id}`, { token: MEMBER.token, body: {} });
    expect(enabled.body.webhook).toMatchObject({ status: 'enabled', disabled_reason: null, owner_id: MEMBER.id });
    await createIncident(api, OWNER, monitor.id, 'Card payments failing again');
    await eventually(async () => at('/ex'), (requests) => requests.length === 1);
  });

  it("disables, at delivery, a webhook whose monitor moved to a team its creator is not in, and lists it where the monitor went", async () => {
    const roles = await teamWithRoles(api);
    const { OWNER, MEMBER } = roles.users;
    const monitor = await createMonitor(api, OWNER, { name: 'Search', team_id: roles.team.id });
    const hook = await createHook(MEMBER, '/moved', { monitor_id: monitor.id });
    const other = await createTeam(api, OWNER, 'Elsewhere');

    const moved = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: OWNER.token, body: { team_id: other.id } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    await settle(api);
    expect(ids(await list(OWNER, other.id))).toEqual([hook.id]);
    expect(ids(await list(OWNER, roles.team.id))).toEqual([]);
    expect(ids(await list(MEMBER))).not.toContain(hook.id);

    await createIncident(api, OWNER, monitor.id, 'Search down');
    const delivery = await finished(OWNER, hook.id);
    expect(delivery).toMatchObject({ state: 'failed', attempts: [{ status: null, error: 'Webhook disabled' }] });
    expect(at('/moved')).toHaveLength(0);
    expect((await getHook(OWNER, hook.id)).body.webhook).toMatchObject({ status: 'disabled', disabled_reason: 'creator_lost_access' });
    // Nor does a redelivery send it: the team re-enables it first, as its own.
    const again = await api.request('POST', `/api/webhooks/${hook.id}/deliveries/${(delivery as unknown as { id: string }).id}/redeliver`, { token: OWNER.token });
    expect([again.status, again.body]).toEqual([409, { error: LOST_ACCESS_TEXT }]);
    expect(at('/moved')).toHaveLength(0);
  });

  it("keeps a removed member's integration key working, names it in the removal's answer, and marks it created_by_left", async () => {
    const ex = await api.signUp(uniqueEmail('ex-integrator'), 'Ex Integrator');
    const owner = await api.signUp(uniqueEmail('team-owner'), 'Team Owner');
    const team = await createTeam(api, owner);
    const memberId = await join(api, owner, team.id, ex, 'MEMBER');
    const monitor = await createMonitor(api, owner, { name: 'Queue', team_id: team.id });
    const created = await api.request('POST', `/api/monitors/${monitor.id}/integrations`, { token: ex.token, body: { name: 'Their Alertmanager' } });
    expect(created.status).toBe(201);
    const { key, ...integration } = created.body.integration;
    expect(integration.created_by_left).toBe(false);

    const removed = await api.request('DELETE', `/api/teams/${team.id}/members/${memberId}`, { token: owner.token });
    expect(removed.body).toEqual({
      message: 'Member removed',
      left_behind: { webhooks_disabled: [], integrations: [{ id: integration.id, monitor_id: monitor.id, name: 'Their Alertmanager', key_hint: integration.key_hint }] },
    });
    const listed = await api.request('GET', `/api/monitors/${monitor.id}/integrations`, { token: owner.token });
    expect(listed.body.integrations).toEqual([{ ...integration, created_by: ex.id, created_by_left: true }]);

    const event = await api.request('POST', '/v2/enqueue', {
      rawBody: JSON.stringify({ routing_key: key, event_action: 'trigger', payload: { summary: 'Queue backlog', source: 'queue', severity: 'error' } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(event.status).toBe(202);
  });
});

describe('webhook limits', () => {
  it('takes at most 10 webhooks on one monitor however many race, and one more once one is deleted', async () => {
    const user = await api.signUp(uniqueEmail('limit-monitor'));
    const monitor = await createMonitor(api, user, { name: 'Busy' });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => api.request('POST', '/api/webhooks', { token: user.token, body: { url: `${receiver.origin}/many`, events: ['incident.created'], monitor_id: monitor.id } })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(10);
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      expect(refused).toMatchObject({ status: 400, body: { error: 'Webhook limit reached: at most 10 per monitor' } });
    }
    const one = answers.find((answer) => answer.status === 201)!.body.webhook.id;
    expect((await api.request('DELETE', `/api/webhooks/${one}`, { token: user.token })).status).toBe(200);
    await createHook(user, '/many', { monitor_id: monitor.id });
  });

  it('takes at most 50 team webhooks per team and 50 own webhooks per account', async () => {
    const roles = await teamWithRoles(api);
    await fillCounter('team', roles.team.id, 49);
    await createHook(roles.users.ADMIN, '/team', { team_id: roles.team.id });
    const team = await api.request('POST', '/api/webhooks', { token: roles.users.MEMBER.token, body: { url: `${receiver.origin}/team`, events: ['incident.created'], team_id: roles.team.id } });
    expect(team).toMatchObject({ status: 400, body: { error: 'Webhook limit reached: at most 50 per team' } });

    const user = roles.users.NON_MEMBER;
    await fillCounter('owner', user.id, 49);
    await createHook(user, '/own', {});
    const own = await api.request('POST', '/api/webhooks', { token: user.token, body: { url: `${receiver.origin}/own`, events: ['incident.created'] } });
    expect(own).toMatchObject({ status: 400, body: { error: 'Webhook limit reached: at most 50 per account' } });
  });
});

describe('webhook URLs', () => {
  it('shows a Slack incoming-webhook URL in full only when created; every read form shows a hint, to every role', async () => {
    const roles = await teamWithRoles(api);
    const url = `${receiver.origin}/services/T0000/B0000/s3cr3tTokenXYZ9`;
    const created = await api.request('POST', '/api/webhooks', { token: roles.users.MEMBER.token, body: { url, events: ['incident.created'], format: 'slack', team_id: roles.team.id } });
    expect(created.body.webhook.url).toBe(url);
    const hint = `${receiver.origin}/…XYZ9`;
    const id = created.body.webhook.id;
    for (const user of [roles.users.VIEWER, roles.users.OWNER]) {
      const got = await getHook(user, id);
      expect(got.body.webhook.url).toBe(hint);
      const listed = await list(user, roles.team.id);
      expect(listed.body.webhooks.map((hook: { url: string }) => hook.url)).toEqual([hint]);
      expect(JSON.stringify([got.body, listed.body])).not.toContain('s3cr3t');
    }
    const updated = await api.request('PUT', `/api/webhooks/${id}`, { token: roles.users.ADMIN.token, body: { description: 'Slack #incidents' } });
    expect(updated.body.webhook.url).toBe(hint);
  });
});
