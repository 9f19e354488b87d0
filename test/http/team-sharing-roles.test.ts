/**
 * The role matrix for what a team shares: every action on a team monitor and its incidents and
 * subscribers × {OWNER, ADMIN, MEMBER, VIEWER, non-member, the monitor's owner}, driven from one
 * table. The monitor's owner is a VIEWER of the team: they keep every right on their monitor.
 * A cell that may change something (an allowed POST, PUT or DELETE) runs on a monitor of its own in
 * one team; every other cell (the reads, and every refusal, whose point is that nothing changes)
 * shares the one monitor of a second team, whose first pages show nothing else: a refused call must
 * leave the monitor's and the incident's items in the table exactly as they were, and an outsider's
 * refusal is byte for byte that of an unknown id.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/platform/db/keys.js';
import { getByKeys, queryAll } from '../../shared/platform/db/ops.js';
import { Api, uniqueEmail } from '../support/api.js';
import { sharedMonitorsFixture, type SharedFixture, type SharingActor } from '../support/teams.js';

type Outcome = number | [number, string];

interface Action {
  request(fx: SharedFixture): { method: string; path: string; body?: unknown };
  outcomes: Record<SharingActor, Outcome>;
  /** What the successful response shows each actor, for lists. */
  shows?: (body: any, fx: SharedFixture) => boolean;
}

const ACTORS: SharingActor[] = ['OWNER', 'ADMIN', 'MEMBER', 'VIEWER', 'NON_MEMBER', 'MONITOR_OWNER'];

/** Who may: `status`; a VIEWER (or a member short of role): 403 Not authorized; an outsider: 404 `hidden`. */
const rights = (allowed: SharingActor[], status: number, hidden: string): Record<SharingActor, Outcome> =>
  Object.fromEntries(
    ACTORS.map((actor) => [actor, allowed.includes(actor) ? status : actor === 'NON_MEMBER' ? [404, hidden] : [403, 'Not authorized']]),
  ) as Record<SharingActor, Outcome>;

const EVERY_MEMBER: SharingActor[] = ['OWNER', 'ADMIN', 'MEMBER', 'VIEWER', 'MONITOR_OWNER'];
const OPERATORS: SharingActor[] = ['OWNER', 'ADMIN', 'MEMBER', 'MONITOR_OWNER'];
const MANAGERS: SharingActor[] = ['OWNER', 'ADMIN', 'MONITOR_OWNER'];
const everyone = (status: number) => Object.fromEntries(ACTORS.map((actor) => [actor, status])) as Record<SharingActor, Outcome>;

const matrix: Record<string, Action> = {
  'list incidents': {
    request: () => ({ method: 'GET', path: '/api/incidents' }),
    outcomes: everyone(200),
    shows: (body, fx) => body.incidents.some((incident: { id: string }) => incident.id === fx.incidentId),
  },
  'list monitors': {
    request: () => ({ method: 'GET', path: '/api/monitors' }),
    outcomes: everyone(200),
    shows: (body, fx) => body.monitors.some((monitor: { id: string }) => monitor.id === fx.monitorId),
  },
  'get incident': {
    request: (fx) => ({ method: 'GET', path: `/api/incidents/${fx.incidentId}` }),
    outcomes: rights(EVERY_MEMBER, 200, 'Incident not found'),
  },
  'get monitor': {
    request: (fx) => ({ method: 'GET', path: `/api/monitors/${fx.monitorId}` }),
    outcomes: rights(EVERY_MEMBER, 200, 'Monitor not found'),
  },
  'create incident': {
    request: (fx) => ({ method: 'POST', path: '/api/incidents', body: { monitorId: fx.monitorId, title: 'Manual' } }),
    outcomes: rights(OPERATORS, 201, 'Monitor not found'),
  },
  'update incident': {
    request: (fx) => ({ method: 'PUT', path: `/api/incidents/${fx.incidentId}`, body: { title: 'Renamed', severity: 'LOW' } }),
    outcomes: rights(OPERATORS, 200, 'Incident not found'),
  },
  'change incident status': {
    request: (fx) => ({ method: 'PUT', path: `/api/incidents/${fx.incidentId}`, body: { status: 'IDENTIFIED' } }),
    outcomes: rights(OPERATORS, 200, 'Incident not found'),
  },
  'acknowledge incident': {
    request: (fx) => ({ method: 'POST', path: `/api/incidents/${fx.incidentId}/acknowledge`, body: { method: 'api' } }),
    outcomes: rights(OPERATORS, 200, 'Incident not found'),
  },
  'read the timeline': {
    request: (fx) => ({ method: 'GET', path: `/api/incidents/${fx.incidentId}/updates` }),
    outcomes: rights(EVERY_MEMBER, 200, 'Incident not found'),
  },
  'post a note': {
    request: (fx) => ({ method: 'POST', path: `/api/incidents/${fx.incidentId}/updates`, body: { message: 'Looking into it', status: 'IDENTIFIED' } }),
    outcomes: rights(OPERATORS, 201, 'Incident not found'),
  },
  'resolve incident': {
    request: (fx) => ({ method: 'DELETE', path: `/api/incidents/${fx.incidentId}` }),
    outcomes: rights(OPERATORS, 200, 'Incident not found'),
  },
  'update monitor': {
    request: (fx) => ({ method: 'PUT', path: `/api/monitors/${fx.monitorId}`, body: { name: 'Renamed', failure_threshold: 9 } }),
    outcomes: rights(OPERATORS, 200, 'Monitor not found'),
  },
  'unshare monitor': {
    request: (fx) => ({ method: 'PUT', path: `/api/monitors/${fx.monitorId}`, body: { team_id: null } }),
    outcomes: rights(MANAGERS, 200, 'Monitor not found'),
  },
  'delete monitor': {
    request: (fx) => ({ method: 'DELETE', path: `/api/monitors/${fx.monitorId}` }),
    outcomes: rights(MANAGERS, 200, 'Monitor not found'),
  },
  'list subscribers': {
    request: (fx) => ({ method: 'GET', path: `/api/monitors/${fx.monitorId}/subscribers` }),
    outcomes: rights(EVERY_MEMBER, 200, 'Monitor not found'),
  },
  'add subscriber': {
    request: (fx) => ({ method: 'POST', path: `/api/monitors/${fx.monitorId}/subscribers`, body: { email: uniqueEmail('matrix-sub') } }),
    outcomes: rights(OPERATORS, 201, 'Monitor not found'),
  },
  'remove subscriber': {
    request: (fx) => ({ method: 'DELETE', path: `/api/monitors/${fx.monitorId}/subscribers/${fx.subscriberId}` }),
    outcomes: rights(OPERATORS, 200, 'Monitor not found'),
  },
};

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());

