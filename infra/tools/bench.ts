/**
 * `npm run bench [-- headline|pages|path|lists|alerts|profile|profile-list|console] [--quick]`: every performance figure
 * beside its floor, written into docs/performance.md with the machine it ran on (DynamoDB Local in memory and
 * the local runtime on free ports). A benchmark, not a test: it reports. `headline` and `alerts` run against
 * the one floor (floor.ts) from the one client (client.ts), each a process of its own; `profile` (page.ts),
 * `path` (path.ts, replayed floors) and `profile-list` have files of their own; `lists` is what a page of
 * `GET /api/incidents` costs at 100, 1,000 and 10,000 incidents, beside the same Queries sent straight.
 * `--quick`: the headline alone, one short round (under 2 minutes), printed, not written: a smoke check.
 * `pages`: the headline's page rows alone (with `--quick`, 9 runs a side), printed, never written.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { encodeCursor } from '../../shared/platform/api/pagination.js';
import { db } from '../../shared/platform/db/client.js';
import { startDynamoDbLocal } from '../local/aws/dynamodb-local.js';
import { startService, type Service as Runtime } from '../local/perf/service.js';
import { quietFunctionLogs } from '../local/perf/quiet-logs.js';
import { freePort } from '../local/runtime/ports.js';
import { dynamoCalls } from '../testing/ddb-calls.js';
import { seedIncidents, type SeedMonitor } from '../testing/seed.js';
import type { Caller, Plan } from './client.js';
import { call, closeClients, headlineTable, machine, median, row, rowTable, runClient, signUp, startFloorProcess, today, writeSection, type Row } from './lib.js';
import { benchPagePath, guaranteeCosts, guaranteeTable, profilePagePath, profileTable } from './page.js';
import { benchPath } from './path.js';
import { benchProfileList } from './profile-list.js';
import { benchConsole, writeConsoleFloor } from './console.js';
import { buildConsole } from '../../console/build/build.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SECTIONS = ['headline', 'pages', 'path', 'lists', 'alerts', 'profile', 'profile-list', 'console'];

async function main() {
  quietFunctionLogs();
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const sections = args.filter((arg) => !arg.startsWith('-'));
  const unknown = [...sections.filter((section) => !SECTIONS.includes(section)), ...args.filter((arg) => arg.startsWith('-') && arg !== '--quick')];
  if (unknown.length) {
    console.error(`Unknown section or option: ${unknown.join(', ')}\nUsage: npm run bench [-- ${SECTIONS.join('|')}] [--quick]`);
    process.exit(2);
  }
  if (quick && sections.some((section) => section !== 'headline' && section !== 'pages')) {
    console.error('--quick runs the headline, or its page rows, alone');
    process.exit(2);
  }
  const run = (section: string) => (sections.length === 0 ? section === 'headline' || (!quick && section !== 'pages') : sections.includes(section));
  const database = await startDynamoDbLocal({ port: await freePort() });
  // The console, built into a folder of the bench's own with its floor page beside it.
  const consoleDir = run('console') ? mkdtempSync(join(tmpdir(), 'console-bench-')) : undefined;
  if (consoleDir) {
    await buildConsole(consoleDir);
    writeConsoleFloor(consoleDir);
  }
  const runtime = await startService({
    port: 0,
    dynamodbEndpoint: database.endpoint,
    sesPort: 0,
    log: () => undefined,
    quietFunctionLogs: true,
    ...(consoleDir ? { console: { dir: consoleDir, port: 0 } } : {}),
  });
  try {
    if (run('headline')) {
      const table = await benchHeadline(runtime, quick);
      console.log(`\n${table}`);
      if (quick) console.log('\n--quick: not written into docs/performance.md');
      else writeSection('headline', 'Headline: each route against a minimal implementation of it', table, 'top');
    }
    if (run('pages')) {
      const floor = await startFloorProcess(runtime);
      try {
        console.log(`\n${headlineTable(await benchPagePath(runtime, floor.url, quick)).join('\n')}\n\npages: printed, not written into docs/performance.md (the headline writes these rows)`);
      } finally {
        await floor.stop();
      }
    }
    if (run('path')) {
      const table = `Runtime overhead on our own calls (the floor replays the service's own recorded DynamoDB calls, so these ratios measure the runtime's glue, never the design: the headline above does). Measured by \`npm run bench -- path\` on ${today()}: ${machine()}; each side the median of 3 rounds, service and floor interleaved.\n\n${rowTable(await benchPath(runtime))}`;
      console.log(table);
      writeSection('path', 'Runtime overhead on our own calls (replayed floors)', table);
    }
    if (run('alerts')) {
      const table = `Measured by \`npm run bench -- alerts\` on ${today()}: ${machine()}; p50 and p99 of 400 pairs, the median of 3 client processes, service and floor interleaved (client.ts, \`repeat\`).\n\n${rowTable(await benchAlertRepeat(runtime))}`;
      console.log(table);
      writeSection('alerts', 'A repeat trigger against its floor', table);
    }
    if (run('profile')) {
      const costs = guaranteeTable(await guaranteeCosts(runtime));
      const table = `${profileTable(await profilePagePath(runtime))}\n\nWhat each guarantee of the design costs on that path: the page-path floor against itself with the guarantee added (\`floor.ts\`, \`with\`), check → page, run by run from a client process of its own:\n\n${costs}`;
      console.log(`\n${table}`);
      writeSection('profile', 'Where the time goes', table);
    }
    if (run('lists')) await benchLists(runtime);
    if (run('console') && consoleDir) {
      const table = await benchConsole(runtime, consoleDir);
      console.log(`\n${table}`);
      writeSection('console', 'The web console in a browser', table);
    }
    if (run('profile-list')) {
      const table = await benchProfileList(runtime);
      console.log(`\n${table}`);
      writeSection('profile-list', 'Where the time goes', table);
    }
  } finally {
    closeClients();
    await runtime.close();
    await database.stop();
  }
}

/** The headline: the data both sides read and write, the floor and the client each a process of its own. */
async function benchHeadline(runtime: Runtime, quick: boolean): Promise<string> {
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
  const routes: Plan['routes'] = {
    token: caller.token,
    incidentId: incident.id,
    creators,
    putIncidents: { service: half(changing, 0).map(({ id, status }) => ({ id, status })), floor: half(changing, 1).map(({ id, status }) => ({ id, status })) },
    ackIncidents: { service: half(unacknowledged, 0).map(({ id }) => id), floor: half(unacknowledged, 1).map(({ id }) => id) },
    growth: { small: await history('Short history', 100), large: await history('Long history', quick ? 1_000 : 10_000) },
  };
  await runtime.idle();
  const floor = await startFloorProcess(runtime);
  const rows: Row[] = [];
  try {
    rows.push(...(await runClient({ serviceUrl: runtime.url.replace('localhost', '127.0.0.1'), floorUrl: floor.url, quick, routes } satisfies Plan)));
    await runtime.idle();
    rows.push(...(await benchPagePath(runtime, floor.url, quick)));
  } finally {
    await floor.stop();
    await runtime.idle();
  }
  return [
    `${quick ? '**Provisional** (`--quick`: one short round, a smoke check, not figures to quote). ' : ''}Measured by \`npm run bench\` on ${today()}; machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, Node.js ${process.version}, DynamoDB Local in memory. Service (the local runtime) and floor (\`infra/tools/floor.ts\`) alternated request by request from a separate client process over kept-alive connections; ${quick ? 'one round' : 'each figure the median of 3 rounds (200 pairs a read round, 100 a write round)'}.`,
    '',
    ...headlineTable(rows),
  ].join('\n');
}

