/**
 * `npm run bench [-- headline|path|lists|alerts|profile|profile-list] [--quick]`: every performance figure beside its floor, written into
 * docs/performance.md with the machine it ran on. `headline` (bench-headline.ts, issue 33): each route
 * against a minimal hand-written implementation of it (floor/server.ts), timed from a client process of
 * its own (floor/client.ts), the table at the top of docs/performance.md. `--quick`: the headline alone,
 * one short round (under 2 minutes), printed and not written (a smoke check, not figures). `path` (bench-path.ts),
 * the runtime's overhead on our own calls (replayed floors): bundle size, module load,
 * warm CPU, request latency, throughput, reads under writes, and check → e-mail. `alerts`
 * (bench-alert.ts): a repeat trigger of an open incident against a hand-written floor. `profile`
 * (bench-page.ts): where the service's time goes from a check to its first page, and from an acknowledge
 * to the next step stopped; `profile-list` (bench-profile-list.ts): where a list's first page's time goes at 100 and at 10,000 incidents. The headline's page rows (check / alert trigger → first page e-mail) are bench-page.ts's too. `lists`: what a page
 * of `GET /api/incidents` costs as history grows. Starts DynamoDB
 * Local (in memory) and the local runtime on free ports, seeds 100, 1,000 and 10,000 incidents for
 * callers of their own and for callers in 5 teams (a caller per size), and measures, for the first page
 * and a middle page, without and with each filter: latency p50 (of 15, the sizes interleaved request
 * by request), response bytes, DynamoDB calls, ScannedCount and consumed read units. Writes the table into docs/performance.md between
 * markers. A benchmark, not a test: it asserts nothing, it reports.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { encodeCursor } from '../../shared/platform/api/pagination.js';
import { db } from '../../shared/platform/db/client.js';
import { freePort } from '../local/runtime/ports.js';
import { startDynamoDbLocal } from '../local/aws/dynamodb-local.js';
import { repositoryRoot } from '../paths.js';
import { startService, type Service as Runtime } from '../local/perf/service.js';
import { dynamoCalls } from '../../test/support/ddb-calls.js';
import { seedIncidents, type SeedMonitor } from '../../test/support/seed.js';
import { benchEmailPath } from './bench-email.js';
import { quietFunctionLogs } from '../local/perf/quiet-logs.js';
import { benchRequestPath, call, closeClient, pathTable } from './bench-path.js';
import { benchAlertRepeat } from './bench-alert.js';
import { benchHeadline, headlineTable } from './bench-headline.js';
import { benchPagePath, guaranteeCosts, guaranteeTable, profilePagePath, profileTable } from './bench-page.js';
import { benchProfileList } from './bench-profile-list.js';

const SIZES = [100, 1_000, 10_000];
const RUNS = 15;
const LIMIT = 50;

interface User {
  id: string;
  email: string;
  token: string;
}


async function signUp(runtime: Runtime, name: string): Promise<User> {
  const { body } = await call(runtime, 'POST', '/local/users', undefined, { email: `${name}-${Date.now()}@bench.example`, name });
  return { id: body.user.id, email: body.user.email, token: body.token };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Filter {
  name: string;
  query: string;
  /** The parsed filters, as the cursor is bound to them. */
  bound: Record<string, unknown>;
}

const machine = () =>
  `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}, DynamoDB Local in memory`;

/**
 * Replaces the section between `<!-- bench:<name>:begin/end -->` in docs/performance.md (or adds it under
 * `heading`: at the end, or right under the document's title with `top`).
 */