/**
 * Everything a refused call must leave alone, item by item as the table holds it: the monitor's
 * partition (the monitor, its subscribers, its open-incident marker), the incident's (the incident,
 * its timeline, its acknowledgement) and the team's record of the share.
 */
async function snapshot(fx: SharedFixture) {
  const partition = (pk: string) => queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } });
  const [monitor, incident, share] = await Promise.all([
    partition(keys.monitorPartition(fx.monitorId)),
    partition(keys.incidentPartition(fx.incidentId)),
    getByKeys({ share: keys.teamSharedMonitor(fx.team.id, fx.monitorId) }),
  ]);
  expect(monitor.length).toBeGreaterThan(0);
  expect(incident.length).toBeGreaterThan(0);
  return { monitor, incident, share };
}

describe('role matrix of a team monitor, its incidents and subscribers', () => {
  const cells = Object.entries(matrix).flatMap(([name, action]) =>
    (Object.entries(action.outcomes) as [SharingActor, Outcome][]).map(([actor, outcome]) => ({ name, action, actor, outcome })),
  );

  it('covers every action for every role, the monitor owner and an outsider', () => {
    expect(cells).toHaveLength(17 * 6);
  });

  /**
   * Two teams: one whose single monitor every cell that changes nothing shares (the lists read its
   * first pages), one with a monitor for each cell that may change something, and one more for the
   * acknowledgement test below.
   */
  const stub = { monitorId: 'monitor', incidentId: 'incident', subscriberId: 'subscriber' } as SharedFixture;
  const changes = (cell: (typeof cells)[number]) => !Array.isArray(cell.outcome) && cell.action.request(stub).method !== 'GET';
  const changing = cells.filter(changes);
  let sharedTeam: Promise<SharedFixture[]> | undefined;
  let actionTeam: Promise<SharedFixture[]> | undefined;
  const actionFixtures = () => (actionTeam ??= sharedMonitorsFixture(api, changing.length + 1));
  const fixtureFor = async (cell: (typeof cells)[number]) => {
    if (!changes(cell)) return (await (sharedTeam ??= sharedMonitorsFixture(api, 1)))[0]!;
    return (await actionFixtures())[changing.indexOf(cell)]!;
  };

  it('gives a monitor of its own to each allowed POST, PUT and DELETE: 42 cells', () => {
    expect(changing).toHaveLength(42);
  });

  it.concurrent.for(cells.map((cell) => [cell.name, cell.actor, cell] as const))('%s as %s', async ([, , cell], { expect }) => {
    const fx = await fixtureFor(cell);
    const [status, error] = Array.isArray(cell.outcome) ? cell.outcome : [cell.outcome, undefined];
    // What a refused call must leave alone (an allowed one changes it, and is checked by its answer).
    const before = error ? await snapshot(fx) : undefined;
    const { method, path, body } = cell.action.request(fx);
    const response = await api.request(method, path, { token: fx.users[cell.actor].token, body });
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    if (cell.action.shows) expect(cell.action.shows(response.body, fx)).toBe(cell.actor !== 'NON_MEMBER');
    if (!error) return;
    expect(response.body).toEqual({ error });
    expect(await snapshot(fx)).toEqual(before);
    if (status === 404) {
      // Byte for byte what an id that never existed gets.
      const unknown = path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) =>
        id === fx.monitorId || id === fx.incidentId ? randomUUID() : id,
      );
      const never = await api.request(method, unknown, {
        token: fx.users[cell.actor].token,
        body: method === 'POST' && path === '/api/incidents' ? { ...(body as object), monitorId: randomUUID() } : body,
      });
      expect(never.status).toBe(404);
      expect(JSON.stringify(never.body)).toBe(JSON.stringify(response.body));
    }
  });

  it('names the member who acknowledged, from their account', async () => {
    const fx = (await actionFixtures())[changing.length]!;
    const member = fx.users.MEMBER;
    const acknowledged = await api.request('POST', `/api/incidents/${fx.incidentId}/acknowledge`, { token: member.token });
    expect(acknowledged.status).toBe(200);
    const seen = await api.request('GET', `/api/incidents/${fx.incidentId}`, { token: fx.users.VIEWER.token });
    expect(seen.body.incident.acknowledgement).toMatchObject({ user_id: member.id, user_name: member.name, user_email: member.email, method: 'web' });
  });
});
