/**
 * The bench's one client (issues 33, 42), a process of its own as a user's client is, so that neither side's
 * figure carries its CPU: `node --import tsx infra/tools/client.ts <plan.json> <result.json>` (lib.ts
 * `runClient`). It times the service against the floor (floor.ts), alternating (the side that goes first
 * turning every pair), and writes each row: `routes`, each headline route request by request over kept-alive
 * connections (p50 and p99, the median of the rounds), the list's growth, throughput at concurrency 8 and 32;
 * `repeat`, a repeat trigger of an open incident; `pages`, a trigger timed to step 1's e-mail in the local
 * mailbox, or its SMS in the local phone inbox (emptied before each run), run by run.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { LoadClient, type Answer } from './load-client.js';
import { KeptAlive, mailTo, median, percentile, row, smsTo, type Row, type Side } from './lib.js';

export interface Caller {
  token: string;
  monitorId: string;
}

export interface Plan {
  serviceUrl: string;
  floorUrl: string;
  /** A smoke check's sizes (well under 2 minutes), not figures. */
  quick?: boolean;
  routes?: {
    token: string;
    /** An incident with an acknowledgement and a timeline of more than a page. */
    incidentId: string;
    /** Callers with a monitor each: POSTs rotate through them (the service counts 100 a day per caller). */
    creators: Caller[];
    /** Incidents for PUT status (with their status now), and unacknowledged ones for acknowledge, per side. */
    putIncidents: Record<Side, { id: string; status: string }[]>;
    ackIncidents: Record<Side, string[]>;
    /** Two callers of their own, one with a short history and one with a long one (the list's growth). */
    growth: { small: { token: string; size: number }; large: { token: string; size: number } };
  };
  /** Each side's trigger bodies, sent in turn (keys of their own: each stays within its rate). */
  repeat?: { bodies: Record<Side, string[]>; warmPairs: number; pairs: number };
  pages?: {
    mailboxUrl: string;
    /** Step 1's address (the mailbox is emptied before each run, so one address serves every run). */
    oncall: string;
    runs: number;
    /** The "service" side is another floor (a variant: a guarantee's cost measured), triggered as the floor is. */
    serviceIsFloor?: boolean;
    kinds: PageKind[];
    /** Monitors paging `oncall` at once, one per run and side (a down check opens one incident each). */
    monitors: Record<Side, string[]>;
    /** An integration key of a monitor paging `oncall`, per side (each trigger a dedup key of its own). */
    keys: Record<Side, string>;
    /** `sms`: the phone inbox (the runtime's), and one person per run and side, paged by SMS alone at the number, with a key of a monitor paging them. */
    sms?: { phonesUrl: string; people: Record<Side, { phone: string; key: string }[]> };
  };
}

export type PageKind = 'check' | 'alert' | 'sms';
const SIDES: Side[] = ['service', 'floor'];
const STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING'];
const json = { 'content-type': 'application/json' };
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const time = async (send: () => Promise<unknown>) => {
  const started = performance.now();
  await send();
  return performance.now() - started;
};
const expecting = (what: string, status: number) => async (answer: Promise<Answer>) => {
  const { status: got, body } = await answer;
  if (got !== status) throw new Error(`${what}: ${got} ${body.slice(0, 300)}`);
};
/** Both sides' turns, the side that goes first turning every pair. */
const order = (index: number) => (index % 2 === 0 ? SIDES : [...SIDES].reverse());

/**
 * Each side's p50 and p99 of `send`, request by request: warmed first (for `warm` ms or `warm` pairs), then
 * `rounds` rounds of `pairs` pairs, the median of the rounds' figures.
 */
async function pairs(send: Record<Side, () => Promise<unknown>>, warm: { ms?: number; pairs?: number }, rounds: number, count: number) {
  for (let index = 0; index < (warm.pairs ?? 0); index++) for (const side of order(index)) await send[side]();
  for (let index = 0, until = performance.now() + (warm.ms ?? 0); performance.now() < until; index++) for (const side of order(index)) await send[side]();
  const p50s = { service: [] as number[], floor: [] as number[] };
  const p99s = { service: [] as number[], floor: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const timings = { service: [] as number[], floor: [] as number[] };
    for (let index = 0; index < count; index++) for (const side of order(index)) timings[side].push(await time(send[side]));
    for (const side of SIDES) {
      p50s[side].push(median(timings[side]));
      p99s[side].push(percentile(timings[side], 0.99));
    }
  }
  return { p50: { service: median(p50s.service), floor: median(p50s.floor) }, p99: { service: median(p99s.service), floor: median(p99s.floor) } };
}

