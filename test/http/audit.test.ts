/**
 * The audit log (issue 45 §5): an entry in the transaction of every accepted change to a team, its members,
 * roles and invitations, monitors, integrations, escalation policies, schedules (layers, overrides) and
 * webhooks; none for a refused one; secrets as "[set]"; the team's log for its OWNER and ADMINs, the
 * caller's own; newest first, cursor-paged, filtered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, uniqueEmail, type ApiResponse, type User } from '../support/api.js';
import { createMonitor, createTeam, invite, teamWithRoles, type TeamWithRoles } from '../support/teams.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

let api: Api;
let receiver: Receiver;
let roles: TeamWithRoles;

beforeAll(async () => {
  receiver = await startReceiver();
  api = await Api.start({ webhookPorts: [receiver.port] });
  roles = await teamWithRoles(api);
});
afterAll(async () => {
  await Promise.all([api.close(), receiver.close()]);
});

interface Entry {
  id: string;
  at: string;
  actor: { user_id: string; user_name: string | null };
  action: string;
  resource: { type: string; id: string; name: string | null };
  team_id: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  request_id: string | null;
}

const teamLog = async (user: User, teamId: string, query = ''): Promise<Entry[]> => {
  const response = await api.request('GET', `/api/teams/${teamId}/audit${query}`, { token: user.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.entries;
};
const myLog = async (user: User, query = ''): Promise<Entry[]> => {
  const response = await api.request('GET', `/api/me/audit${query}`, { token: user.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.entries;
};

/** The accepted write's answer, and the newest entry of the team's log (which it must have written). */
async function accepted(response: ApiResponse, status = 200) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

const requestIdOf = (response: ApiResponse) => response.headers.get('x-request-id');

