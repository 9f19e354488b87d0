/**
 * Idempotency-Key on the creating POSTs (issue 14, part 3): a repeat replays the first answer and
 * creates nothing; another request with the key is refused; concurrent requests with one key create
 * once; keys are the caller's own and last 24 hours; other routes ignore the header.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, resetClock } from '../../shared/platform/clock.js';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { dynamoCalls } from '../../infra/testing/ddb-calls.js';

const calls = dynamoCalls();
let api: Api;
let alice: User;
let bob: User;
let monitorId: string;
beforeAll(async () => {
  api = await Api.start();
  [alice, bob] = await Promise.all([api.signUp(uniqueEmail('idem-alice'), 'Alice'), api.signUp(uniqueEmail('idem-bob'), 'Bob')]);
  monitorId = (await api.request('POST', '/api/monitors', { token: alice.token, body: { name: 'Idempotent' } })).body.monitor.id;
});
afterAll(() => api.close());
afterEach(() => resetClock());

const incidentsOf = async (user: User) => (await api.request('GET', `/api/incidents?monitor_id=${monitorId}&limit=100`, { token: user.token })).body.incidents as { title: string }[];
const create = (key: string | undefined, title: string, user = alice) =>
  api.request('POST', '/api/incidents', { token: user.token, body: { monitorId, title }, headers: key === undefined ? {} : { 'idempotency-key': key } });

describe('Idempotency-Key', () => {
  it('replays the first answer for a repeat, creating nothing, and costs one claim and one answer write', async () => {
    const key = randomUUID();
    calls.reset();
    const first = await create(key, 'Checkout down (once)');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(calls.commandsOf('incidents-create').filter((command) => command !== 'TransactWriteItemsCommand' && command !== 'GetItemCommand' && command !== 'BatchGetItemCommand')).toEqual(['PutItemCommand', 'UpdateItemCommand']);
    const again = await create(key, 'Checkout down (once)');
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect((await incidentsOf(alice)).filter((incident) => incident.title === 'Checkout down (once)')).toHaveLength(1);
  });

  it('refuses the key with a different body or on another route (422), and keeps no refusal: a retry runs again', async () => {
    const key = randomUUID();
    expect((await create(key, 'One')).status).toBe(201);
    const other = await create(key, 'Another');
    expect(other).toMatchObject({ status: 422, body: { error: 'Idempotency key reused with a different request' } });
    const elsewhere = await api.request('POST', '/api/monitors', { token: alice.token, body: { name: 'X' }, headers: { 'idempotency-key': key } });
    expect(elsewhere).toMatchObject({ status: 422, body: { error: 'Idempotency key reused with a different request' } });
    // A refusal is not kept: the same request runs again, and answers what is true now.
    const slugKey = randomUUID();
    const slug = `idem-${randomUUID().slice(0, 8)}`;
    const taken = await api.request('POST', '/api/teams', { token: bob.token, body: { name: 'Taken', slug } });
    const refused = await api.request('POST', '/api/teams', { token: alice.token, body: { name: 'Mine', slug }, headers: { 'idempotency-key': slugKey } });
    expect(refused).toMatchObject({ status: 400, body: { error: 'Team slug already taken' } });
    expect((await api.request('DELETE', `/api/teams/${taken.body.team.id}`, { token: bob.token })).status).toBe(200);
    const retried = await api.request('POST', '/api/teams', { token: alice.token, body: { name: 'Mine', slug }, headers: { 'idempotency-key': slugKey } });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const replayed = await api.request('POST', '/api/teams', { token: alice.token, body: { name: 'Mine', slug }, headers: { 'idempotency-key': slugKey } });
    expect(replayed).toMatchObject({ status: 201, body: retried.body });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });

  it("lets a new team member's create that raced the membership's arrival succeed on retry (a 404 is not replayed)", async () => {
    const carol = await api.signUp(uniqueEmail('idem-carol'), 'Carol');
    const team = (await api.request('POST', '/api/teams', { token: bob.token, body: { name: 'Racing', slug: `race-${randomUUID().slice(0, 8)}` } })).body.team;
    const shared = (await api.request('POST', '/api/monitors', { token: bob.token, body: { name: 'Shared', team_id: team.id } })).body.monitor;
    const key = randomUUID();
    const early = () => api.request('POST', '/api/incidents', { token: carol.token, body: { monitorId: shared.id, title: 'Seen first' }, headers: { 'idempotency-key': key } });
    expect(await early()).toMatchObject({ status: 404, body: { error: 'Monitor not found' } });
    const invite = (await api.request('POST', `/api/teams/${team.id}/invite`, { token: bob.token, body: { email: carol.email, role: 'MEMBER' } })).body.invite;
    expect((await api.request('POST', `/api/teams/invites/${invite.token}/accept`, { token: carol.token })).status).toBe(200);
    const retried = await early();
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('gives 20 concurrent POSTs with one key one incident; every other answer is its replay (or 409)', async () => {
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 20 }, () => create(key, 'Raced once')));
    const created = responses.filter((response) => response.status === 201);
    expect(created.length + responses.filter((response) => response.status === 409).length).toBe(20);
    expect(new Set(created.map((response) => response.body.incident.id)).size).toBe(1);
    expect(created.filter((response) => response.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const response of responses.filter((candidate) => candidate.status === 409)) {
      expect(response.body).toEqual({ error: 'Request with this idempotency key is in progress' });
    }
    expect((await incidentsOf(alice)).filter((incident) => incident.title === 'Raced once')).toHaveLength(1);
  });

  it('keeps keys per caller, for 24 hours', async () => {
    const key = randomUUID();
    expect((await create(key, 'Per caller')).status).toBe(201);
    // Bob's monitor: the same key is his own and runs.
    const bobMonitor = (await api.request('POST', '/api/monitors', { token: bob.token, body: { name: 'Bob' }, headers: { 'idempotency-key': key } })).body.monitor;
    expect(bobMonitor).toMatchObject({ name: 'Bob' });
    advanceClock(24 * 60 * 60 * 1000 + 1000);
    const later = await create(key, 'Per caller');
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect((await incidentsOf(alice)).filter((incident) => incident.title === 'Per caller')).toHaveLength(2);
  });

  it('changes nothing without the header, ignores it on other routes, and refuses a key that is not 1–255 printable characters', async () => {
    expect((await create(undefined, 'No key')).status).toBe(201);
    expect((await create(undefined, 'No key')).status).toBe(201);
    expect((await incidentsOf(alice)).filter((incident) => incident.title === 'No key')).toHaveLength(2);
    const incident = (await create(undefined, 'Updated twice')).body.incident;
    for (const title of ['First', 'Second']) {
      const update = await api.request('PUT', `/api/incidents/${incident.id}`, { token: alice.token, body: { title }, headers: { 'idempotency-key': 'same' } });
      expect(update).toMatchObject({ status: 200, body: { incident: { title } } });
    }
    for (const bad of ['x'.repeat(256), 'tab\tinside', 'é']) {
      const response = await create(bad, 'Bad key');
      expect(response).toMatchObject({ status: 400, body: { error: 'Validation errors', details: [{ field: 'Idempotency-Key', message: 'Must be 1 to 255 printable ASCII characters' }] } });
    }
  });
});