async function routes(plan: Plan, routes: NonNullable<Plan['routes']>, log: (line: string) => void): Promise<Row[]> {
  const clients = { service: new LoadClient(plan.serviceUrl), floor: new LoadClient(plan.floorUrl) };
  const size = plan.quick
    ? { rounds: 1, readPairs: 40, writePairs: 20, warmMs: 300, warmWrites: 5, throughputMs: 700 }
    : { rounds: 3, readPairs: 200, writePairs: 100, warmMs: 3_000, warmWrites: 50, throughputMs: 3_000 };
  const prepared = (side: Side, path: string, token = routes.token) => {
    const send = clients[side].prepare('GET', path, auth(token));
    const check = expecting(`${side} GET ${path}`, 200);
    return () => check(send());
  };
  const creating = (side: Side) => {
    let count = 0;
    return () => {
      const creator = routes.creators[Math.floor(count++ / 90) % routes.creators.length]!;
      const body = JSON.stringify({ monitorId: creator.monitorId, title: `Bench ${count}`, message: 'Created by the bench', severity: 'HIGH' });
      return expecting(`${side} POST incident`, 201)(clients[side].request('POST', '/api/incidents', { ...auth(creator.token), ...json }, body));
    };
  };
  const putting = (side: Side) => {
    const pool = routes.putIncidents[side].map((incident) => ({ ...incident }));
    let count = 0;
    return () => {
      const incident = pool[count++ % pool.length]!;
      // Always a change of status (never to RESOLVED): an entry and an event each time, on both sides.
      incident.status = STATUSES[(STATUSES.indexOf(incident.status) + 1) % STATUSES.length]!;
      return expecting(`${side} PUT status`, 200)(clients[side].request('PUT', `/api/incidents/${incident.id}`, { ...auth(routes.token), ...json }, JSON.stringify({ status: incident.status })));
    };
  };
  const acknowledging = (side: Side) => {
    const pool = [...routes.ackIncidents[side]];
    return () => {
      const id = pool.shift();
      if (!id) throw new Error(`${side}: the bench ran out of incidents to acknowledge`);
      return expecting(`${side} acknowledge`, 200)(clients[side].request('POST', `/api/incidents/${id}/acknowledge`, { ...auth(routes.token), ...json }, '{"method":"api"}'));
    };
  };
  const incident = `/api/incidents/${routes.incidentId}`;
  const rows: { figure: string; goal: string; write: boolean; make: (side: Side) => () => Promise<void> }[] = [
    { figure: 'GET incident', goal: '≤ 1.3×', write: false, make: (side) => prepared(side, incident) },
    { figure: 'list incidents (first page, limit 20)', goal: '≤ 1.3×', write: false, make: (side) => prepared(side, '/api/incidents?limit=20') },
    { figure: 'timeline page (first, limit 20)', goal: '≤ 1.3×', write: false, make: (side) => prepared(side, `${incident}/updates?limit=20`) },
    { figure: 'POST incident', goal: '≤ 1.5×', write: true, make: creating },
    { figure: 'PUT status', goal: '≤ 1.5×', write: true, make: putting },
    { figure: 'acknowledge', goal: '≤ 1.5×', write: true, make: acknowledging },
  ];
  const results: Row[] = [];
  for (const entry of rows) {
    // Steady state first, as a warm Lambda instance serves (Node's JIT, DynamoDB Local's): reads for a time, writes a count (their pools are finite).
    const warm = entry.write ? { pairs: size.warmWrites } : { ms: size.warmMs };
    const { p50, p99 } = await pairs({ service: entry.make('service'), floor: entry.make('floor') }, warm, size.rounds, entry.write ? size.writePairs : size.readPairs);
    log(`${entry.figure}: service p50 ${p50.service.toFixed(2)} ms, floor ${p50.floor.toFixed(2)} ms (${(p50.service / p50.floor).toFixed(2)}×)`);
    results.push(row(entry.figure, p50.service, p50.floor, 'ms', entry.goal, p99));
  }

  // The list's first page with a long history against a short one, the four requests interleaved.
  const { small, large } = routes.growth;
  const keys = SIDES.flatMap((side) => [small, large].map((history) => ({ side, history, send: prepared(side, '/api/incidents?limit=20', history.token) })));
  for (let pass = 0, until = performance.now() + size.warmMs; performance.now() < until; pass++) for (const key of pass % 2 ? [...keys].reverse() : keys) await key.send();
  const p50 = keys.map(() => [] as number[]);
  for (let round = 0; round < size.rounds; round++) {
    const timings = keys.map(() => [] as number[]);
    for (let pass = 0; pass < size.readPairs; pass++) for (const index of pass % 2 ? [3, 2, 1, 0] : [0, 1, 2, 3]) timings[index]!.push(await time(keys[index]!.send));
    timings.forEach((list, index) => p50[index]!.push(median(list)));
  }
  const [serviceSmall, serviceLarge, floorSmall, floorLarge] = p50.map(median) as [number, number, number, number];
  const growth = { service: serviceLarge / serviceSmall, floor: floorLarge / floorSmall };
  log(`list growth ${small.size} → ${large.size}: service ${growth.service.toFixed(2)}×, floor ${growth.floor.toFixed(2)}×`);
  results.push(row(`list first page at ${large.size.toLocaleString('en')} incidents vs at ${small.size.toLocaleString('en')} (p50 at the large over the small)`, growth.service, growth.floor, '×', '≤ 1.1×'));

  // Throughput of GET incident at concurrency 8 and 32, each side's window after one of warming.
  for (const concurrency of [8, 32]) {
    const send = { service: prepared('service', incident), floor: prepared('floor', incident) };
    const rate = async (side: Side) => {
      let done = 0;
      const started = performance.now();
      const until = started + size.throughputMs;
      await Promise.all(Array.from({ length: concurrency }, async () => {
        for (; performance.now() < until; done++) await send[side]();
      }));
      // Over the time it took: the requests under way at the window's end finish after it, and each is counted.
      return done / ((performance.now() - started) / 1000);
    };
    for (const side of SIDES) await rate(side);
    const rates = { service: [] as number[], floor: [] as number[] };
    for (let round = 0; round < size.rounds; round++) for (const side of order(round)) rates[side].push(await rate(side));
    const [service, floor] = [median(rates.service), median(rates.floor)];
    log(`throughput c=${concurrency}: service ${service.toFixed(0)} req/s, floor ${floor.toFixed(0)} req/s (${(service / floor).toFixed(2)})`);
    results.push(row(`throughput, GET incident at concurrency ${concurrency}`, service, floor, 'req/s', '≥ 0.8'));
  }
  for (const side of SIDES) clients[side].close();
  return results;
}

