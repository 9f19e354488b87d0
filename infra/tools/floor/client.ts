/**
 * The bench's client (issue 33), a process of its own as a user's client is: it sends each row's
 * request to the service (the local runtime) and to the floor server (floor/server.ts) one by one,
 * alternating request by request (which side goes first turns every pair), over kept-alive
 * connections, and reports each side's p50 and p99; then throughput of GET incident at concurrency 8
 * and 32 against the floor's. `node --import tsx infra/tools/floor/client.ts <plan.json> <result.json>`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { LoadClient, type Answer } from '../load-client.js';

export interface Caller {
  token: string;
  monitorId: string;
}

/** What the orchestrator (bench.ts) set up for the client; each side's write pools are its own. */
export interface ClientPlan {
  serviceUrl: string;
  floorUrl: string;
  quick: boolean;
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
}

export type Side = 'service' | 'floor';

export interface Timing {
  p50: number;
  p99: number;
}

export interface ClientRow {
  figure: string;
  goal: string;
  service: Timing;
  floor: Timing;
  /** Requests per second at a concurrency (throughput rows only; p50/p99 then unset). */
  throughput?: { service: number; floor: number };
  /** The list's first page p50 with the long history over the short one, each side (the growth row only). */
  growth?: { service: number; floor: number; sizes: [number, number] };
}

const STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING'];
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const median = (values: number[]) => percentile(values, 0.5);

