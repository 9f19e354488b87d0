/**
 * The role matrix: every team endpoint × {OWNER, ADMIN, MEMBER, VIEWER, non-member}, driven from
 * one table. Each cell runs on a fresh team; a refused call must leave the team exactly as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { invite, teamWithRoles, uniqueSlug, type TeamWithRoles } from '../support/teams.js';

type Actor = 'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER' | 'NON_MEMBER';
type Outcome = number | [number, string];

interface Fixture extends TeamWithRoles {
  /** A member no actor is (role MEMBER), the target of member endpoints. */
  targetMemberId: string;
  pendingInviteId: string;
}

interface Endpoint {
  request(fixture: Fixture): { method: string; path: string; body?: unknown };
  outcomes: Record<Actor, Outcome>;
  /** The right `GET /api/teams/:id` reports for this write (`permissions`). */
  permission?: string;
}

const ALL_OK = (status: number): Record<Actor, Outcome> => ({
  OWNER: status,
  ADMIN: status,
  MEMBER: status,
  VIEWER: status,
  NON_MEMBER: status,
});
const only = (allowed: Actor[], status: number, refusal: string): Record<Actor, Outcome> =>
  Object.fromEntries(
    (['OWNER', 'ADMIN', 'MEMBER', 'VIEWER', 'NON_MEMBER'] as Actor[]).map((actor) => [
      actor,
      allowed.includes(actor) ? status : [403, refusal],
    ]),
  ) as Record<Actor, Outcome>;

const matrix: Record<string, Endpoint> = {
  'GET /api/teams': { request: () => ({ method: 'GET', path: '/api/teams' }), outcomes: ALL_OK(200) },
  'POST /api/teams': {
    request: () => ({ method: 'POST', path: '/api/teams', body: { name: 'Mine', slug: uniqueSlug('matrix') } }),
    outcomes: ALL_OK(201),
  },
  'GET /api/teams/:id': {
    request: ({ team }) => ({ method: 'GET', path: `/api/teams/${team.id}` }),
    outcomes: only(['OWNER', 'ADMIN', 'MEMBER', 'VIEWER'], 200, 'Not a team member'),
  },
  'PUT /api/teams/:id': {
    request: ({ team }) => ({ method: 'PUT', path: `/api/teams/${team.id}`, body: { name: 'Renamed' } }),
    permission: 'rename',
    outcomes: only(['OWNER', 'ADMIN'], 200, 'Not authorized'),
  },
  'DELETE /api/teams/:id': {
    request: ({ team }) => ({ method: 'DELETE', path: `/api/teams/${team.id}` }),
    permission: 'delete',
    outcomes: only(['OWNER'], 200, 'Only owner can delete team'),
  },
  'POST /api/teams/:id/invite': {
    request: ({ team }) => ({
      method: 'POST',
      path: `/api/teams/${team.id}/invite`,
      body: { email: uniqueEmail('matrix-invitee'), role: 'VIEWER' },
    }),
    permission: 'invite',
    outcomes: only(['OWNER', 'ADMIN'], 201, 'Not authorized to invite'),
  },
  'DELETE /api/teams/:id/invite/:inviteId': {
    request: ({ team, pendingInviteId }) => ({ method: 'DELETE', path: `/api/teams/${team.id}/invite/${pendingInviteId}` }),
    permission: 'cancel_invites',
    outcomes: only(['OWNER', 'ADMIN'], 200, 'Not authorized'),
  },
  'DELETE /api/teams/:id/members/:memberId': {
    request: ({ team, targetMemberId }) => ({ method: 'DELETE', path: `/api/teams/${team.id}/members/${targetMemberId}` }),
    permission: 'remove_members',
    outcomes: only(['OWNER', 'ADMIN'], 200, 'Not authorized'),
  },
  'PUT /api/teams/:id/members/:memberId': {
    request: ({ team, targetMemberId }) => ({
      method: 'PUT',
      path: `/api/teams/${team.id}/members/${targetMemberId}`,
      body: { role: 'VIEWER' },
    }),
    permission: 'change_roles',
    outcomes: only(['OWNER'], 200, 'Only owner can change roles'),
  },
};

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());

async function fixture(): Promise<Fixture> {
  const target: User = await api.signUp(uniqueEmail('target'));
  const { otherIds: [targetMemberId], ...base } = await teamWithRoles(api, [[target, 'MEMBER']]);
  const pendingInviteId = (await invite(api, base.users.OWNER, base.team.id, uniqueEmail('pending'), 'VIEWER')).id;
  return { ...base, targetMemberId: targetMemberId!, pendingInviteId };
}

const snapshot = async (fx: Fixture) => (await api.request('GET', `/api/teams/${fx.team.id}`, { token: fx.users.OWNER.token })).body;

describe('team role matrix', () => {
  const cells = Object.entries(matrix).flatMap(([name, endpoint]) =>
    (Object.entries(endpoint.outcomes) as [Actor, Outcome][]).map(([actor, outcome]) => ({ name, endpoint, actor, outcome })),
  );

  it('covers every team endpoint for every role', () => {
    expect(cells).toHaveLength(9 * 5);
  });

  // Cells that change nothing of the team (refusals, reads, creating another team) share one team:
  // each checks the team unchanged after its call. A cell whose call succeeds in changing the team
  // gets a team of its own.
  const leavesTeamAlone = new Set(['GET /api/teams', 'GET /api/teams/:id', 'POST /api/teams']);
  const changesTeam = (cell: (typeof cells)[number]) => !Array.isArray(cell.outcome) && !leavesTeamAlone.has(cell.name);
  let shared: Promise<Fixture> | undefined;

  it('gives a team of its own to exactly the cells that change it', () => {
    expect(cells.filter(changesTeam).map((cell) => `${cell.name} as ${cell.actor}`)).toHaveLength(10);
  });

  it.concurrent.for(cells.map((cell) => [cell.name, cell.actor, cell] as const))('%s as %s', async ([, , cell], { expect }) => {
    const fx = changesTeam(cell) ? await fixture() : await (shared ??= fixture());
    const before = await snapshot(fx);
    const { method, path, body } = cell.endpoint.request(fx);
    const response = await api.request(method, path, { token: fx.users[cell.actor].token, body });
    const [status, error] = Array.isArray(cell.outcome) ? cell.outcome : [cell.outcome, undefined];
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    if (error) expect(response.body).toEqual({ error });
    if (!changesTeam(cell)) expect(await snapshot(fx)).toEqual(before);
  });
});

describe('what GET /api/teams/:id says each role may do', () => {
  it.for(['OWNER', 'ADMIN', 'MEMBER', 'VIEWER'] as const)('tells a %s exactly the writes the matrix lets them make', async (actor) => {
    const fx = await fixture();
    const response = await api.request('GET', `/api/teams/${fx.team.id}`, { token: fx.users[actor].token });
    expect(response.status).toBe(200);
    const expected = Object.fromEntries(
      Object.values(matrix)
        .filter((endpoint) => endpoint.permission)
        .map((endpoint) => [endpoint.permission!, !Array.isArray(endpoint.outcomes[actor])]),
    );
    expect(Object.keys(expected)).toHaveLength(6);
    expect(response.body.permissions).toEqual(expected);
  });
});
