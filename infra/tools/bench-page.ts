/**
 * `npm run bench -- headline` (its page rows) and `npm run bench -- profile` (issue 33): the service's
 * "monitor check / alert trigger → first page e-mail" against the minimal design path
 * (floor/page-path.ts, a process of its own), timed by a client process of its own
 * (floor/page-client.ts) from the trigger's request to the page's arrival in the local mailbox; and
 * where the service's time on that path goes, hop by hop, from the calls and invocations the runtime
 * records (`Service.recordCalls`), with what a person's acknowledgement takes to stop the next step.
 */
import { randomUUID } from 'node:crypto';
import type { Service as Runtime } from '../local/perf/service.js';
import type { RecordedCall } from '../local/perf/call-recorder.js';
import { call } from './bench-path.js';
import type { ClientRow } from './floor/client.js';
import { runClientProcess, startServerProcess } from './floor/processes.js';
import { KeptAlive, type PageClientPlan } from './floor/page-client.js';

/** The page-path floor's process, once it listens. */
const startPageFloor = (runtime: Runtime, variant: string[] = []) =>
  startServerProcess('infra/tools/floor/page-path.ts', {
    ...process.env,
    TABLE_NAME: runtime.tableName,
    // Its SES is the runtime's SES API, in front of the same mailbox the service's pages go to.
    FLOOR_SES_URL: runtime.url.replace('localhost', '127.0.0.1'),
    FLOOR_PUBLIC_URL: runtime.url,
    FLOOR_PORT: '0',
    FLOOR_WITH: variant.join(','),
  });

/** A caller with a policy paging one address at once, and `count` monitors on it (failure threshold 1). */
async function pagingSetup(runtime: Runtime, count: number) {
  const tag = randomUUID().slice(0, 8);
  const { body } = await call(runtime, 'POST', '/local/users', undefined, { email: `pager-${tag}@bench.example`, name: 'Pager' });
  const token = body.token as string;
  const oncall = `oncall-${tag}@bench.example`;
  const policy = (await call(runtime, 'POST', '/api/escalation-policies', token, { name: `Pages ${tag}`, steps: [{ delay_minutes: 0, emails: [oncall] }, { delay_minutes: 30, emails: [oncall] }] })).body.escalation_policy;
  const monitors: string[] = [];
  for (let index = 0; index < count; index++) {
    monitors.push((await call(runtime, 'POST', '/api/monitors', token, { name: `Paged ${tag} ${index}`, failure_threshold: 1, escalation_policy_id: policy.id })).body.monitor.id);
  }
  const key = async (monitorId: string) => (await call(runtime, 'POST', `/api/monitors/${monitorId}/integrations`, token, { name: 'Bench tool' })).body.integration.key as string;
  return { token, oncall, policyId: policy.id as string, monitors, key };
}

/** The headline's page rows: check → page and alert trigger → page, service and floor run by run. */
export async function benchPagePath(runtime: Runtime, options: { quick: boolean }): Promise<ClientRow[]> {
  const runs = options.quick ? 9 : 31;
  // Per side: a monitor per timed run, one for the warm-up run, and one for the alerts.
  const setup = await pagingSetup(runtime, 2 * (runs + 2));
  const half = (side: 0 | 1) => setup.monitors.filter((_, index) => index % 2 === side);
  const [service, floorSide] = [half(0), half(1)];
  const plan: PageClientPlan = {
    serviceUrl: runtime.url.replace('localhost', '127.0.0.1'),
    floorUrl: '',
    mailboxUrl: runtime.mailbox.url,
    oncall: setup.oncall,
    runs,
    monitors: { service: service.slice(1), floor: floorSide.slice(1) },
    keys: { service: await setup.key(service[0]!), floor: await setup.key(floorSide[0]!) },
  };
  await runtime.idle();
  const floor = await startPageFloor(runtime);
  try {
    plan.floorUrl = floor.url;
    return await runClientProcess<ClientRow[]>('infra/tools/floor/page-client.ts', plan);
  } finally {
    await floor.stop();
    await runtime.idle();
  }
}

/**
 * What each guarantee of the design costs on the check → page path, measured: the floor against itself
 * with the guarantee added (`floor/page-path.ts`'s `with`), run by run in a client process of its own.
 */
export async function guaranteeCosts(runtime: Runtime, runs = 9): Promise<ClientRow[]> {
  const rows: ClientRow[] = [];
  const variants: [string, string[]][] = [
    ['exactly-once pages: the delivery record (with the acknowledge link\'s record) written before the send, marked after', ['delivery']],
    ['the atomic timeline: the steps, the monitor\'s count, the `created` and `paged` entries and the second event in the opening transaction', ['transaction']],
    ['both', ['delivery', 'transaction']],
  ];
  for (const [figure, variant] of variants) {
    const setup = await pagingSetup(runtime, 2 * (runs + 1));
    const [base, added] = [await startPageFloor(runtime), await startPageFloor(runtime, variant)];
    try {
      const plan: PageClientPlan = {
        serviceUrl: added.url,
        floorUrl: base.url,
        serviceIsFloor: true,
        kinds: ['check'],
        mailboxUrl: runtime.mailbox.url,
        oncall: setup.oncall,
        runs,
        monitors: { service: setup.monitors.filter((_, index) => index % 2 === 0), floor: setup.monitors.filter((_, index) => index % 2 === 1) },
        keys: { service: '', floor: '' },
      };
      const [row] = await runClientProcess<ClientRow[]>('infra/tools/floor/page-client.ts', plan);
      rows.push({ ...row!, figure, goal: '—' });
    } finally {
      await Promise.all([base.stop(), added.stop()]);
    }
  }
  return rows;
}

