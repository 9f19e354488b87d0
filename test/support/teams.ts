/** Team fixtures: built through the HTTP API, as users would build them, or seeded where joining is not what a test is about. */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { clock } from '../../shared/platform/clock.js';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { teamView, type Member, type Role, type Team } from '../../shared/teams/model.js';
import { memberRecord, membershipOf, membershipRecord, slugRecord, teamRecord } from '../../shared/teams/repository.js';
import { uniqueEmail, type Api, type User } from './api.js';
import { seedSharedMonitors } from '../../infra/testing/seed.js';

let slugs = 0;
export const uniqueSlug = (prefix = 'team') => `${prefix}-${process.pid}-${Date.now()}-${slugs++}`;

export async function createTeam(api: Api, owner: User, name = 'Platform') {
  const response = await api.request('POST', '/api/teams', { token: owner.token, body: { name, slug: uniqueSlug() } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.team as { id: string; name: string; slug: string; owner_id: string; created_at: string; updated_at: string };
}

export async function invite(api: Api, by: User, teamId: string, email: string, role: string) {
  const response = await api.request('POST', `/api/teams/${teamId}/invite`, { token: by.token, body: { email, role } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.invite as { id: string; token: string; email: string; role: string; expires_at: string; created_at: string };
}

/** Invites `user` as `role` and accepts as them; returns their member id. */
export async function join(api: Api, inviter: User, teamId: string, user: User, role: string) {
  const { token } = await invite(api, inviter, teamId, user.email, role);
  const accepted = await api.request('POST', `/api/teams/invites/${token}/accept`, { token: user.token });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  const team = await api.request('GET', `/api/teams/${teamId}`, { token: inviter.token });
  return (team.body.members as { id: string; user_id: string }[]).find((member) => member.user_id === user.id)!.id;
}

export interface TeamWithRoles {
  team: Awaited<ReturnType<typeof createTeam>>;
  users: Record<'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER' | 'NON_MEMBER', User>;
  memberIds: Record<'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER', string>;
}

/**
 * A team as its creation and accepted invites leave it, written straight to the table through the
 * repository's item builders (the team, its slug claim, each member and membership; `member_count`
 * and `seat_count` counting them): for tests about what a team shares or does, not about joining it.
 * `members` join in order, a millisecond apart (the first is the OWNER). Answers the team and the member ids.
 */
export async function seedTeam(owner: User, members: readonly (readonly [User, Exclude<Role, 'OWNER'>])[], name = 'Platform') {
  const start = clock.now().getTime();
  const at = (index: number) => new Date(start + index).toISOString();
  const team: Team = {
    id: randomUUID(),
    name,
    slug: uniqueSlug(),
    owner_id: owner.id,
    member_count: members.length + 1,
    created_at: at(0),
    updated_at: at(0),
  };
  const joined: Member[] = [[owner, 'OWNER'] as const, ...members].map(([user, role], index) => ({
    id: randomUUID(),
    team_id: team.id,
    user_id: user.id,
    name: user.name,
    email: user.email,
    role,
    joined_at: at(index),
  }));
  const items = [teamRecord(team), slugRecord(team), ...joined.flatMap((member) => [memberRecord(member), membershipRecord(membershipOf(member))])];
  await batchWrite(items.map((item) => ({ PutRequest: { Item: item } })));
  return { team: teamView(team), memberIds: joined.map((member) => member.id) };
}

/**
 * A team with one user in each role, and an outsider (the team seeded: see `seedTeam`); `others`
 * join after them, and `otherIds` answers their member ids in the same order.
 */
export async function teamWithRoles(
  api: Api,
  others: readonly (readonly [User, Exclude<Role, 'OWNER'>])[] = [],
): Promise<TeamWithRoles & { otherIds: string[] }> {
  const [owner, admin, member, viewer, outsider] = await Promise.all(
    ['owner', 'admin', 'member', 'viewer', 'outsider'].map((name) => api.signUp(uniqueEmail(name), name)),
  ) as [User, User, User, User, User];
  const { team, memberIds } = await seedTeam(owner, [[admin, 'ADMIN'], [member, 'MEMBER'], [viewer, 'VIEWER'], ...others]);
  const [ownerId, adminId, memberId, viewerId, ...otherIds] = memberIds as [string, string, string, string, ...string[]];
  return {
    team,
    users: { OWNER: owner, ADMIN: admin, MEMBER: member, VIEWER: viewer, NON_MEMBER: outsider },
    memberIds: { OWNER: ownerId, ADMIN: adminId, MEMBER: memberId, VIEWER: viewerId },
    otherIds,
  };
}

export type SharingActor = 'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER' | 'NON_MEMBER' | 'MONITOR_OWNER';

export interface SharedMonitor {
  monitorId: string;
  incidentId: string;
  subscriberId: string;
}

export interface SharedFixture extends SharedMonitor {
  team: TeamWithRoles['team'];
  users: Record<SharingActor, User>;
}

/** Creates a monitor as `owner` (optionally shared with a team) and answers it. */
export async function createMonitor(api: Api, owner: User, body: Record<string, unknown> = {}) {
  const response = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Shared API', ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.monitor as { id: string; name: string; team_id: string | null; owner_id: string };
}

/** The monitoring system reports `monitorId` down (failures beyond a threshold of 1): the monitor-check function, invoked directly. */
export async function reportDown(monitorId: string, consecutiveFailures = 2) {
  return (await invokeFunction('monitor-check', { monitorId, status: 'down', consecutiveFailures, checkedAt: new Date().toISOString() })) as {
    outcome: string;
    incident_id: string;
  };
}

/** Creates a manual incident on a monitor as `by` and answers its id. */
export async function createIncident(api: Api, by: User, monitorId: string, title = 'Checkout errors') {
  const response = await api.request('POST', '/api/incidents', { token: by.token, body: { monitorId, title } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.incident.id as string;
}

/**
 * A team with one user in each role and an outsider, and `count` monitors shared with it by a
 * sixth user, the monitors' owner, who is only a VIEWER of the team: each monitor has an incident
 * and a subscriber. Team, monitors, incidents and subscribers are seeded (`seedTeam`,
 * `seedSharedMonitors`): what a test does to them goes through the API. (Through the API, the owner
 * shares as a MEMBER and is then demoted, which changes the role on their member and membership
 * items and nothing else: the seeded owner is a VIEWER from the start.)
 */
export async function sharedMonitorsFixture(api: Api, count: number) {
  const monitorOwner = await api.signUp(uniqueEmail('monitor-owner'), 'monitor owner');
  const base = await teamWithRoles(api, [[monitorOwner, 'VIEWER']]);
  const seeded = await seedSharedMonitors(monitorOwner, base.team.id, count, {
    name: 'Shared API',
    title: 'Checkout errors',
    email: () => uniqueEmail('subscriber'),
  });
  const users = { ...base.users, MONITOR_OWNER: monitorOwner };
  return seeded.map(({ monitor, incident, subscriberId }): SharedFixture => ({
    team: base.team,
    users,
    monitorId: monitor.id,
    incidentId: incident.id,
    subscriberId,
  }));
}