describe('audit entries', () => {
  it('records each change of a team, its invitations and members, in the exact form, with the request id', async () => {
    const owner = await api.signUp(uniqueEmail('audit-owner'), 'Olga Owner');
    const joiner = await api.signUp(uniqueEmail('audit-joiner'), 'Jo Joiner');
    const created = await accepted(await api.request('POST', '/api/teams', { token: owner.token, body: { name: 'Audited', slug: `audited-${Date.now()}` } }), 201);
    const teamId: string = created.body.team.id;
    let [entry] = await teamLog(owner, teamId);
    expect(entry).toEqual({
      id: expect.any(String),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      actor: { user_id: owner.id, user_name: 'Olga Owner' },
      action: 'team.created',
      resource: { type: 'team', id: teamId, name: 'Audited' },
      team_id: teamId,
      changes: { name: { from: null, to: 'Audited' }, slug: { from: null, to: created.body.team.slug } },
      request_id: requestIdOf(created),
    });
    expect(entry!.request_id).toEqual(expect.any(String));

    const renamed = await accepted(await api.request('PUT', `/api/teams/${teamId}`, { token: owner.token, body: { name: 'Audited 2' } }));
    [entry] = await teamLog(owner, teamId);
    expect(entry).toMatchObject({ action: 'team.updated', changes: { name: { from: 'Audited', to: 'Audited 2' } }, request_id: requestIdOf(renamed) });

    const invitation = await invite(api, owner, teamId, joiner.email, 'MEMBER');
    [entry] = await teamLog(owner, teamId);
    expect(entry).toMatchObject({
      action: 'invitation.created',
      resource: { type: 'invitation', id: invitation.id, name: joiner.email },
      changes: { email: { from: null, to: joiner.email }, role: { from: null, to: 'MEMBER' } },
    });
    await accepted(await api.request('POST', `/api/teams/invites/${invitation.token}/accept`, { token: joiner.token }));
    const afterAccept = await teamLog(owner, teamId, '?limit=2');
    expect(afterAccept.map((e) => e.action).sort()).toEqual(['invitation.accepted', 'member.added']);
    const added = afterAccept.find((e) => e.action === 'member.added')!;
    expect(added).toMatchObject({ actor: { user_id: joiner.id, user_name: 'Jo Joiner' }, resource: { type: 'member', name: 'Jo Joiner' }, changes: { role: { from: null, to: 'MEMBER' } } });

    await accepted(await api.request('PUT', `/api/teams/${teamId}/members/${added.resource.id}`, { token: owner.token, body: { role: 'ADMIN' } }));
    [entry] = await teamLog(owner, teamId);
    expect(entry).toMatchObject({ action: 'member.role_changed', resource: { id: added.resource.id }, changes: { role: { from: 'MEMBER', to: 'ADMIN' } } });
    await accepted(await api.request('DELETE', `/api/teams/${teamId}/members/${added.resource.id}`, { token: owner.token }));
    [entry] = await teamLog(owner, teamId);
    expect(entry).toMatchObject({ action: 'member.removed', changes: { role: { from: 'ADMIN', to: null } } });

    const revoked = await invite(api, owner, teamId, uniqueEmail('revoked'), 'VIEWER');
    await accepted(await api.request('DELETE', `/api/teams/${teamId}/invite/${revoked.id}`, { token: owner.token }));
    const log = await teamLog(owner, teamId);
    expect(log[0]).toMatchObject({ action: 'invitation.revoked', resource: { id: revoked.id } });
    // Invite tokens never appear.
    expect(JSON.stringify(log)).not.toContain(invitation.token);
    expect(JSON.stringify(log)).not.toContain(revoked.token);

    // The team's deletion is in its owner's own log (the team's is gone with it).
    await accepted(await api.request('DELETE', `/api/teams/${teamId}`, { token: owner.token }));
    expect((await myLog(owner))[0]).toMatchObject({ action: 'team.deleted', resource: { type: 'team', id: teamId } });
  });

  it("names the actor from the account on team routes when the token carries no name (an access token's claims)", async () => {
    const owner = await api.signUp(uniqueEmail('nameless'), 'Nora Named');
    const team = await createTeam(api, owner);
    const bare = await api.runtime.issuer.signPayload({
      sub: owner.id,
      iss: api.runtime.issuer.issuer,
      aud: api.runtime.issuer.audience,
      exp: Math.floor(Date.now() / 1000) + 600,
    });
    await accepted(await api.request('PUT', `/api/teams/${team.id}`, { token: bare, body: { name: 'Renamed bare' } }));
    expect((await teamLog(owner, team.id))[0]).toMatchObject({ action: 'team.updated', actor: { user_id: owner.id, user_name: 'Nora Named' } });
  });

  it('records monitors, integrations (keys as "[set]"), policies, schedules, overrides and webhooks (secrets as "[set]")', async () => {
    const { OWNER, ADMIN } = roles.users;
    const teamId = roles.team.id;
    const newest = async () => (await teamLog(ADMIN, teamId, '?limit=1'))[0]!;

    const monitor = await createMonitor(api, OWNER, { team_id: teamId, name: 'Checkout' });
    expect(await newest()).toEqual({
      id: expect.any(String),
      at: expect.any(String),
      actor: { user_id: OWNER.id, user_name: OWNER.name },
      action: 'monitor.created',
      resource: { type: 'monitor', id: monitor.id, name: 'Checkout' },
      team_id: teamId,
      changes: { name: { from: null, to: 'Checkout' }, failure_threshold: { from: null, to: 3 }, team_id: { from: null, to: teamId } },
      request_id: expect.any(String),
    });
    await accepted(await api.request('PUT', `/api/monitors/${monitor.id}`, { token: ADMIN.token, body: { failure_threshold: 5, name: 'Checkout' } }));
    expect(await newest()).toMatchObject({ action: 'monitor.updated', actor: { user_id: ADMIN.id }, changes: { failure_threshold: { from: 3, to: 5 } } });
    expect(Object.keys((await newest()).changes)).toEqual(['failure_threshold']);

    const integration = await accepted(await api.request('POST', `/api/monitors/${monitor.id}/integrations`, { token: OWNER.token, body: { name: 'Prometheus' } }), 201);
    const key: string = integration.body.integration.key;
    expect(await newest()).toMatchObject({
      action: 'integration.created',
      resource: { type: 'integration', id: integration.body.integration.id, name: 'Prometheus' },
      changes: { name: { from: null, to: 'Prometheus' }, monitor_id: { from: null, to: monitor.id }, key: { from: null, to: '[set]' } },
    });
    await accepted(await api.request('DELETE', `/api/monitors/${monitor.id}/integrations/${integration.body.integration.id}`, { token: OWNER.token }));
    expect(await newest()).toMatchObject({ action: 'integration.deleted', changes: { key: { from: '[set]', to: null } } });

    const policy = await accepted(
      await api.request('POST', '/api/escalation-policies', { token: OWNER.token, body: { name: 'Day', team_id: teamId, steps: [{ delay_minutes: 0, emails: ['a@example.com'] }] } }),
      201,
    );
    const policyId: string = policy.body.escalation_policy?.id ?? policy.body.policy?.id ?? policy.body.id;
    expect(await newest()).toMatchObject({ action: 'escalation_policy.created', resource: { type: 'escalation_policy', id: policyId, name: 'Day' } });
    await accepted(await api.request('PUT', `/api/escalation-policies/${policyId}`, { token: OWNER.token, body: { name: 'Night' } }));
    expect(await newest()).toMatchObject({ action: 'escalation_policy.updated', changes: { name: { from: 'Day', to: 'Night' } } });
    await accepted(await api.request('DELETE', `/api/escalation-policies/${policyId}`, { token: OWNER.token }));
    expect(await newest()).toMatchObject({ action: 'escalation_policy.deleted', resource: { id: policyId, name: 'Night' } });

    const layers = [{ name: 'Week', start: '2026-11-02T09:00', rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [OWNER.id] }];
    const schedule = await api.request('POST', '/api/schedules', { token: OWNER.token, body: { name: 'Primary', time_zone: 'Europe/Berlin', team_id: teamId, layers } });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
    const scheduleId: string = schedule.body.schedule.id;
    expect(await newest()).toMatchObject({ action: 'schedule.created', resource: { type: 'schedule', id: scheduleId, name: 'Primary' } });
    await accepted(await api.request('PUT', `/api/schedules/${scheduleId}`, { token: ADMIN.token, body: { time_zone: 'UTC' } }));
    expect(await newest()).toMatchObject({ action: 'schedule.updated', changes: { time_zone: { from: 'Europe/Berlin', to: 'UTC' } } });
    const override = await accepted(
      await api.request('POST', `/api/schedules/${scheduleId}/overrides`, { token: OWNER.token, body: { user_id: ADMIN.id, start: '2030-01-01T00:00:00Z', end: '2030-01-02T00:00:00Z' } }),
      201,
    );
    const overrideId: string = override.body.override.id;
    expect(await newest()).toMatchObject({
      action: 'override.created',
      resource: { type: 'override', id: overrideId },
      changes: { user_id: { from: null, to: ADMIN.id }, start: { from: null, to: '2030-01-01T00:00:00.000Z' } },
    });
    await accepted(await api.request('DELETE', `/api/schedules/${scheduleId}/overrides/${overrideId}`, { token: OWNER.token }));
    expect(await newest()).toMatchObject({ action: 'override.deleted', resource: { id: overrideId } });
    await accepted(await api.request('DELETE', `/api/schedules/${scheduleId}`, { token: OWNER.token }));
    expect(await newest()).toMatchObject({ action: 'schedule.deleted', resource: { id: scheduleId } });

    const hook = await accepted(
      await api.request('POST', '/api/webhooks', { token: OWNER.token, body: { url: `${receiver.origin}/audit`, events: ['incident.created'], team_id: teamId, description: 'Pager' } }),
      201,
    );
    const secret: string = hook.body.webhook.secret;
    const hookId: string = hook.body.webhook.id;
    expect(await newest()).toMatchObject({ action: 'webhook.created', resource: { type: 'webhook', id: hookId, name: 'Pager' }, changes: { secret: { from: null, to: '[set]' } } });
    const rotated = await accepted(await api.request('POST', `/api/webhooks/${hookId}/rotate-secret`, { token: OWNER.token }));
    expect(await newest()).toMatchObject({ action: 'webhook.secret_rotated', changes: { secret: { from: '[set]', to: '[set]' } } });
    await accepted(await api.request('PUT', `/api/webhooks/${hookId}`, { token: OWNER.token, body: { events: ['incident.created', 'incident.resolved'] } }));
    expect(await newest()).toMatchObject({ action: 'webhook.updated', changes: { events: { from: ['incident.created'], to: ['incident.created', 'incident.resolved'] } } });
    await accepted(await api.request('DELETE', `/api/webhooks/${hookId}`, { token: OWNER.token }));
    expect(await newest()).toMatchObject({ action: 'webhook.deleted', resource: { id: hookId } });

    const everything = JSON.stringify(await teamLog(OWNER, teamId, '?limit=100'));
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(rotated.body.secret);
  });

  it('writes nothing for a refused change: a MEMBER deleting a team monitor, a validation error, a refused share', async () => {
    const { OWNER, MEMBER, VIEWER } = roles.users;
    const teamId = roles.team.id;
    const monitor = await createMonitor(api, OWNER, { team_id: teamId, name: 'Refusals' });
    const before = await teamLog(OWNER, teamId, '?limit=100');
    expect((await api.request('DELETE', `/api/monitors/${monitor.id}`, { token: MEMBER.token })).status).toBe(403);
    expect((await api.request('PUT', `/api/monitors/${monitor.id}`, { token: OWNER.token, body: { failure_threshold: 0 } })).status).toBe(400);
    expect((await api.request('PUT', `/api/monitors/${monitor.id}`, { token: VIEWER.token, body: { failure_threshold: 7 } })).status).toBe(403);
    expect((await api.request('PUT', `/api/teams/${teamId}`, { token: MEMBER.token, body: { name: 'Nope' } })).status).toBe(403);
    expect((await api.request('POST', '/api/monitors', { token: VIEWER.token, body: { name: 'Shared', team_id: teamId } })).status).toBe(403);
    expect(await teamLog(OWNER, teamId, '?limit=100')).toEqual(before);
  });
});