/** The guarantees' costs as Markdown. */
export function guaranteeTable(rows: ClientRow[]): string {
  return [
    '| The floor with | p50 with it | p50 without | Ratio | Costs (ms, p50) |',
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.figure} | ${row.service.p50.toFixed(1)} ms | ${row.floor.p50.toFixed(1)} ms | ${(row.service.p50 / row.floor.p50).toFixed(2)}× | ${(row.service.p50 - row.floor.p50).toFixed(1)} |`),
  ].join('\n');
}

// ----- Where the time goes ------------------------------------------------------------------------

const epochNow = () => performance.timeOrigin + performance.now();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export interface ProfileHop {
  hop: string;
  /** Milliseconds after the trigger's request (medians over the runs). */
  start: number;
  end: number;
}

export interface PageProfile {
  runs: number;
  hops: ProfileHop[];
  /** The page's arrival in the mailbox after the trigger (median). */
  arrival: number;
  /** A person's acknowledge request: its latency, and when its transaction (after which no step pages) ended, after the request began. */
  acknowledge: { latency: number; settled: number; hops: ProfileHop[] };
}

const short = (command: string) => command.replace(/Command$/, '');

/** One check → page run's hops, from its recorded calls and invocations (epoch ms), relative to `t0`. */
function hopsOf(calls: RecordedCall[], t0: number, oncall: string): ProfileHop[] {
  const hops: ProfileHop[] = [];
  const at = (entry: RecordedCall, hop: string) => hops.push({ hop, start: entry.startedAt - t0, end: entry.endedAt - t0 });
  const check = calls.filter((entry) => entry.functionName === 'monitor-check');
  const invocation = check.find((entry) => entry.service === 'Lambda');
  if (invocation) hops.push({ hop: 'trigger: the Invoke request to monitor-check starting', start: 0, end: invocation.startedAt - t0 });
  for (const entry of check.filter((item) => item.service === 'DynamoDB')) at(entry, `monitor-check ${short(entry.command)}`);
  if (invocation) at(invocation, 'monitor-check invocation (all of it)');
  const transaction = check.find((entry) => entry.command === 'TransactWriteItemsCommand');
  // The page's notifier invocation: the one whose SendEmail went to step 1's address.
  const send = calls.find((entry) => entry.service === 'SES' && JSON.stringify(entry.input).includes(oncall));
  const publisher = calls.find((entry) => entry.functionName === 'outbox-publisher' && entry.service === 'Lambda' && transaction && entry.startedAt >= transaction.endedAt);
  if (transaction && publisher) hops.push({ hop: 'stream: the transaction\'s records reaching the publisher', start: transaction.endedAt - t0, end: publisher.startedAt - t0 });
  if (publisher) at(publisher, 'outbox-publisher invocation (PutEvents)');
  if (send) {
    const page = calls.filter((entry) => entry.requestId === send.requestId);
    const notifier = page.find((entry) => entry.service === 'Lambda');
    if (notifier && publisher) hops.push({ hop: 'bus: PutEvents to the notifier\'s invocation', start: publisher.startedAt - t0, end: notifier.startedAt - t0 });
    for (const entry of page.filter((item) => item.service !== 'Lambda')) at(entry, `notifier ${entry.service === 'SES' ? 'SendEmail (SES API → mailbox)' : short(entry.command)}${entry.startedAt > send.endedAt ? ' (after the send)' : ''}`);
    if (notifier) at(notifier, 'notifier invocation (all of it)');
  }
  return hops;
}

/** Medians of each hop over the runs (a hop missing from a run is left out of its median). */
function medianHops(runs: ProfileHop[][]): ProfileHop[] {
  const names = [...new Set(runs.flatMap((hops) => hops.map((hop) => hop.hop)))];
  return names.map((hop) => {
    const found = runs.flatMap((hops) => hops.filter((entry) => entry.hop === hop));
    return { hop, start: median(found.map((entry) => entry.start)), end: median(found.map((entry) => entry.end)) };
  });
}

/**
 * Profiles the service's check → page path (`runs` runs, one at a time, each recorded) and a person's
 * acknowledge of an open incident.
 */
export async function profilePagePath(runtime: Runtime, runs = 9): Promise<PageProfile> {
  const setup = await pagingSetup(runtime, runs + 1);
  const service = new KeptAlive(runtime.url.replace('localhost', '127.0.0.1'));
  const mailbox = new KeptAlive(runtime.mailbox.url);
  const store = mailbox.prepare('GET', '/store');
  const arrived = async () => {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 1))) {
      if ((JSON.parse((await store()).body) as { emails: { destination: { to: string[] } }[] }).emails.some((email) => email.destination.to.includes(setup.oncall))) return;
    }
    throw new Error('no page within 10 s');
  };
  const json = { 'content-type': 'application/json' };
  const all: ProfileHop[][] = [];
  const arrivals: number[] = [];
  const incidents: string[] = [];
  for (const [index, monitorId] of setup.monitors.entries()) {
    await mailbox.request('POST', '/clear-store');
    await runtime.recordCalls();
    const t0 = epochNow();
    const [answer] = await Promise.all([
      service.request('POST', '/2015-03-31/functions/monitor-check/invocations', json, JSON.stringify({ monitorId, status: 'down', consecutiveFailures: 2, checkedAt: new Date().toISOString() })),
      arrived(),
    ]);
    const arrival = epochNow() - t0;
    await runtime.idle();
    const calls = await runtime.recordedCalls();
    incidents.push(JSON.parse(answer.body).incident_id);
    if (index === 0) continue; // the warm-up run
    arrivals.push(arrival);
    all.push(hopsOf(calls, t0, setup.oncall));
  }
  // A person acknowledging each incident: the request's latency, and when its transaction ended.
  const acks: { latency: number; settled: number; hops: ProfileHop[] }[] = [];
  for (const incidentId of incidents) {
    await runtime.recordCalls();
    const t0 = epochNow();
    const answer = await service.request('POST', `/api/incidents/${incidentId}/acknowledge`, { ...json, authorization: `Bearer ${setup.token}` }, '{"method":"web"}');
    const latency = epochNow() - t0;
    if (answer.status !== 200) throw new Error(`acknowledge: ${answer.status} ${answer.body}`);
    const calls = (await runtime.recordedCalls()).filter((entry) => entry.functionName === 'incidents-acknowledge');
    await runtime.idle();
    const transaction = calls.find((entry) => entry.command === 'TransactWriteItemsCommand');
    const invocation = calls.find((entry) => entry.service === 'Lambda');
    const hops: ProfileHop[] = [];
    if (invocation) hops.push({ hop: 'request through the gateway (JWT, routing) to the handler', start: 0, end: invocation.startedAt - t0 });
    for (const entry of calls.filter((item) => item.service === 'DynamoDB')) hops.push({ hop: `incidents-acknowledge ${short(entry.command)}`, start: entry.startedAt - t0, end: entry.endedAt - t0 });
    if (invocation) hops.push({ hop: 'incidents-acknowledge invocation (all of it)', start: invocation.startedAt - t0, end: invocation.endedAt - t0 });
    hops.push({ hop: 'the answer back to the client', start: invocation ? invocation.endedAt - t0 : 0, end: latency });
    acks.push({ latency, settled: transaction ? transaction.endedAt - t0 : Number.NaN, hops });
  }
  service.close();
  mailbox.close();
  const measured = acks.slice(1);
  return {
    runs: all.length,
    hops: medianHops(all),
    arrival: median(arrivals),
    acknowledge: { latency: median(measured.map((ack) => ack.latency)), settled: median(measured.map((ack) => ack.settled)), hops: medianHops(measured.map((ack) => ack.hops)) },
  };
}

/** The profile as Markdown tables. */
export function profileTable(profile: PageProfile, date = new Date()): string {
  const ms = (value: number) => value.toFixed(2);
  const rows = (hops: ProfileHop[], total: number) =>
    hops.map((hop) => `| ${hop.hop} | ${ms(hop.start)} | ${ms(hop.end)} | ${ms(hop.end - hop.start)} | ${Math.round(((hop.end - hop.start) / total) * 100)} % |`);
  return [
    `Measured by \`npm run bench -- profile\` on ${date.toISOString().slice(0, 10)}: the medians of ${profile.runs} runs, one at a time, each recorded (\`Service.recordCalls\`: every DynamoDB and SES call and every invocation, in both of the runtime's threads, on one clock), the trigger sent over HTTP as the monitoring system sends it.`,
    '',
    `**From a failure to the first page: ${ms(profile.arrival)} ms** (the check's Invoke request → step 1's e-mail in the mailbox).`,
    '',
    '| Hop | From (ms) | To (ms) | Takes (ms) | Share |',
    '|---|---|---|---|---|',
    ...rows(profile.hops, profile.arrival),
    `| the page's arrival in the mailbox (polled) | | ${ms(profile.arrival)} | | |`,
    '',
    `**From a click on acknowledge to the next step stopped: ${ms(profile.acknowledge.settled)} ms** (the acknowledge request → its transaction committed: from then on a step's page transaction is refused, its condition \`acknowledged = false\`); the answer reaches the client at ${ms(profile.acknowledge.latency)} ms.`,
    '',
    '| Hop | From (ms) | To (ms) | Takes (ms) | Share |',
    '|---|---|---|---|---|',
    ...rows(profile.acknowledge.hops, profile.acknowledge.latency),
  ].join('\n');
}
