/**
 * `npm run bench` (the headline, issue 33): the service against floors a skeptic would accept. The
 * floor is a minimal hand-written implementation of each route (floor/server.ts: a bare `node:http`
 * server with the gateway's JWT check and the fewest DynamoDB calls that meet the contract, against
 * the same DynamoDB Local table) in a process of its own; the client (floor/client.ts) is a third
 * process, as a user's client is, alternating service and floor request by request over kept-alive
 * connections. This module sets up the data both read and write, starts the two processes, and
 * answers the headline table.
 */
import { cpus } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Service as Runtime } from '../local/perf/service.js';
import { seedIncidents } from '../testing/seed.js';
import { call } from './bench-path.js';
import type { Caller, ClientPlan, ClientRow } from './floor/client.js';
import { runClientProcess, startServerProcess } from './floor/processes.js';

/** The floor server's process, once it listens. */
const startFloor = (runtime: Runtime) =>
  startServerProcess('infra/tools/floor/server.ts', {
    ...process.env,
    TABLE_NAME: runtime.tableName,
    FLOOR_ISSUER: runtime.issuer.issuer,
    FLOOR_AUDIENCE: runtime.issuer.audience,
    FLOOR_JWKS: JSON.stringify(runtime.issuer.jwks()),
    FLOOR_PORT: '0',
  });

async function signUp(runtime: Runtime, name: string) {
  const { body } = await call(runtime, 'POST', '/local/users', undefined, { email: `${name.replace(/\W+/g, "-").toLowerCase()}-${randomUUID().slice(0, 8)}@bench.example`, name });
  return { id: body.user.id as string, token: body.token as string, name };
}

export interface HeadlineRow extends ClientRow {}

export async function benchHeadline(runtime: Runtime, options: { quick: boolean }): Promise<HeadlineRow[]> {
  const { quick } = options;
  // ----- Data ----------------------------------------------------------------------------------
  const caller = await signUp(runtime, 'Headline');
  const monitor = (await call(runtime, 'POST', '/api/monitors', caller.token, { name: 'Headline monitor' })).body.monitor;
  const incident = (await call(runtime, 'POST', '/api/incidents', caller.token, { monitorId: monitor.id, title: 'Headline incident', message: 'Elevated 5xx', severity: 'HIGH' })).body.incident;
  await call(runtime, 'POST', `/api/incidents/${incident.id}/acknowledge`, caller.token, { method: 'api' });
  for (let index = 0; index < 25; index++) await call(runtime, 'POST', `/api/incidents/${incident.id}/updates`, caller.token, { message: `Note ${index}` });
  for (let index = 0; index < 20; index++) await call(runtime, 'POST', '/api/incidents', caller.token, { monitorId: monitor.id, title: `Older ${index}` });
  // Whoever creates: 90 each (the service counts 100 incidents a day per caller), each with a monitor.
  const creators: Caller[] = [];
  for (let index = 0; index < (quick ? 1 : 5); index++) {
    const creator = await signUp(runtime, `Creator ${index}`);
    creators.push({ token: creator.token, monitorId: (await call(runtime, 'POST', '/api/monitors', creator.token, { name: `Creator monitor ${index}` })).body.monitor.id });
  }
  // Incidents to change and to acknowledge, stored as the service stores them (older than the list's first page).
  const seedMonitor = { id: monitor.id, name: monitor.name, owner_id: caller.id, team_id: null };
  const open = (await seedIncidents(seedMonitor, quick ? 120 : 1_500, { message: 'x'.repeat(200) })).filter((item) => item.status !== 'RESOLVED');
  const unacknowledged = open.filter((item) => !item.acknowledged);
  const changing = open.filter((item) => item.acknowledged).slice(0, 100);
  const half = <T>(items: T[], side: 0 | 1) => items.filter((_, index) => index % 2 === side);
  // The list's growth: a caller with a short history and one with a long one (1,000 in --quick, to stay short).
  const history = async (name: string, size: number) => {
    const owner = await signUp(runtime, name);
    const own = (await call(runtime, 'POST', '/api/monitors', owner.token, { name })).body.monitor;
    await seedIncidents({ id: own.id, name: own.name, owner_id: owner.id, team_id: null }, size, { message: 'x'.repeat(200) });
    return { token: owner.token, size };
  };
  const growth = { small: await history('Short history', 100), large: await history('Long history', quick ? 1_000 : 10_000) };
  const plan: ClientPlan = {
    serviceUrl: runtime.url.replace('localhost', '127.0.0.1'),
    floorUrl: '',
    quick,
    token: caller.token,
    incidentId: incident.id,
    creators,
    putIncidents: { service: half(changing, 0).map(({ id, status }) => ({ id, status })), floor: half(changing, 1).map(({ id, status }) => ({ id, status })) },
    ackIncidents: { service: half(unacknowledged, 0).map(({ id }) => id), floor: half(unacknowledged, 1).map(({ id }) => id) },
    growth,
  };
  await runtime.idle();

  // ----- The floor and the client, each a process of its own ------------------------------------
  const floor = await startFloor(runtime);
  try {
    plan.floorUrl = floor.url;
    return await runClientProcess<HeadlineRow[]>('infra/tools/floor/client.ts', plan);
  } finally {
    await floor.stop();
    await runtime.idle();
  }
}