describe('exact from values under concurrent updates', () => {
  it("chains concurrent updates of one monitor: each entry's from is the previous entry's to", async () => {
    const owner = await api.signUp(uniqueEmail('racer'), 'Racer');
    const monitor = await createMonitor(api, owner, { name: 'Raced' });
    const thresholds = [4, 5, 6, 7];
    const answers = await Promise.all(thresholds.map((failure_threshold) => api.request('PUT', `/api/monitors/${monitor.id}`, { token: owner.token, body: { failure_threshold } })));
    expect(answers.map((answer) => answer.status)).toEqual(thresholds.map(() => 200));
    const steps = (await myLog(owner, `?action=monitor.updated&resource_id=${monitor.id}`)).map((entry) => entry.changes.failure_threshold!);
    expect(steps).toHaveLength(thresholds.length);
    // From the created value, each step starts where exactly one other ended (two read at once would both say 3).
    let value: unknown = 3;
    const left = [...steps];
    while (left.length > 0) {
      const next = left.findIndex((step) => step.from === value);
      expect(next, JSON.stringify(steps)).toBeGreaterThanOrEqual(0);
      value = left.splice(next, 1)[0]!.to;
    }
  });
});

describe('GET /api/teams/:id/audit', () => {
  it('answers the OWNER and ADMINs; a MEMBER or VIEWER 403 Not authorized; an outsider and an unknown team 404', async () => {
    const { OWNER, ADMIN, MEMBER, VIEWER, NON_MEMBER } = roles.users;
    const path = `/api/teams/${roles.team.id}/audit`;
    expect((await api.request('GET', path, { token: OWNER.token })).status).toBe(200);
    expect((await api.request('GET', path, { token: ADMIN.token })).status).toBe(200);
    for (const user of [MEMBER, VIEWER]) {
      const refused = await api.request('GET', path, { token: user.token });
      expect([refused.status, refused.body]).toEqual([403, { error: 'Not authorized' }]);
    }
    const hidden = await api.request('GET', path, { token: NON_MEMBER.token });
    expect([hidden.status, hidden.body]).toEqual([404, { error: 'Team not found' }]);
    const unknown = await api.request('GET', '/api/teams/3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c/audit', { token: OWNER.token });
    expect([unknown.status, unknown.body]).toEqual([404, { error: 'Team not found' }]);
  });

  it('pages newest first with a cursor, and filters by action, resource and time (from/to in the key condition)', async () => {
    const owner = await api.signUp(uniqueEmail('pager'), 'Pager');
    const team = await createTeam(api, owner);
    const monitors: string[] = [];
    for (const name of ['One', 'Two', 'Three']) monitors.push((await createMonitor(api, owner, { team_id: team.id, name })).id);
    await accepted(await api.request('PUT', `/api/monitors/${monitors[0]}`, { token: owner.token, body: { name: 'One again' } }));
    const all = await teamLog(owner, team.id, '?limit=100');
    expect(all.map((e) => e.action)).toEqual(['monitor.updated', 'monitor.created', 'monitor.created', 'monitor.created', 'team.created']);
    expect([...all].sort((a, b) => b.at.localeCompare(a.at) || b.id.localeCompare(a.id)).map((e) => e.id)).toEqual(all.map((e) => e.id));

    // Two at a time, following next_cursor (and the Link header), to the end.
    const seen: string[] = [];
    let path = `/api/teams/${team.id}/audit?limit=2`;
    for (let pages = 0; pages < 5; pages++) {
      const page = await api.request('GET', path, { token: owner.token });
      expect(page.status).toBe(200);
      seen.push(...page.body.entries.map((e: Entry) => e.id));
      if (page.body.next_cursor === null) break;
      expect(page.headers.get('link')).toContain('cursor=');
      path = `/api/teams/${team.id}/audit?limit=2&cursor=${encodeURIComponent(page.body.next_cursor)}`;
    }
    expect(seen).toEqual(all.map((e) => e.id));
    // A cursor is bound to its filters.
    const first = await api.request('GET', `/api/teams/${team.id}/audit?limit=2`, { token: owner.token });
    const foreign = await api.request('GET', `/api/teams/${team.id}/audit?limit=2&action=monitor.created&cursor=${encodeURIComponent(first.body.next_cursor)}`, { token: owner.token });
    expect(foreign.status).toBe(400);

    expect((await teamLog(owner, team.id, '?action=monitor.created')).map((e) => e.resource.name)).toEqual(['Three', 'Two', 'One']);
    expect((await teamLog(owner, team.id, `?resource_id=${monitors[0]}`)).map((e) => e.action)).toEqual(['monitor.updated', 'monitor.created']);
    const [updated, , created2] = all;
    expect((await teamLog(owner, team.id, `?from=${encodeURIComponent(created2!.at)}&to=${encodeURIComponent(updated!.at)}`)).every((e) => e.at >= created2!.at && e.at <= updated!.at)).toBe(true);
    expect(await teamLog(owner, team.id, '?to=2000-01-01T00:00:00Z')).toEqual([]);
    const bad = await api.request('GET', `/api/teams/${team.id}/audit?action=monitor.exploded`, { token: owner.token });
    expect(bad.status).toBe(400);
    const backwards = await api.request('GET', `/api/teams/${team.id}/audit?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`, { token: owner.token });
    expect(backwards.body).toEqual({ error: 'Validation errors', details: [{ field: 'to', message: 'to must not be before from' }] });
  });
});