function writeSection(name: string, heading: string, table: string, where: 'end' | 'top' = 'end') {
  const file = join(repositoryRoot, 'docs/performance.md');
  const begin = `<!-- bench:${name}:begin -->`;
  const end = `<!-- bench:${name}:end -->`;
  const current = readFileSync(file, 'utf8');
  const section = `${begin}\n${table}\n${end}`;
  const titleEnd = current.indexOf('\n') + 1;
  const next = current.includes(begin)
    ? current.slice(0, current.indexOf(begin)) + section + current.slice(current.indexOf(end) + end.length)
    : where === 'top'
      ? `${current.slice(0, titleEnd)}\n## ${heading}\n\n${section}\n${current.slice(titleEnd)}`
      : `${current.trimEnd()}\n\n## ${heading}\n\n${section}\n`;
  writeFileSync(file, next);
  console.log(`\nwrote the ${name} section of docs/performance.md`);
}

async function main() {
  quietFunctionLogs();
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const sections = args.filter((arg) => !arg.startsWith('-'));
  const unknown = [...sections.filter((section) => !['headline', 'path', 'lists', 'alerts', 'profile', 'profile-list'].includes(section)), ...args.filter((arg) => arg.startsWith('-') && arg !== '--quick')];
  if (unknown.length) {
    console.error(`Unknown section or option: ${unknown.join(', ')}\nUsage: npm run bench [-- headline|path|lists|alerts|profile|profile-list] [--quick]`);
    process.exit(2);
  }
  if (quick && sections.some((section) => section !== 'headline')) {
    console.error('--quick runs the headline alone');
    process.exit(2);
  }
  const run = (section: string) => (quick ? section === 'headline' : sections.length === 0 || sections.includes(section));
  const database = await startDynamoDbLocal({ port: await freePort() });
  const runtime = await startService({ port: 0, dynamodbEndpoint: database.endpoint, sesPort: 0, log: () => undefined, quietFunctionLogs: true });
  try {
    if (run('headline')) {
      const table = headlineTable([...(await benchHeadline(runtime, { quick })), ...(await benchPagePath(runtime, { quick }))], { quick });
      console.log(`\n${table}`);
      if (quick) console.log('\n--quick: not written into docs/performance.md');
      else writeSection('headline', 'Headline: each route against a minimal implementation of it', table, 'top');
    }
    if (run('path')) {
      const rows = [...(await benchRequestPath(runtime)), ...(await benchEmailPath(runtime, runtime.mailbox.url))];
      const table = [
        `Runtime overhead on our own calls (the floor replays the service's own recorded DynamoDB calls, so these ratios measure the runtime's glue, never the design: the headline above does). Measured by \`npm run bench -- path\` on ${new Date().toISOString().slice(0, 10)}: ${machine()}; each side the median of 3 rounds, service and floor interleaved.`,
        '',
        pathTable(rows),
      ].join('\n');
      console.log(table);
      writeSection('path', 'Runtime overhead on our own calls (replayed floors)', table);
    }
    if (run('alerts')) {
      const table = [
        `Measured by \`npm run bench -- alerts\` on ${new Date().toISOString().slice(0, 10)}: ${machine()}; p50 and p99 of 400 pairs, the median of 3 client processes, service and floor interleaved (bench-alert.ts).`,
        '',
        pathTable(await benchAlertRepeat(runtime)),
      ].join('\n');
      console.log(table);
      writeSection('alerts', 'A repeat trigger against its floor', table);
    }
    if (run('profile')) {
      const costs = guaranteeTable(await guaranteeCosts(runtime));
      const table = `${profileTable(await profilePagePath(runtime))}\n\nWhat each guarantee of the design costs on that path: the page-path floor against itself with the guarantee added (\`floor/page-path.ts\`, \`with\`), check → page, run by run from a client process of its own:\n\n${costs}`;
      console.log(`\n${table}`);
      writeSection('profile', 'Where the time goes', table);
    }
    if (run('lists')) await benchLists(runtime);
    if (run('profile-list')) {
      const table = await benchProfileList(runtime);
      console.log(`\n${table}`);
      writeSection('profile-list', 'Where the time goes', table);
    }
  } finally {
    closeClient();
    await runtime.close();
    await database.stop();
  }
}

