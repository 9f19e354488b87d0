/**
 * Cursor pagination of every list: walks at a page size that splits the data (order, no
 * duplicate, no gap), merged scopes under one cursor, creation during a walk, each incident
 * filter and combinations against an in-memory oracle, bad and foreign cursors, bad limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Incident } from '../../shared/incidents/model.js';
import { dynamoCalls } from '../../infra/testing/ddb-calls.js';
import { encodeCursor } from '../../shared/platform/api/pagination.js';
import { seedIncidents, type SeedMonitor } from '../../infra/testing/seed.js';
import { Api, uniqueEmail, walk, type User } from '../support/api.js';
import { createMonitor, createTeam, join } from '../support/teams.js';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { subscriptionItems } from '../../shared/subscribers/repository.js';
import { timeOrderedUuid } from '../../shared/platform/ids.js';
import { newSubscriber } from '../../shared/subscribers/service.js';
import { within } from '../support/deadlines.js';

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());

type Seeded = Incident;

const seed = (monitor: SeedMonitor, count: number, offsetMinutes = 0, message?: string | null) =>
  seedIncidents(monitor, count, { offsetMinutes, message });

/** The documented order: newest `started_at` first, ties broken by id (descending). */
const newestFirst = (incidents: Seeded[]) =>
  [...incidents].sort((a, b) => (a.started_at === b.started_at ? (a.id < b.id ? 1 : -1) : a.started_at < b.started_at ? 1 : -1));
const idsOf = (items: { id: string }[]) => items.map((item) => item.id);