async function repeat(plan: Plan, repeat: NonNullable<Plan['repeat']>): Promise<Row[]> {
  const clients = { service: new LoadClient(plan.serviceUrl), floor: new LoadClient(plan.floorUrl) };
  const send = Object.fromEntries(
    SIDES.map((side) => {
      const sends = repeat.bodies[side].map((body) => clients[side].prepare('POST', '/v2/enqueue', json, body));
      const check = expecting(`${side} repeat trigger`, 202);
      let next = 0;
      return [side, () => check(sends[next++ % sends.length]!())];
    }),
  ) as Record<Side, () => Promise<void>>;
  const { p50, p99 } = await pairs(send, { pairs: repeat.warmPairs }, 1, repeat.pairs);
  for (const side of SIDES) clients[side].close();
  return [row('repeat trigger', p50.service, p50.floor, 'ms', '≤ 1.3×', p99)];
}

async function pages(plan: Plan, pages: NonNullable<Plan['pages']>): Promise<Row[]> {
  const clients = { service: new KeptAlive(plan.serviceUrl), floor: new KeptAlive(plan.floorUrl) };
  const mailbox = new KeptAlive(pages.mailboxUrl);
  const phones = pages.sms && new KeptAlive(pages.sms.phonesUrl);
  const expect = async (what: string, answer: Promise<{ status: number; body: string }>, status: number, contains: string) => {
    const got = await answer;
    if (got.status !== status || !got.body.includes(contains)) throw new Error(`${what}: ${got.status} ${got.body.slice(0, 300)}`);
  };
  const next = <T>(pool: T[], side: Side): T => {
    if (pool.length === 0) throw new Error(`${side}: the bench ran out of monitors or people`);
    return pool.shift()!;
  };
  const checks = { service: [...pages.monitors.service], floor: [...pages.monitors.floor] };
  const people = { service: [...(pages.sms?.people.service ?? [])], floor: [...(pages.sms?.people.floor ?? [])] };
  const alert = (side: Side, key: string) => {
    const body = JSON.stringify({ routing_key: key, event_action: 'trigger', dedup_key: `bench-${randomUUID()}`, payload: { summary: 'Disk full on db-1', source: 'db-1', severity: 'critical' } });
    return expect(`${side} /v2/enqueue`, clients[side].request('POST', '/v2/enqueue', json, body), 202, 'success');
  };
  /** Each kind's run: its trigger, and its page's arrival, polled from here; the store or inbox it empties first. */
  const kinds: Record<PageKind, { clear: () => Promise<unknown>; run: (side: Side) => Promise<unknown>[] }> = {
    check: {
      clear: mailbox.prepare('POST', '/clear-store'),
      run: (side) => {
        const payload = JSON.stringify({ monitorId: next(checks[side], side), status: 'down', consecutiveFailures: 2, checkedAt: new Date().toISOString() });
        const sent = side === 'service' && !pages.serviceIsFloor
          ? expect('service monitor-check', clients.service.request('POST', '/2015-03-31/functions/monitor-check/invocations', json, payload), 200, 'incident_opened')
          : expect(`${side} floor check`, clients[side].request('POST', '/check', json, payload), 200, 'incident_opened');
        return [sent, mailTo(mailbox, pages.oncall)];
      },
    },
    alert: { clear: mailbox.prepare('POST', '/clear-store'), run: (side) => [alert(side, pages.keys[side]), mailTo(mailbox, pages.oncall)] },
    sms: {
      clear: () => phones!.request('DELETE', '/local/phones/messages'),
      run: (side) => {
        const person = next(people[side], side);
        return [alert(side, person.key), smsTo(phones!, person.phone)];
      },
    },
  };
  const timed = async (kind: PageKind, side: Side) => {
    await kinds[kind].clear();
    const started = performance.now();
    await Promise.all(kinds[kind].run(side));
    const elapsed = performance.now() - started;
    // The side's background work after its page (the delivery record marked sent, later steps, the
    // subscribers, the receipt) settles before the other side's run: a few polls of an empty mailbox's store.
    for (let index = 0; index < 5; index++) await mailbox.request('GET', '/store');
    return elapsed;
  };
  const figures: Record<PageKind, string> = {
    check: 'monitor check → first page e-mail (step 1) in the mailbox',
    alert: 'alert trigger (Events API v2) → first page e-mail in the mailbox',
    sms: 'alert trigger (Events API v2) → first page SMS in the phone inbox',
  };
  const rows: Row[] = [];
  for (const kind of pages.kinds) {
    // One untimed run a side first: the paths' first calls (connections, the functions' first invocation, the floor's stream reader).
    for (const side of SIDES) await timed(kind, side);
    const times: Record<Side, number[]> = { service: [], floor: [] };
    for (let run = 0; run < pages.runs; run++) for (const side of order(run)) times[side].push(await timed(kind, side));
    rows.push(row(figures[kind], median(times.service), median(times.floor), 'ms', '≤ 2×', { service: percentile(times.service, 0.99), floor: percentile(times.floor, 0.99) }));
  }
  for (const client of [clients.service, clients.floor, mailbox, phones]) client?.close();
  return rows;
}

const [planFile, resultFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile!, 'utf8')) as Plan;
const rows = [
  ...(plan.routes ? await routes(plan, plan.routes, (line) => console.log(line)) : []),
  ...(plan.repeat ? await repeat(plan, plan.repeat) : []),
  ...(plan.pages ? await pages(plan, plan.pages) : []),
];
writeFileSync(resultFile!, JSON.stringify(rows));
process.exit(0);
