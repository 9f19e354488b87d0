/**
 * A monitor with a thousand incidents (150 in `npm test`, test/support/scale.ts; either way lists of
 * several pages and many rescoper batches) moves between teams, twice and back to its owner: every
 * incident moves with it at once (none visible to both audiences or to neither), before and after
 * the rescoper has rewritten them. Slow for a reason: 1,000 incidents rewritten three times.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { keys, transitAttributePrefix } from '../../shared/platform/db/keys.js';
import { getByKeys } from '../../shared/platform/db/ops.js';
import { seedIncidents } from '../../infra/testing/seed.js';
import { Api, eventually, settle, uniqueEmail, walk, type User } from '../support/api.js';
import { holdCalls } from '../../infra/testing/ddb-calls.js';
import { createMonitor, createTeam, join } from '../support/teams.js';
import { count, scaled } from '../support/scale.js';
import { within } from '../support/deadlines.js';

const N = scaled(1000, 150);

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());

const signUp = (name: string) => api.signUp(uniqueEmail(name), name);
const ids = (items: { id: string }[]) => items.map((item) => item.id);
const listIncidents = async (user: User) => (await walk<{ id: string }>(api, user.token, '/api/incidents?limit=100', 'incidents')).items;

const transitsOn = async (teamId: string) => {
  const { team } = await getByKeys({ team: keys.team(teamId) });
  return Object.keys(team ?? {}).filter((name) => name.startsWith(transitAttributePrefix));
};

describe(`a monitor with ${count(N)} incidents moves between teams`, () => {
  it('takes every incident with it at once: none visible to both audiences or to neither', async () => {
    const owner = await signUp('mover');
    const [alpha, beta] = [await signUp('alpha'), await signUp('beta')];
    const teamA = await createTeam(api, owner, 'A');
    const teamB = await createTeam(api, owner, 'B');
    await join(api, owner, teamA.id, alpha, 'VIEWER');
    await join(api, owner, teamB.id, beta, 'VIEWER');
    const monitor = await createMonitor(api, owner);
    const incidents = await seedIncidents(monitor, N);
    const seeded = incidents.map((incident) => incident.id);
    // Newest first, ties (two a minute) broken by id.
    const all = [...incidents]
      .sort((a, b) => (a.started_at === b.started_at ? (a.id < b.id ? 1 : -1) : a.started_at < b.started_at ? 1 : -1))
      .map((incident) => incident.id);
    const sorted = (list: { id: string }[]) => ids(list);

    // Into team A: the rescoper is held, yet A's member sees every incident at once.
    let rescoper = holdCalls('incident-rescoper');
    onTestFinished(() => rescoper.release());
    const intoA = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: owner.token, body: { team_id: teamA.id } });
    expect(intoA.status).toBe(200);
    expect(sorted(await listIncidents(alpha))).toEqual(all);
    expect(await listIncidents(beta)).toEqual([]);
    expect((await api.request('GET', `/api/incidents/${seeded[0]}`, { token: alpha.token })).status).toBe(200);
    expect(await transitsOn(teamA.id)).toHaveLength(1);
    rescoper.release();
    // The rescoper rewrites every incident: wait for it to be done, however long a loaded machine takes.
    await settle(api);
    await eventually(() => transitsOn(teamA.id), (transits) => transits.length === 0, 120_000);
    expect(sorted(await listIncidents(alpha))).toEqual(all);

    // From A to B, held again: A's member sees none at once, B's member all.
    rescoper = holdCalls('incident-rescoper');
    onTestFinished(() => rescoper.release());
    const intoB = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: owner.token, body: { team_id: teamB.id } });
    expect(intoB.status).toBe(200);
    expect(await listIncidents(alpha)).toEqual([]);
    expect(sorted(await listIncidents(beta))).toEqual(all);
    expect((await api.request('GET', `/api/incidents/${seeded[1]}`, { token: alpha.token })).status).toBe(404);
    expect((await api.request('GET', `/api/incidents/${seeded[1]}`, { token: beta.token })).status).toBe(200);
    rescoper.release();
    await settle(api);
    await eventually(async () => [...(await transitsOn(teamA.id)), ...(await transitsOn(teamB.id))], (transits) => transits.length === 0, 120_000);
    expect(await listIncidents(alpha)).toEqual([]);
    expect(sorted(await listIncidents(beta))).toEqual(all);

    // Back to its owner alone.
    const back = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: owner.token, body: { team_id: null } });
    expect(back.status).toBe(200);
    expect(await listIncidents(beta)).toEqual([]);
    await settle(api);
    expect(await listIncidents(beta)).toEqual([]);
    expect(sorted(await listIncidents(owner))).toEqual(all);
  }, within(300_000));
});