describe('GET /api/incidents, paged', () => {
  let owner: User;
  let mate: User;
  let all: Seeded[];
  let monitorIds: string[];

  beforeAll(async () => {
    owner = await api.signUp(uniqueEmail('pager'));
    mate = await api.signUp(uniqueEmail('pager-mate'));
    const team = await createTeam(api, mate, 'Paging');
    const other = await createTeam(api, mate, 'Paging 2');
    await join(api, mate, team.id, owner, 'VIEWER');
    await join(api, mate, other.id, owner, 'MEMBER');
    const own = await createMonitor(api, owner, { name: 'Own' });
    const shared = await createMonitor(api, mate, { name: 'Team', team_id: team.id });
    const ownShared = await createMonitor(api, owner, { name: 'Own, shared', team_id: other.id });
    monitorIds = [own.id, shared.id, ownShared.id];
    // 250 in all, interleaved in time across the three scopes' monitors. No messages: a message is an item
    // of the incident's own partition, which no list reads (the 2 KB test below holds that a page's cost ignores it).
    all = [...(await seed(own, 100, 0, null)), ...(await seed(shared, 100, 1, null)), ...(await seed(ownShared, 50, 2, null))];
  });

  it('walks 250 incidents of three scopes at limit=7: newest first, ties by id, each exactly once', async () => {
    const { items, pages } = await walk(api, owner.token, '/api/incidents?limit=7', 'incidents');
    expect(pages).toBe(Math.ceil(250 / 7));
    expect(idsOf(items)).toEqual(idsOf(newestFirst(all)));
  });

  it('defaults to 50 a page and links the next page (RFC 8288), which is the same as next_cursor', async () => {
    const first = await api.request('GET', '/api/incidents?severity=HIGH', { token: owner.token });
    expect(first.body.incidents).toHaveLength(50);
    const link = first.headers.get('link')!;
    const match = /^<(.+)>; rel="next"$/.exec(link);
    expect(match).not.toBeNull();
    const url = new URL(match![1]!);
    expect(url.origin).toBe(new URL(api.url).origin);
    expect(url.pathname).toBe('/api/incidents');
    expect(url.searchParams.get('severity')).toBe('HIGH');
    expect(url.searchParams.get('cursor')).toBe(first.body.next_cursor);
    const second = await api.request('GET', `${url.pathname}${url.search}`, { token: owner.token });
    expect(second.status).toBe(200);
    expect(idsOf(second.body.incidents)).toEqual(idsOf(newestFirst(all.filter((i) => i.severity === 'HIGH'))).slice(50, 100));
  });

  const filters: [string, (incident: Seeded) => boolean][] = [
    ['severity=HIGH', (i) => i.severity === 'HIGH'],
    ['status=IDENTIFIED', (i) => i.status === 'IDENTIFIED'],
    ['status=open', (i) => i.status !== 'RESOLVED'],
    ['acknowledged=true', (i) => i.acknowledged],
    ['acknowledged=false', (i) => !i.acknowledged],
    ['since=2026-03-01T00:20:00Z', (i) => i.started_at >= '2026-03-01T00:20:00.000Z'],
    ['until=2026-03-01T00:20:00Z', (i) => i.started_at <= '2026-03-01T00:20:00.000Z'],
    ['since=2026-03-01T01:00:00%2B01:00&until=2026-03-01T00:30:00Z', (i) => i.started_at <= '2026-03-01T00:30:00.000Z'],
    ['severity=CRITICAL&status=open&acknowledged=false', (i) => i.severity === 'CRITICAL' && i.status !== 'RESOLVED' && !i.acknowledged],
    ['status=RESOLVED&since=2026-03-01T00:10:00Z&until=2026-03-01T00:40:00Z', (i) => i.status === 'RESOLVED' && i.started_at >= '2026-03-01T00:10:00.000Z' && i.started_at <= '2026-03-01T00:40:00.000Z'],
  ];
  it.for(filters)('filters %s, paged at limit=9', async ([query, keep]) => {
    const { items } = await walk(api, owner.token, `/api/incidents?limit=9&${query}`, 'incidents');
    expect(idsOf(items)).toEqual(idsOf(newestFirst(all.filter(keep))));
  });

  it('filters by monitor_id (and with other filters), for any monitor the caller sees', async () => {
    for (const monitorId of monitorIds) {
      const { items } = await walk(api, owner.token, `/api/incidents?limit=11&monitor_id=${monitorId}`, 'incidents');
      expect(idsOf(items)).toEqual(idsOf(newestFirst(all.filter((i) => i.monitor_id === monitorId))));
      const high = await walk(api, owner.token, `/api/incidents?limit=11&monitor_id=${monitorId}&severity=HIGH`, 'incidents');
      expect(idsOf(high.items)).toEqual(idsOf(newestFirst(all.filter((i) => i.monitor_id === monitorId && i.severity === 'HIGH'))));
    }
    const stranger = await api.signUp(uniqueEmail('pager-stranger'));
    const hidden = await api.request('GET', `/api/incidents?monitor_id=${monitorIds[0]}`, { token: stranger.token });
    expect(hidden.body).toEqual({ incidents: [], next_cursor: null });
  });

  it('never shows an incident twice or skips an older one while new ones are created during the walk', async () => {
    const seen: string[] = [];
    let next: string | null = null;
    let page = 0;
    do {
      const path: string = `/api/incidents?limit=20${next ? `&cursor=${encodeURIComponent(next)}` : ''}`;
      const response = await api.request('GET', path, { token: owner.token });
      seen.push(...idsOf(response.body.incidents));
      next = response.body.next_cursor;
      // Someone opens an incident on each monitor between two pages.
      if (page++ < 3) {
        for (const monitorId of monitorIds.slice(0, 2)) {
          const by = monitorId === monitorIds[1] ? mate : owner;
          expect((await api.request('POST', '/api/incidents', { token: by.token, body: { monitorId, title: 'During the walk' } })).status).toBe(201);
        }
      }
    } while (next);
    expect(new Set(seen).size).toBe(seen.length);
    const older = idsOf(newestFirst(all));
    expect(seen.filter((id) => older.includes(id))).toEqual(older);
  });

  it('refuses malformed, tampered and foreign cursors with 400 Validation errors on cursor', async () => {
    const first = await api.request('GET', '/api/incidents?limit=5', { token: owner.token });
    const cursor: string = first.body.next_cursor;
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const flipped = decoded.p.slice(0, -1) + (decoded.p.endsWith('0') ? '1' : '0');
    const tampered = Buffer.from(JSON.stringify({ ...decoded, p: flipped })).toString('base64url');
    const monitorsCursor = (await api.request('GET', '/api/monitors?limit=1', { token: owner.token })).body.next_cursor;
    // Well formed and checked, but a position no list ever issues (multi-byte, overlong): still a 400, never a DynamoDB error.
    const forged = encodeCursor(`INCIDENT#${'ア'.repeat(300)}`, { list: 'incidents', callerId: owner.id, filters: { limit: undefined } });
    const cases: [string, User][] = [
      [`/api/incidents?cursor=${forged}`, owner],
      ['/api/incidents?cursor=abc', owner],
      ['/api/incidents?cursor=' + 'A'.repeat(40), owner],
      [`/api/incidents?cursor=${tampered}`, owner],
      [`/api/incidents?cursor=${cursor}`, mate],
      [`/api/incidents?cursor=${cursor}&severity=LOW`, owner],
      [`/api/incidents?cursor=${monitorsCursor}`, owner],
      [`/api/monitors?cursor=${cursor}`, owner],
    ];
    for (const [path, user] of cases) {
      const response = await api.request('GET', path, { token: user.token });
      expect(response.status, path).toBe(400);
      expect(response.body.error).toBe('Validation errors');
      expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual(['cursor']);
    }
  });

  it.for(['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit='])('refuses %s with 400 Validation errors on limit', async (query) => {
    const response = await api.request('GET', `/api/incidents?${query}`, { token: owner.token });
    expect(response.status).toBe(400);
    expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual(['limit']);
  });

  it.for(['status=closed', 'severity=low', 'acknowledged=yes', 'since=yesterday', 'monitor_id=42', 'since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z'])(
    'refuses %s with 400 Validation errors',
    async (query) => {
      const response = await api.request('GET', `/api/incidents?${query}`, { token: owner.token });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('Validation errors');
    },
  );
});