/**
 * A repeated trigger of an open incident against the floor's (one TransactWriteItems). One monitor, its incident
 * opened by the service's first trigger; each side 40 keys of its own (each within its 120 a minute), so both
 * count on the same incident item (its size and indexes) and on key items alike; three client processes.
 */
async function benchAlertRepeat(runtime: Runtime): Promise<Row[]> {
  const caller = await signUp(runtime, 'Alert bench');
  const api = async (method: string, path: string, body?: unknown) => (await call(runtime, method, path, caller.token, body)).body;
  const monitor = (await api('POST', '/api/monitors', { name: 'Alert bench' })).monitor as { id: string };
  const dedupKey = `bench-${randomUUID()}`;
  const trigger = (key: string) => JSON.stringify({ routing_key: key, event_action: 'trigger', dedup_key: dedupKey, payload: { summary: 'Checkout 5xx above 2%', source: 'checkout-api', severity: 'critical' } });
  const bodies = { service: [] as string[], floor: [] as string[] };
  for (let index = 0; index < 80; index++) bodies[index % 2 ? 'floor' : 'service'].push(trigger((await api('POST', `/api/monitors/${monitor.id}/integrations`, { name: `Bench ${index}` })).integration.key));
  await call(runtime, 'POST', '/v2/enqueue', undefined, JSON.parse(bodies.service[0]!));
  const floor = await startFloorProcess(runtime);
  try {
    const runs: Row[] = [];
    for (let run = 0; run < 3; run++) runs.push(...(await runClient({ serviceUrl: runtime.url, floorUrl: floor.url, repeat: { bodies, warmPairs: run === 0 ? 600 : 150, pairs: 400 } } satisfies Plan)));
    const of = (side: 'service' | 'floor', p: 'p50' | 'p99') => median(runs.map((entry) => (p === 'p50' ? entry[side] : entry.p99![side])));
    const incident = (await api('GET', `/api/incidents?monitor_id=${monitor.id}`)).incidents[0];
    console.log(`alert bench: the incident counted ${incident.alert_count} triggers (both sides')`);
    return [
      row('repeat trigger on an open incident, POST /v2/enqueue p50 from a client process vs the floor (one TransactWriteItems behind a node:http server)', of('service', 'p50'), of('floor', 'p50'), 'ms', '≤ 1.3×'),
      row('repeat trigger on an open incident, POST /v2/enqueue p99 from a client process vs the floor', of('service', 'p99'), of('floor', 'p99'), 'ms', '≤ 1.3×'),
    ];
  } finally {
    await floor.stop();
  }
}