async function benchLists(runtime: Runtime) {
  const calls = dynamoCalls();
  {
    const lead = await signUp(runtime, 'lead');
    const monitor = async (owner: User, name: string, teamId: string | null = null): Promise<SeedMonitor> => {
      const { body } = await call(runtime, 'POST', '/api/monitors', owner.token, { name, ...(teamId ? { team_id: teamId } : {}) });
      return body.monitor;
    };
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

    /** The filters of a dataset; time bounds are the middle 80 % of its range (two incidents a minute per monitor). */
    const filtersOf = (set: Dataset) => {
      const start = Date.parse('2026-03-01T00:00:00.000Z');
      const span = (set.size / set.monitors.length / 2) * 60_000;
      const at = (fraction: number) => new Date(start + Math.floor((span * fraction) / 60_000) * 60_000).toISOString();
      const [since, until] = [at(0.1), at(0.9)];
      const filters: Filter[] = [
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
    const summary = new Map<string, { p50: number[]; floor: number[]; calls: number[] }>();
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
          const entry = { p50: [] as number[], floor: [] as number[], calls: [] as number[] };
          for (const [index, set] of sets.entries()) {
            const p50 = median(timings[index]!);
            const floor = median(floors[index]!);
            const m = measured[index]!;
            rows.push(
              `| ${kind} | ${set.size.toLocaleString('en')} | ${name} | ${page} | ${m.items} | ${p50.toFixed(1)} | ${floor.toFixed(1)} | ${m.bytes.toLocaleString('en')} | ${m.calls} | ${m.scanned} | ${m.readUnits} |`,
            );
            entry.p50.push(p50);
            entry.floor.push(floor);
            entry.calls.push(m.calls);
          }
          summary.set(`${kind} · ${name} · ${page}`, entry);
        }
      }
    }

    const verdicts = [...summary].map(([key, { p50, floor, calls: counts }]) => {
      const ratio = p50.at(-1)! / p50[0]!;
      const floorRatio = floor.at(-1)! / floor[0]!;
      // The service's own growth: how much more its page grew than the same Queries sent directly.
      const own = ratio / floorRatio;
      const same = counts.every((count) => count === counts[0]);
      return `| ${key} | ${p50[0]!.toFixed(1)} → ${p50.at(-1)!.toFixed(1)} | ${ratio.toFixed(2)}× | ${floor[0]!.toFixed(1)} → ${floor.at(-1)!.toFixed(1)} | ${floorRatio.toFixed(2)}× | ${own.toFixed(2)}× | ${same ? `${counts[0]} = ${counts.at(-1)}` : counts.join(' → ')} | ${own <= 1.5 && same ? 'yes' : 'no'} |`;
    });
    const table = [
      `Measured by \`npm run bench -- lists\` on ${new Date().toISOString().slice(0, 10)}: ${machine()}; \`limit=${LIMIT}\`, every incident carrying a 2 KB message; p50 of ${RUNS} requests through the local runtime.`,
      '',
      '| Caller | Incidents | Filter | Page | Items | p50 ms | Floor p50 ms | Bytes | DynamoDB calls | ScannedCount | Read units |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      'The floor is the same page\'s Queries sent straight to DynamoDB Local (all at once), interleaved with the requests.',
      'The page at 10,000 against the page at 100 (goal: within 1.5×, the same calls). DynamoDB Local itself answers the',
      'same Query more slowly from a larger index partition (the floor grows); the service\'s own growth is the ratio over the floor\'s:',
      '',
      '| Caller · filter · page | p50 at 100 → 10,000 (ms) | Ratio | Floor at 100 → 10,000 (ms) | Floor ratio | Service over floor | Calls | Goal met |',
      '|---|---|---|---|---|---|---|---|',
      ...verdicts,
    ].join('\n');
    console.log(table);
    writeSection('lists', 'List pages as history grows', table);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
