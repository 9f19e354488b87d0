/**
 * A report over 10,000 incidents in its range (1,000 in `npm test`, test/support/scale.ts), each with its
 * first acknowledgement and two pages, beside a history outside the range (issue 45 §4): it answers
 * within the route's timeout, counts every incident in the range once, and its DynamoDB reads are the
 * range's alone — the Queries examine exactly the incidents in the range, never the history around it,
 * at 1 MB a call. Slow for a reason: 10,000 incidents seeded and read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../shared/system.js';
import { seedIncidents } from '../../infra/testing/seed.js';
import { dynamoCalls } from '../../infra/testing/ddb-calls.js';
import { Api, uniqueEmail } from '../support/api.js';
import { createMonitor } from '../support/teams.js';
import { count, scaled } from '../support/scale.js';
import { within } from '../support/deadlines.js';

const N = scaled(10_000, 1_000);
const HISTORY = scaled(5_000, 500);

let api: Api;
const calls = dynamoCalls();
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());

describe(`a report over ${count(N)} incidents`, () => {
  it('answers within the route\'s timeout, reading the range alone', { timeout: within(300_000) }, async () => {
    const owner = await api.signUp(uniqueEmail('reporter'), 'Reporter');
    const monitor = await createMonitor(api, owner, { name: 'Busy' });
    const seedMonitor = { id: monitor.id, name: monitor.name, owner_id: owner.id, team_id: null };
    // History before the range (from 2026-03-01, two a minute), then N incidents in it.
    await seedIncidents(seedMonitor, HISTORY, { message: null });
    const from = new Date(Date.parse('2026-03-01T00:00:00.000Z') + Math.ceil(HISTORY / 2) * 60_000).toISOString();
    const seeded = await seedIncidents(seedMonitor, N, {
      message: null,
      from: HISTORY,
      fields: (index, incident) => ({
        first_acknowledged_at: new Date(Date.parse(incident.started_at) + 60_000).toISOString(),
        first_acknowledged_by: owner.id,
        first_acknowledged_by_name: owner.name,
        pages: [
          { at: incident.started_at, user_id: owner.id, user_name: owner.name, time_zone: 'Europe/Berlin' },
          { at: incident.started_at, user_id: owner.id, user_name: owner.name },
        ],
        ...(index % 2 ? { resolved_at: new Date(Date.parse(incident.started_at) + 600_000).toISOString(), status: 'RESOLVED' as const } : {}),
      }),
    });
    expect(seeded[0]!.started_at).toBe(from);
    const to = new Date(Date.parse(seeded.at(-1)!.started_at) + 1).toISOString();

    const route = routes.find((candidate) => candidate.name === 'reports-incidents')!;
    calls.reset();
    const started = Date.now();
    const response = await api.request('GET', `/api/reports/incidents?from=${from}&to=${to}`, { token: owner.token });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    expect(response.body.report).toMatchObject({
      incidents: N,
      acknowledged: N,
      resolved: N / 2,
      mean_seconds_to_acknowledge: 60,
      mean_seconds_to_resolve: 600,
      pages: 2 * N,
      by_monitor: [{ monitor_id: monitor.id, incidents: N }],
      by_responder: [{ user_id: owner.id, paged: 2 * N, acknowledged: N }],
    });
    // The route's timeout (29 s on AWS), on this machine's deadline scale.
    expect(elapsed).toBeLessThan(within(route.timeoutSeconds! * 1000));
    // The own scope's Query examined the range's incidents and nothing else (the memberships Query: none).
    const cost = calls.queryCostOf('reports-incidents');
    expect(cost.scanned).toBe(N);
    // 1 MB of items (as stored, whatever the projection) a call, an incident here about 1.3 KB: the calls follow the range's size, not the history's.
    const queries = calls.calls.filter((call) => call.functionName === 'reports-incidents' && call.command === 'QueryCommand').length;
    // (+ the memberships Query.)
    expect(queries).toBeLessThanOrEqual(2 + Math.ceil(N / 500));
  });
});