const SIZES = [100, 1_000, 10_000];
const RUNS = 15;
const LIMIT = 50;

async function benchLists(runtime: Runtime) {
  const calls = dynamoCalls();
  const lead = await signUp(runtime, 'lead');
  type User = Awaited<ReturnType<typeof signUp>>;
  const monitor = async (owner: User, name: string, teamId: string | null = null): Promise<SeedMonitor> =>
    (await call(runtime, 'POST', '/api/monitors', owner.token, { name, ...(teamId ? { team_id: teamId } : {}) })).body.monitor;
  /** A caller with two monitors of their own, or with one and 5 teams sharing one each; `size` incidents over them. */
  const dataset = async (kind: 'own monitors' | 'own + 5 teams', size: number) => {
    const user = await signUp(runtime, kind === 'own monitors' ? 'solo' : 'member');
    const monitors = [await monitor(user, 'Own A')];
    if (kind === 'own monitors') monitors.push(await monitor(user, 'Own B'));
    else {
      for (let index = 0; index < 5; index++) {
        const { body } = await call(runtime, 'POST', '/api/teams', lead.token, { name: `Team ${index}`, slug: `bench-${user.id}-${index}` });
        monitors.push(await monitor(lead, `Team ${index}`, body.team.id));
        const { body: invited } = await call(runtime, 'POST', `/api/teams/${body.team.id}/invite`, lead.token, { email: user.email, role: 'VIEWER' });
        await call(runtime, 'POST', `/api/teams/invites/${invited.invite.token}/accept`, user.token);
      }
    }
    const each = Math.ceil(size / monitors.length);
    for (const [index, target] of monitors.entries()) await seedIncidents(target, each, { from: index, message: 'x'.repeat(2048) });
    console.log(`seeded ${kind}: ${size.toLocaleString('en')} incidents`);
    return { kind, size, user, monitors };
  };
  const kinds = ['own monitors', 'own + 5 teams'] as const;
  type Dataset = Awaited<ReturnType<typeof dataset>>;
  const datasets: Dataset[] = [];
  for (const kind of kinds) for (const size of SIZES) datasets.push(await dataset(kind, size));

  /** The filters of a dataset (each with its parsed form, as the cursor is bound to it); time bounds are the middle 80 % of its range (two incidents a minute per monitor). */
  const filtersOf = (set: Dataset) => {
    const start = Date.parse('2026-03-01T00:00:00.000Z');
    const span = (set.size / set.monitors.length / 2) * 60_000;
    const at = (fraction: number) => new Date(start + Math.floor((span * fraction) / 60_000) * 60_000).toISOString();
    const [since, until] = [at(0.1), at(0.9)];
    const filters: { name: string; query: string; bound: Record<string, unknown> }[] = [
      { name: '(none)', query: '', bound: {} },
      { name: 'severity=HIGH', query: 'severity=HIGH', bound: { severity: 'HIGH' } },
      { name: 'status=open', query: 'status=open', bound: { status: 'open' } },
      { name: 'status=RESOLVED', query: 'status=RESOLVED', bound: { status: 'RESOLVED' } },
      { name: 'acknowledged=true', query: 'acknowledged=true', bound: { acknowledged: true } },
      { name: 'monitor_id', query: `monitor_id=${set.monitors[0]!.id}`, bound: { monitor_id: set.monitors[0]!.id } },
      { name: 'since/until (middle 80 %)', query: `since=${since}&until=${until}`, bound: { since, until } },
    ];
    return { filters, middle: at(0.5) };
  };
  const pathOf = (set: Dataset, filterIndex: number, page: 'first' | 'middle') => {
    const { filters, middle } = filtersOf(set);
    const filter = filters[filterIndex]!;
    const cursor = page === 'middle' ? encodeCursor(`INCIDENT#${middle}#~`, { list: 'incidents', callerId: set.user.id, filters: filter.bound }) : undefined;
    return { name: filter.name, path: `/api/incidents?limit=${LIMIT}${filter.query ? `&${filter.query}` : ''}${cursor ? `&cursor=${cursor}` : ''}` };
  };

  const rows: string[] = [];
  const verdicts: string[] = [];
  const filterCount = filtersOf(datasets[0]!).filters.length;
  for (const kind of kinds) {
    const sets = datasets.filter((set) => set.kind === kind);
    for (let filterIndex = 0; filterIndex < filterCount; filterIndex++) {
      for (const page of ['first', 'middle'] as const) {
        // The sizes interleaved, request by request, so they share the machine's state.
        const timings = sets.map(() => [] as number[]);
        const floors = sets.map(() => [] as number[]);
        const measured = sets.map(() => ({ bytes: 0, calls: 0, scanned: 0, readUnits: 0, items: 0 }));
        for (let run = 0; run < RUNS; run++) {
          for (const [index, set] of sets.entries()) {
            calls.reset();
            const started = performance.now();
            const { body, bytes } = await call(runtime, 'GET', pathOf(set, filterIndex, page).path, set.user.token);
            timings[index]!.push(performance.now() - started);
            const cost = calls.queryCostOf('incidents-list');
            measured[index] = { bytes, calls: calls.commandsOf('incidents-list').length, scanned: cost.scanned, readUnits: cost.readUnits, items: body.incidents.length };
            // The floor: the same Queries sent straight to DynamoDB Local, all at once.
            const queries = calls.calls.filter((entry) => entry.functionName === 'incidents-list' && entry.command === 'QueryCommand');
            const floorStarted = performance.now();
            await Promise.all(queries.map((entry) => db().send(new QueryCommand(entry.input as QueryCommandInput))));
            floors[index]!.push(performance.now() - floorStarted);
          }
        }
        const name = pathOf(sets[0]!, filterIndex, page).name;
        const [p50, floor] = [timings.map(median), floors.map(median)];
        for (const [index, set] of sets.entries()) {
          const m = measured[index]!;
          rows.push(`| ${kind} | ${set.size.toLocaleString('en')} | ${name} | ${page} | ${m.items} | ${p50[index]!.toFixed(1)} | ${floor[index]!.toFixed(1)} | ${m.bytes.toLocaleString('en')} | ${m.calls} | ${m.scanned} | ${m.readUnits} |`);
        }
        const counts = measured.map((m) => m.calls);
        const ratio = p50.at(-1)! / p50[0]!;
        const floorRatio = floor.at(-1)! / floor[0]!;
        // The service's own growth: how much more its page grew than the same Queries sent directly.
        const own = ratio / floorRatio;
        const same = counts.every((count) => count === counts[0]);
        verdicts.push(
          `| ${kind} · ${name} · ${page} | ${p50[0]!.toFixed(1)} → ${p50.at(-1)!.toFixed(1)} | ${ratio.toFixed(2)}× | ${floor[0]!.toFixed(1)} → ${floor.at(-1)!.toFixed(1)} | ${floorRatio.toFixed(2)}× | ${own.toFixed(2)}× | ${same ? `${counts[0]} = ${counts.at(-1)}` : counts.join(' → ')} | ${own <= 1.5 && same ? 'yes' : 'no'} |`,
        );
      }
    }
  }
  const table = [
    `Measured by \`npm run bench -- lists\` on ${today()}: ${machine()}; \`limit=${LIMIT}\`, every incident carrying a 2 KB message; p50 of ${RUNS} requests through the local runtime.`,
    '',
    '| Caller | Incidents | Filter | Page | Items | p50 ms | Floor p50 ms | Bytes | DynamoDB calls | ScannedCount | Read units |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    "The floor is the same page's Queries sent straight to DynamoDB Local (all at once), interleaved with the requests.",
    'The page at 10,000 against the page at 100 (goal: within 1.5×, the same calls). DynamoDB Local itself answers the',
    "same Query more slowly from a larger index partition (the floor grows); the service's own growth is the ratio over the floor's:",
    '',
    '| Caller · filter · page | p50 at 100 → 10,000 (ms) | Ratio | Floor at 100 → 10,000 (ms) | Floor ratio | Service over floor | Calls | Goal met |',
    '|---|---|---|---|---|---|---|---|',
    ...verdicts,
  ].join('\n');
  console.log(table);
  writeSection('lists', 'List pages as history grows', table);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
