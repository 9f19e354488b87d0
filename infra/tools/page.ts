/**
 * The headline's page rows and `npm run bench -- profile` (issue 33): the service's "monitor check / alert
 * trigger → first page e-mail" and "alert trigger → first page SMS" (issue 43) against the floor's page path
 * (floor.ts), timed by the client (client.ts, `pages`) from the trigger's request to the page's arrival in the
 * local mailbox or phone inbox; what each guarantee of
 * the design costs on the floor; and where the service's time on that path goes, hop by hop, from the calls
 * and invocations the runtime records (`Service.recordCalls`), with what a person's acknowledgement takes to
 * stop the next step.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { Service as Runtime } from '../local/perf/service.js';
import type { RecordedCall } from '../local/perf/call-recorder.js';
import type { Plan } from './client.js';
import { smsPagedPerson } from '../testing/scenarios.js';
import { call, KeptAlive, mailTo, median, runClient, signUp, startFloorProcess, type Row } from './lib.js';

/** A caller with a policy paging one address at once, and `count` monitors on it (failure threshold 1). */
async function pagingSetup(runtime: Runtime, count: number) {
  const tag = randomUUID().slice(0, 8);
  const { body } = await call(runtime, 'POST', '/local/users', undefined, { email: `pager-${tag}@bench.example`, name: 'Pager' });
  const token = body.token as string;
  const oncall = `oncall-${tag}@bench.example`;
  const policy = (await call(runtime, 'POST', '/api/escalation-policies', token, { name: `Pages ${tag}`, steps: [{ delay_minutes: 0, emails: [oncall] }, { delay_minutes: 30, emails: [oncall] }] })).body.escalation_policy;
  const monitors: string[] = [];
  for (let index = 0; index < count; index++) monitors.push((await call(runtime, 'POST', '/api/monitors', token, { name: `Paged ${tag} ${index}`, failure_threshold: 1, escalation_policy_id: policy.id })).body.monitor.id);
  const key = async (monitorId: string) => (await call(runtime, 'POST', `/api/monitors/${monitorId}/integrations`, token, { name: 'Bench tool' })).body.integration.key as string;
  const halves = { service: monitors.filter((_, index) => index % 2 === 0), floor: monitors.filter((_, index) => index % 2 === 1) };
  return { token, oncall, monitors, halves, key };
}

/** `count` people paged by SMS alone (`smsPagedPerson`), each at a number of their own, with a key of a monitor paging them; 4 set up at a time. */
async function smsPeople(runtime: Runtime, count: number) {
  const people: { phone: string; key: string }[] = [];
  for (let start = 0; start < count; start += 4) {
    const batch = Array.from({ length: Math.min(4, count - start) }, async () => {
      const person = await signUp(runtime, 'Paged by SMS');
      // A 555 number of its own, never ending in 0000 (whose receipts fail locally).
      const phone = `+1555${randomInt(1_000_000, 10_000_000)}1`;
      const send = async (method: string, path: string, body: unknown) => (await call(runtime, method, path, person.token, body)).body;
      return { phone, key: (await smsPagedPerson(send, async (to) => runtime.phones.messages(to), person.id, phone)).key };
    });
    people.push(...(await Promise.all(batch)));
  }
  return people;
}

/** The headline's page rows against the floor at `floorUrl`: check → page, alert trigger → page and alert trigger → SMS, run by run. */
export async function benchPagePath(runtime: Runtime, floorUrl: string, quick: boolean): Promise<Row[]> {
  const runs = quick ? 9 : 31;
  // Per side: a monitor per timed run, one for the warm-up run, and one for the alerts; a person paged by SMS per run and the warm-up's.
  const setup = await pagingSetup(runtime, 2 * (runs + 2));
  const { service, floor } = setup.halves;
  const keys = { service: await setup.key(service[0]!), floor: await setup.key(floor[0]!) };
  const people = await smsPeople(runtime, 2 * (runs + 1));
  const sms = { phonesUrl: runtime.url.replace('localhost', '127.0.0.1'), people: { service: people.slice(0, runs + 1), floor: people.slice(runs + 1) } };
  const pages: Plan['pages'] = { mailboxUrl: runtime.mailbox.url, oncall: setup.oncall, runs, kinds: ['check', 'alert', 'sms'], monitors: { service: service.slice(1), floor: floor.slice(1) }, keys, sms };
  await runtime.idle();
  try {
    return await runClient({ serviceUrl: runtime.url.replace('localhost', '127.0.0.1'), floorUrl, pages } satisfies Plan);
  } finally {
    await runtime.idle();
  }
}

/** What each guarantee of the design costs on the check → page path: the floor against itself with the guarantee added (`with`). */
export async function guaranteeCosts(runtime: Runtime, runs = 9): Promise<Row[]> {
  const rows: Row[] = [];
  const variants: [string, string[]][] = [
    ["exactly-once pages: the delivery record (with the acknowledge link's record) written before the send, marked after", ['delivery']],
    ["the atomic timeline: the steps, the monitor's count, the `created` and `paged` entries and the second event in the opening transaction", ['transaction']],
    ['both', ['delivery', 'transaction']],
  ];
  for (const [figure, variant] of variants) {
    const setup = await pagingSetup(runtime, 2 * (runs + 1));
    const [base, added] = [await startFloorProcess(runtime), await startFloorProcess(runtime, variant)];
    try {
      const pages = { mailboxUrl: runtime.mailbox.url, oncall: setup.oncall, runs, serviceIsFloor: true, kinds: ['check' as const], monitors: setup.halves, keys: { service: '', floor: '' } };
      const [measured] = await runClient({ serviceUrl: added.url, floorUrl: base.url, pages } satisfies Plan);
      rows.push({ ...measured!, figure, goal: '—' });
    } finally {
      await Promise.all([base.stop(), added.stop()]);
    }
  }
  return rows;
}

/** The guarantees' costs as Markdown. */
export function guaranteeTable(rows: Row[]): string {
  return [
    '| The floor with | p50 with it | p50 without | Ratio | Costs (ms, p50) |',
    '|---|---|---|---|---|',
    ...rows.map((entry) => `| ${entry.figure} | ${entry.service.toFixed(1)} ms | ${entry.floor.toFixed(1)} ms | ${(entry.service / entry.floor).toFixed(2)}× | ${(entry.service - entry.floor).toFixed(1)} |`),
  ].join('\n');
}

// ----- Where the time goes ------------------------------------------------------------------------

const epochNow = () => performance.timeOrigin + performance.now();

/** A hop, in milliseconds after the trigger's request (medians over the runs). */
export interface ProfileHop {
  hop: string;
  start: number;
  end: number;
}

/** The hops, the page's arrival; a person's acknowledge: its latency, and when its transaction (after which no step pages) ended. */
export interface PageProfile {
  runs: number;
  hops: ProfileHop[];
  arrival: number;
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

/** Profiles the service's check → page path (`runs` runs, one at a time, each recorded) and a person's acknowledge. */
export async function profilePagePath(runtime: Runtime, runs = 9): Promise<PageProfile> {
  const setup = await pagingSetup(runtime, runs + 1);
  const service = new KeptAlive(runtime.url.replace('localhost', '127.0.0.1'));
  const mailbox = new KeptAlive(runtime.mailbox.url);
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
      mailTo(mailbox, setup.oncall),
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
  for (const client of [service, mailbox]) client.close();
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