const cpuModel = () => cpus()[0]?.model.trim() ?? 'unknown CPU';

/** The headline table, with its date and machine. */
export function headlineTable(rows: HeadlineRow[], options: { quick: boolean; date?: Date }): string {
  const format = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2));
  const met = (ratio: number, goal: string, higherIsBetter: boolean) => {
    const limit = Number(/[\d.]+/.exec(goal)![0]);
    return (higherIsBetter ? ratio >= limit : ratio <= limit) ? 'yes' : 'no';
  };
  const lines = rows.map((row) => {
    if (row.growth) {
      // The service's growth over the floor's own: what the goal holds (≤ 1.1× the floor's growth).
      const own = row.growth.service / row.growth.floor;
      return `| ${row.figure} | ${row.growth.service.toFixed(2)}× | ${row.growth.floor.toFixed(2)}× | ${own.toFixed(2)}× | — | — | — | ${row.goal} the floor's growth | ${met(own, row.goal, false)} |`;
    }
    if (row.throughput) {
      const ratio = row.throughput.service / row.throughput.floor;
      return `| ${row.figure} | ${format(row.throughput.service)} req/s | ${format(row.throughput.floor)} req/s | ${ratio.toFixed(2)} | — | — | — | ${row.goal} | ${met(ratio, row.goal, true)} |`;
    }
    const ratio = row.service.p50 / row.floor.p50;
    return `| ${row.figure} | ${format(row.service.p50)} ms | ${format(row.floor.p50)} ms | ${ratio.toFixed(2)}× | ${format(row.service.p99)} ms | ${format(row.floor.p99)} ms | ${(row.service.p99 / row.floor.p99).toFixed(2)}× | ${row.goal} (p50) | ${met(ratio, row.goal, false)} |`;
  });
  return [
    `${options.quick ? '**Provisional** (`--quick`: one short round, a smoke check, not figures to quote). ' : ''}Measured by \`npm run bench\` on ${(options.date ?? new Date()).toISOString().slice(0, 10)}; machine: ${cpuModel()}, ${cpus().length} cores, Node.js ${process.version}, DynamoDB Local in memory. Service (the local runtime) and floor (\`infra/tools/floor/server.ts\`) alternated request by request from a separate client process over kept-alive connections; ${options.quick ? 'one round' : 'each figure the median of 3 rounds (200 pairs a read round, 100 a write round)'}.`,
    '',
    '| Row | Service p50 | Floor p50 | Ratio | Service p99 | Floor p99 | p99 ratio | Goal | Met |',
    '|---|---|---|---|---|---|---|---|---|',
    ...lines,
  ].join('\n');
}