describe('what a page costs', () => {
  const calls = dynamoCalls();
  const LIMIT = 20;

  /** One page's Queries: how many, what they examined, what they consumed. */
  async function pageCost(user: User, query: string) {
    calls.reset();
    const response = await api.request('GET', `/api/incidents?limit=${LIMIT}&${query}`, { token: user.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return { ...calls.queryCostOf('incidents-list'), body: response.body, commands: calls.commandsOf('incidents-list') };
  }

  it('examines at most 2 x limit + 2 items per scope, for every filter, on a first and a middle page', async () => {
    const user = await api.signUp(uniqueEmail('cost'));
    const lead = await api.signUp(uniqueEmail('cost-lead'));
    const team = await createTeam(api, lead, 'Cost');
    await join(api, lead, team.id, user, 'MEMBER');
    // Without messages: the items examined are index items, and no index carries a message.
    await seed(await createMonitor(api, user, { name: 'Own' }), 600, 0, null);
    await seed(await createMonitor(api, lead, { name: 'Shared', team_id: team.id }), 400, 1, null);
    const monitor = await createMonitor(api, user, { name: 'Quiet' });
    await seed(monitor, 40, 3, null);
    const queries = [
      '',
      'severity=MEDIUM',
      'status=MONITORING',
      'status=open',
      'acknowledged=true',
      'since=2026-03-01T01:00:00Z&until=2026-03-01T03:00:00Z',
      `monitor_id=${monitor.id}`,
    ];
    for (const query of queries) {
      const first = await pageCost(user, query);
      expect(first.body.incidents.length, query).toBe(LIMIT);
      expect(first.scanned, query).toBeLessThanOrEqual((2 * LIMIT + 2) * first.queries);
      // Own scope and memberships, then the team's scope with the team check (monitor_id: the monitor and its index).
      expect(first.commands.length, query).toBeLessThanOrEqual(4);
      let cursor = first.body.next_cursor;
      for (let page = 0; page < 4 && cursor; page++) {
        const middle = await pageCost(user, `${query}&cursor=${encodeURIComponent(cursor)}`);
        expect(middle.scanned, `${query} page ${page + 2}`).toBeLessThanOrEqual((2 * LIMIT + 2) * middle.queries);
        expect(middle.commands.length).toBe(first.commands.length);
        cursor = middle.body.next_cursor;
      }
    }
  }, within(180_000));

  it('reads the same units for a page whether incidents carry a 2 KB message or none', async () => {
    const [wordy, terse] = [await api.signUp(uniqueEmail('wordy')), await api.signUp(uniqueEmail('terse'))];
    await seed(await createMonitor(api, wordy, { name: 'Same' }), 60, 0, 'm'.repeat(2048));
    await seed(await createMonitor(api, terse, { name: 'Same' }), 60, 0, null);
    for (const query of ['', 'severity=HIGH', 'status=open']) {
      const [withMessage, without] = [await pageCost(wordy, query), await pageCost(terse, query)];
      expect(withMessage.readUnits, query).toBeGreaterThan(0);
      expect(withMessage.readUnits, query).toBe(without.readUnits);
    }
  });
});

describe('every other list, paged', () => {
  it('monitors, policies, teams and subscribers walk completely in their order', async () => {
    const user = await api.signUp(uniqueEmail('lists'));
    const team = await createTeam(api, user, 'Lists');
    const monitors: string[] = [];
    const policies: string[] = [];
    for (let index = 0; index < 13; index++) {
      monitors.unshift((await createMonitor(api, user, { name: `M${index}`, ...(index % 2 ? { team_id: team.id } : {}) })).id);
      const policy = await api.request('POST', '/api/escalation-policies', {
        token: user.token,
        body: { name: `P${index}`, steps: [{ delay_minutes: 0, emails: ['a@example.com'] }], ...(index % 3 ? {} : { team_id: team.id }) },
      });
      policies.unshift(policy.body.escalation_policy.id);
    }
    const teams = [team.id];
    for (let index = 0; index < 6; index++) teams.unshift((await createTeam(api, user, `T${index}`)).id);
    // The subscriptions are what is walked, not what is tested (subscribing is, in subscriber-confirmation.test.ts):
    // stored as POST stores them (claim, subscriber, unsubscribe token), created a millisecond apart.
    const at = Date.now();
    const subscriptions = Array.from({ length: 12 }, (_, index) => ({
      ...newSubscriber(monitors[0]!, uniqueEmail(`s${index}`), 'pending'),
      id: timeOrderedUuid(at + index),
      created_at: new Date(at + index).toISOString(),
    }));
    await batchWrite(subscriptions.flatMap((subscriber) => Object.values(subscriptionItems({ name: 'M12' }, subscriber)).map((Item) => ({ PutRequest: { Item } }))));
    const subscribers = idsOf(subscriptions);
    expect(idsOf((await walk(api, user.token, '/api/monitors?limit=4', 'monitors')).items)).toEqual(monitors);
    expect(idsOf((await walk(api, user.token, `/api/monitors?limit=2&team_id=${team.id}`, 'monitors')).items)).toEqual(monitors.filter((_, i) => i % 2 === 1));
    expect(idsOf((await walk(api, user.token, '/api/escalation-policies?limit=5', 'escalation_policies')).items)).toEqual(policies);
    expect(idsOf((await walk(api, user.token, '/api/teams?limit=3', 'teams')).items)).toEqual(teams);
    expect(idsOf((await walk(api, user.token, `/api/monitors/${monitors[0]}/subscribers?limit=5`, 'subscribers')).items)).toEqual(subscribers);
  });
});