describe('GET /api/me/audit', () => {
  it("lists changes to the caller's own resources, in a team or not, by whoever made them; not others'", async () => {
    const me = await api.signUp(uniqueEmail('me'), 'Me');
    const other = await api.signUp(uniqueEmail('other'), 'Other');
    const mine = await createMonitor(api, me, { name: 'Mine' });
    await createMonitor(api, other, { name: 'Theirs' });
    const shared = await createMonitor(api, roles.users.OWNER, { name: 'Shared', team_id: roles.team.id });
    await accepted(await api.request('PUT', `/api/monitors/${shared.id}`, { token: roles.users.MEMBER.token, body: { failure_threshold: 9 } }));
    const entries = await myLog(me);
    expect(entries.map((e) => [e.action, e.resource.name])).toEqual([['monitor.created', 'Mine']]);
    expect(entries[0]).toMatchObject({ team_id: null, resource: { id: mine.id } });
    const owners = await myLog(roles.users.OWNER, `?resource_id=${shared.id}`);
    expect(owners.map((e) => [e.action, e.actor.user_id])).toEqual([
      ['monitor.updated', roles.users.MEMBER.id],
      ['monitor.created', roles.users.OWNER.id],
    ]);
  });
});

describe('maintenance windows in the audit log (issue 45 §1 with §5)', () => {
  it("records a monitor's window in its owner's log and a team's window in the team's, created and ended, never a refused one", async () => {
    const owner = await api.signUp(uniqueEmail('audit-maint'), 'Mae Maintainer');
    const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Audited window' } })).body.monitor;
    const starts = new Date(Date.now() + 60 * 60_000).toISOString();
    const ends = new Date(Date.now() + 2 * 60 * 60_000).toISOString();
    const created = await accepted(
      await api.request('POST', `/api/monitors/${monitor.id}/maintenance-windows`, { token: owner.token, body: { starts_at: starts, ends_at: ends, reason: 'Database upgrade' } }),
      201,
    );
    const windowId: string = created.body.maintenance_window.id;
    await accepted(await api.request('DELETE', `/api/monitors/${monitor.id}/maintenance-windows/${windowId}`, { token: owner.token }));
    // A refused window (ends before it starts) writes nothing.
    expect((await api.request('POST', `/api/monitors/${monitor.id}/maintenance-windows`, { token: owner.token, body: { starts_at: ends, ends_at: starts } })).status).toBe(400);
    const entries = (await myLog(owner)).filter((entry) => entry.resource.type === 'maintenance_window');
    expect(entries.map((entry) => entry.action)).toEqual(['maintenance_window.deleted', 'maintenance_window.created']);
    expect(entries[1]).toMatchObject({
      actor: { user_id: owner.id },
      resource: { type: 'maintenance_window', id: windowId, name: 'Database upgrade' },
      team_id: null,
      changes: { starts_at: { from: null, to: starts }, ends_at: { from: null, to: ends }, reason: { from: null, to: 'Database upgrade' } },
      request_id: requestIdOf(created),
    });
    expect(entries[0]!.changes.ends_at!.from).toBe(ends);
    // The monitor's acknowledgement timeout (issue 45 §2) is one of its audited fields.
    await accepted(await api.request('PUT', `/api/monitors/${monitor.id}`, { token: owner.token, body: { ack_timeout_minutes: 30 } }));
    const [updated] = (await myLog(owner, '?action=monitor.updated')).filter((entry) => entry.resource.id === monitor.id);
    expect(updated!.changes).toEqual({ ack_timeout_minutes: { from: null, to: 30 } });

    const team = await accepted(
      await api.request('POST', `/api/teams/${roles.team.id}/maintenance-windows`, { token: roles.users.MEMBER.token, body: { starts_at: starts, ends_at: ends } }),
      201,
    );
    const teamEntries = await teamLog(roles.users.OWNER, roles.team.id, '?action=maintenance_window.created');
    expect(teamEntries[0]).toMatchObject({ resource: { id: team.body.maintenance_window.id }, team_id: roles.team.id, actor: { user_id: roles.users.MEMBER.id } });
  });
});