export async function runClient(plan: ClientPlan, log: (line: string) => void = () => undefined): Promise<ClientRow[]> {
  const clients = { service: new LoadClient(plan.serviceUrl), floor: new LoadClient(plan.floorUrl) };
  const sides = ['service', 'floor'] as const;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const json = { 'content-type': 'application/json' };
  const expect = (what: string, status: number) => async (answer: Promise<Answer>) => {
    const { status: got, body } = await answer;
    if (got !== status) throw new Error(`${what}: ${got} ${body.slice(0, 300)}`);
  };

  // Sizes: --quick for a smoke check in well under 2 minutes; else what the figures are taken from.
  const size = plan.quick
    ? { rounds: 1, readPairs: 40, writePairs: 20, warmMs: 300, warmWrites: 5, throughputMs: 700 }
    : { rounds: 3, readPairs: 200, writePairs: 100, warmMs: 3_000, warmWrites: 50, throughputMs: 3_000 };

  /** The requests of each row, per side: a function sending the next one. */
  const prepared = (side: Side, method: string, path: string, status = 200) => {
    const send = clients[side].prepare(method, path, auth(plan.token));
    const check = expect(`${side} ${method} ${path}`, status);
    return () => check(send());
  };
  const creating = (side: Side) => {
    let count = 0;
    return () => {
      const creator = plan.creators[Math.floor(count++ / 90) % plan.creators.length]!;
      const body = JSON.stringify({ monitorId: creator.monitorId, title: `Bench ${count}`, message: 'Created by the bench', severity: 'HIGH' });
      return expect(`${side} POST incident`, 201)(clients[side].request('POST', '/api/incidents', { ...auth(creator.token), ...json }, body));
    };
  };
  const putting = (side: Side) => {
    const pool = plan.putIncidents[side].map((incident) => ({ ...incident }));
    let count = 0;
    return () => {
      const incident = pool[count++ % pool.length]!;
      // Always a change of status (never to RESOLVED): an entry and an event each time, on both sides.
      incident.status = STATUSES[(STATUSES.indexOf(incident.status) + 1) % STATUSES.length]!;
      return expect(`${side} PUT status`, 200)(clients[side].request('PUT', `/api/incidents/${incident.id}`, { ...auth(plan.token), ...json }, JSON.stringify({ status: incident.status })));
    };
  };
  const acknowledging = (side: Side) => {
    const pool = [...plan.ackIncidents[side]];
    return () => {
      const id = pool.shift();
      if (!id) throw new Error(`${side}: the bench ran out of incidents to acknowledge`);
      return expect(`${side} acknowledge`, 200)(clients[side].request('POST', `/api/incidents/${id}/acknowledge`, { ...auth(plan.token), ...json }, '{"method":"api"}'));
    };
  };

  const rows: { figure: string; goal: string; write: boolean; make: (side: Side) => () => Promise<void> }[] = [
    { figure: 'GET incident', goal: '≤ 1.3×', write: false, make: (side) => prepared(side, 'GET', `/api/incidents/${plan.incidentId}`) },
    { figure: 'list incidents (first page, limit 20)', goal: '≤ 1.3×', write: false, make: (side) => prepared(side, 'GET', '/api/incidents?limit=20') },
    { figure: 'timeline page (first, limit 20)', goal: '≤ 1.3×', write: false, make: (side) => prepared(side, 'GET', `/api/incidents/${plan.incidentId}/updates?limit=20`) },
    { figure: 'POST incident', goal: '≤ 1.5×', write: true, make: creating },
    { figure: 'PUT status', goal: '≤ 1.5×', write: true, make: putting },
    { figure: 'acknowledge', goal: '≤ 1.5×', write: true, make: acknowledging },
  ];

  const time = async (send: () => Promise<void>) => {
    const started = performance.now();
    await send();
    return performance.now() - started;
  };

  const results: ClientRow[] = [];
  for (const row of rows) {
    const send = { service: row.make('service'), floor: row.make('floor') };
    // Steady state first, as a warm Lambda instance serves (Node's JIT, DynamoDB Local's): reads for a
    // time, writes a count (their pools are finite).
    if (row.write) for (let index = 0; index < size.warmWrites; index++) for (const side of sides) await send[side]();
    else for (const until = performance.now() + size.warmMs; performance.now() < until; ) for (const side of sides) await send[side]();
    const p50s = { service: [] as number[], floor: [] as number[] };
    const p99s = { service: [] as number[], floor: [] as number[] };
    for (let round = 0; round < size.rounds; round++) {
      const timings = { service: [] as number[], floor: [] as number[] };
      const pairs = row.write ? size.writePairs : size.readPairs;
      for (let pair = 0; pair < pairs; pair++) {
        const order = pair % 2 === 0 ? sides : ([...sides].reverse() as Side[]);
        for (const side of order) timings[side].push(await time(send[side]));
      }
      for (const side of sides) {
        p50s[side].push(median(timings[side]));
        p99s[side].push(percentile(timings[side], 0.99));
      }
    }
    const result = {
      figure: row.figure,
      goal: row.goal,
      service: { p50: median(p50s.service), p99: median(p99s.service) },
      floor: { p50: median(p50s.floor), p99: median(p99s.floor) },
    };
    log(`${row.figure}: service p50 ${result.service.p50.toFixed(2)} ms, floor ${result.floor.p50.toFixed(2)} ms (${(result.service.p50 / result.floor.p50).toFixed(2)}×)`);
    results.push(result);
  }

  // The list's first page with a long history against a short one, the four requests interleaved.
  {
    const sizes = ['small', 'large'] as const;
    const send = Object.fromEntries(
      sides.flatMap((side) => sizes.map((which) => [`${side} ${which}`, (() => {
        const request = clients[side].prepare('GET', '/api/incidents?limit=20', auth(plan.growth[which].token));
        const check = expect(`${side} list (${which} history)`, 200);
        return () => check(request());
      })()])),
    ) as Record<string, () => Promise<void>>;
    const keys = Object.keys(send);
    for (const until = performance.now() + size.warmMs; performance.now() < until; ) for (const key of keys) await send[key]!();
    const p50 = Object.fromEntries(keys.map((key) => [key, [] as number[]]));
    for (let round = 0; round < size.rounds; round++) {
      const timings = Object.fromEntries(keys.map((key) => [key, [] as number[]]));
      for (let pass = 0; pass < size.readPairs; pass++) {
        const order = pass % 2 === 0 ? keys : [...keys].reverse();
        for (const key of order) timings[key]!.push(await time(send[key]!));
      }
      for (const key of keys) p50[key]!.push(median(timings[key]!));
    }
    const at = (key: string) => median(p50[key]!);
    const growth = {
      service: at('service large') / at('service small'),
      floor: at('floor large') / at('floor small'),
      sizes: [plan.growth.small.size, plan.growth.large.size] as [number, number],
    };
    log(`list growth ${growth.sizes[0]} → ${growth.sizes[1]}: service ${growth.service.toFixed(2)}×, floor ${growth.floor.toFixed(2)}×`);
    results.push({
      figure: `list first page at ${growth.sizes[1].toLocaleString('en')} incidents vs at ${growth.sizes[0].toLocaleString('en')} (p50 at the large over the small)`,
      goal: '≤ 1.1×',
      service: { p50: at('service large'), p99: NaN },
      floor: { p50: at('floor large'), p99: NaN },
      growth,
    });
  }

  // Throughput of GET incident at concurrency 8 and 32, each side's window after one of warming.
  for (const concurrency of [8, 32]) {
    const send = { service: prepared('service', 'GET', `/api/incidents/${plan.incidentId}`), floor: prepared('floor', 'GET', `/api/incidents/${plan.incidentId}`) };
    const rate = async (side: Side) => {
      let done = 0;
      const started = performance.now();
      const until = started + size.throughputMs;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < until) {
            await send[side]();
            done++;
          }
        }),
      );
      // Over the time it took: the requests under way at the window's end finish after it (a slower
      // side's later), and each is counted.
      return done / ((performance.now() - started) / 1000);
    };
    for (const side of sides) await rate(side);
    const rates = { service: [] as number[], floor: [] as number[] };
    for (let round = 0; round < size.rounds; round++) {
      const order = round % 2 === 0 ? sides : ([...sides].reverse() as Side[]);
      for (const side of order) rates[side].push(await rate(side));
    }
    const throughput = { service: median(rates.service), floor: median(rates.floor) };
    log(`throughput c=${concurrency}: service ${throughput.service.toFixed(0)} req/s, floor ${throughput.floor.toFixed(0)} req/s (${(throughput.service / throughput.floor).toFixed(2)})`);
    results.push({ figure: `throughput, GET incident at concurrency ${concurrency}`, goal: '≥ 0.8', service: { p50: NaN, p99: NaN }, floor: { p50: NaN, p99: NaN }, throughput });
  }
  clients.service.close();
  clients.floor.close();
  return results;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [planFile, resultFile] = process.argv.slice(2);
  const plan = JSON.parse(readFileSync(planFile!, 'utf8')) as ClientPlan;
  const rows = await runClient(plan, (line) => console.log(line));
  writeFileSync(resultFile!, JSON.stringify(rows));
}
