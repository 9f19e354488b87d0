/**
 * `npm run bench -- path`: the runtime's overhead on our own calls. Its floors are replays, not the design's
 * minimum (the headline's floor.ts is that): the same DynamoDB calls the service made, recorded from the
 * handler's own calls and sent again straight to the same DynamoDB Local in their round trips, with a client
 * configured as the service's (`newDocumentClient`, `leanClient`), so the ratios measure the runtime's glue:
 * bundle size, module load, warm CPU, request latency, throughput, reads under writes, and check → e-mail.
 * Service and floor interleaved in one run, 3 rounds, the median of the rounds. A benchmark, not a test.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient, DescribeTableCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { SendEmailCommand, SESClient, type SendEmailCommandInput } from '@aws-sdk/client-ses';
import { execFile, execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleAll, bundleSource } from '../build/bundling.js';
import type { Service as Runtime } from '../local/perf/service.js';
import type { RecordedCall } from '../local/perf/call-recorder.js';
import { invokeFunction } from '../local/aws/functions.js';
import { leanClient } from '../../shared/platform/aws-client.js';
import { confirmFromMailbox, pagingMonitor, type PagingMonitor, type ReadMail } from '../testing/scenarios.js';
import { httpEvent } from '../testing/events.js';
import { dynamoCalls, stopObservingCalls } from '../testing/ddb-calls.js';
import { newDocumentClient } from '../../shared/platform/db/client.js';
import { workers } from '../../shared/system.js';
import { LoadClient, type Answer } from './load-client.js';
import { call, KeptAlive, mailTo, median, percentile, row, signUp, type Row } from './lib.js';
import type { ProbeInput, ProbeOutput } from './warm-cpu-probe.js';

const runProcess = promisify(execFile);

const ROUNDS = 3;

const elapsed = async (work: () => Promise<unknown>) => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};
const api = async (runtime: Runtime, method: string, path: string, token: string | undefined, body?: unknown) => (await call(runtime, method, path, token, body)).body;

/** The DocumentClient command for each low-level command name the call observer reports. */
const DOCUMENT_COMMANDS: Record<string, new (input: never) => { input: unknown }> = {
  GetItemCommand: GetCommand,
  PutItemCommand: PutCommand,
  UpdateItemCommand: UpdateCommand,
  DeleteItemCommand: DeleteCommand,
  QueryCommand,
  BatchGetItemCommand: BatchGetCommand,
  BatchWriteItemCommand: BatchWriteCommand,
  TransactGetItemsCommand: TransactGetCommand,
  TransactWriteItemsCommand: TransactWriteCommand,
};

/** The DocumentClient command of a low-level command name, as the call observers report it. */
function documentCommand(command: string, input: unknown) {
  const Command = DOCUMENT_COMMANDS[command];
  if (!Command) throw new Error(`no DocumentClient command for ${command}`);
  return new Command(structuredClone(input) as never) as never;
}

/** A UUID: the ids the service mints, in its keys and items. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** `text` with every UUID replaced as `fresh` maps it (a new one mapped to a random UUID): a recorded call's ids replay as a new entity's. */
const freshIds = (fresh: Map<string, string>, text: string) => text.replace(UUID, (id) => fresh.get(id) ?? fresh.set(id, randomUUID()).get(id)!);

/** Every string in `value` (Sets, arrays and objects walked) through `replace`. */
function mapStrings(value: unknown, replace: (text: string) => string): unknown {
  if (typeof value === 'string') return replace(value);
  if (value instanceof Set) return new Set([...value].map((inner) => mapStrings(inner, replace)));
  if (Array.isArray(value)) return value.map((inner) => mapStrings(inner, replace));
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, mapStrings(inner, replace)]));
  }
  return value;
}

/** The item types the table's stream consumers act on (the outbox publisher's). */
const consumedTypes = new Set<string>(workers.publisher.stream?.itemTypes ?? []);

/** A write's input with the items the stream's consumers act on renamed (`outbox` → `floor-outbox`): the copy starts no background work. */
function unconsumed(input: Record<string, unknown>): Record<string, unknown> {
  const puts = (input.TransactItems as { Put?: { Item: Record<string, unknown> } }[] | undefined) ?? [];
  const items = [input.Item as Record<string, unknown> | undefined, ...puts.map((item) => item.Put?.Item)];
  for (const item of items) if (item && consumedTypes.has(String(item.type))) item.type = `floor-${String(item.type)}`;
  return input;
}

/** A conditional write refused on replay costs DynamoDB the same round trip; any other failure means the floor is wrong. */
const refusedCondition = (error: unknown) => error instanceof Error && /ConditionalCheckFailed|TransactionCanceled/.test(error.name);

type Rounds = { service?: string; command: string; input: unknown }[][];

/** The DynamoDB calls one function's invocation made (as its DocumentClient sent them), calls of one round trip together. */
function recordRounds(functionName: string, calls: ReturnType<typeof dynamoCalls>): Rounds {
  const recorded = calls.calls.filter((call) => call.functionName === functionName);
  const rounds: Rounds = [];
  for (const call of recorded) {
    if (call.opensRound || rounds.length === 0) rounds.push([]);
    const input = structuredClone(call.input) as { ReturnConsumedCapacity?: string };
    // The observer asks every Query for its consumed capacity; the handler does not.
    if (call.command === 'QueryCommand') delete input.ReturnConsumedCapacity;
    rounds.at(-1)!.push({ command: call.command, input });
  }
  if (recorded.length === 0) throw new Error(`${functionName} made no DynamoDB call to replay`);
  return rounds;
}

/** Every replayed floor: recorded calls (DynamoDB's, SES's SendEmail) sent again straight, round trip by round trip. */
function replayWith(document: DynamoDBDocumentClient, rounds: Rounds, ses?: SESClient) {
  const send = ({ service, command, input }: Rounds[number][number]) => {
    if (service === 'SES' && (command !== 'SendEmailCommand' || !ses)) throw new Error(`no floor for SES ${command}`);
    return (service === 'SES' ? ses!.send(new SendEmailCommand(input as SendEmailCommandInput)) : document.send(documentCommand(command, input))) as Promise<unknown>;
  };
  return async () => {
    for (const round of rounds) await Promise.all(round.map((entry) => send(entry).catch((error: unknown) => {
      if (!refusedCondition(error)) throw error;
    })));
  };
}

/**
 * The floor of warm invocation CPU, bundled as the functions are: the rounds of calls it is given, sent with a
 * DocumentClient configured as the service's, so both sides run the SDK as it deploys and differ only by the handler.
 */
const REPLAY_SOURCE = `import * as lib from '@aws-sdk/lib-dynamodb';
import { newDocumentClient } from './shared/platform/db/client.ts';
const client = newDocumentClient();
const commands = { ${Object.entries(DOCUMENT_COMMANDS)
  .map(([low, Command]) => `${low}: lib.${Command.name}`)
  .join(', ')} };
export const handler = async (rounds) => {
  for (const round of rounds) await Promise.all(round.map(({ command, input }) => client.send(new commands[command](input))));
};
`;

/** The request path's rows, then the e-mail path's. */
export async function benchPath(runtime: Runtime): Promise<Row[]> {
  return [...(await benchRequestPath(runtime)), ...(await benchEmailPath(runtime))];
}

async function benchRequestPath(runtime: Runtime): Promise<Row[]> {
  const rows: Row[] = [];
  const calls = dynamoCalls();
  // The floors' client is configured as the service's.
  const document = newDocumentClient();

  // ----- Bundle size and module load ---------------------------------------------------------
  const { baseline, functions } = await bundleAll();
  const handlerSize = median(functions.map((bundle) => bundle.code.length));
  rows.push(row('handler bundle (median of ' + functions.length + ') vs DocumentClient + GetItem', handlerSize / 1024, baseline.code.length / 1024, 'KB', '≤ 1.25×'));
  const dir = mkdtempSync(join(tmpdir(), 'bench-load-'));
  const files = { handler: join(dir, 'incidents-get.mjs'), baseline: join(dir, 'baseline.mjs') };
  writeFileSync(files.handler, functions.find((bundle) => bundle.name === 'incidents-get')!.code);
  writeFileSync(files.baseline, baseline.code);
  const script = (file: string) => `const t=performance.now();await import(${JSON.stringify(file)});console.log(performance.now()-t)`;
  const load = (file: string) => Number(execFileSync(process.execPath, ['--input-type=module', '-e', script(file)], { env: { ...process.env, TABLE_NAME: 'x', AWS_REGION: 'eu-west-1', NODE_OPTIONS: '' } }).toString());
  rows.push(await rounds('module load of incidents-get in a fresh process vs baseline bundle', 'ms', '≤ 1.25×', async () => {
    const service: number[] = [];
    const floor: number[] = [];
    for (let run = 0; run < 7; run++) {
      service.push(load(files.handler));
      floor.push(load(files.baseline));
    }
    return [median(service), median(floor)];
  }));

  // ----- Data: a caller with a monitor, incidents and subscribers ---------------------------------
  const caller = await signUp(runtime, 'Bench');
  const monitor = (await api(runtime, 'POST', '/api/monitors', caller.token, { name: 'Bench monitor' })).monitor;
  const incident = (await api(runtime, 'POST', '/api/incidents', caller.token, { monitorId: monitor.id, title: 'Bench incident' })).incident;
  for (let index = 0; index < 20; index++) await api(runtime, 'POST', '/api/incidents', caller.token, { monitorId: monitor.id, title: `Older ${index}` });

  // ----- Warm invocation CPU: the deployed bundle called as Lambda calls it, in a process of its own
  // (warm-cpu-probe.ts: none of the runtime's middlewares, threads and async hooks), vs its calls from a
  // bundle built the same way. Each round a fresh process, as each Lambda instance is.
  calls.reset();
  await api(runtime, 'GET', `/api/incidents/${incident.id}`, caller.token);
  const getRounds = recordRounds('incidents-get', calls);
  const getFloor = replayWith(document, getRounds);
  const replayFile = join(dir, 'replay.mjs');
  writeFileSync(replayFile, await bundleSource(REPLAY_SOURCE));
  const probeFile = join(dir, 'warm-cpu-probe.mjs');
  writeFileSync(probeFile, await bundleSource("import './infra/tools/warm-cpu-probe.ts';"));
  const probeInput: ProbeInput = {
    handlerFile: pathToFileURL(files.handler).href,
    floorFile: pathToFileURL(replayFile).href,
    functionName: 'incidents-get',
    event: { ...httpEvent({ routeKey: 'GET /api/incidents/{id}', sub: caller.id, pathParameters: { id: incident.id } }), body: undefined },
    floorInput: getRounds,
    warm: 1_000,
    blocks: 40,
    blockSize: 30,
    output: join(dir, 'warm-cpu.json'),
  };
  writeFileSync(join(dir, 'warm-cpu-input.json'), JSON.stringify(probeInput));
  rows.push(await rounds('warm invocation CPU, the deployed incidents-get called directly vs its DynamoDB calls from a bundle built the same way', 'ms/call', '≤ 1.15×', async () => {
    await runProcess(process.execPath, [probeFile, join(dir, 'warm-cpu-input.json')], { env: { ...process.env, NODE_OPTIONS: '' } });
    const { service, floor } = JSON.parse(readFileSync(probeInput.output, 'utf8')) as ProbeOutput;
    return [service, floor];
  }));

  // ----- Request latency through the local runtime vs the same calls direct --------------------
  // The timed requests go through the load client (requests built once, on raw kept-alive sockets).
  const loadClient = new LoadClient(runtime.url);
  const auth = { authorization: `Bearer ${caller.token}` };
  const succeeded = async (what: string, answer: Promise<Answer>) => {
    const { status, body } = await answer;
    if (status !== 200) throw new Error(`${what}: ${status} ${body}`);
  };
  const getIncident = loadClient.prepare('GET', `/api/incidents/${incident.id}`, auth);
  const listIncidents = loadClient.prepare('GET', '/api/incidents?limit=20', auth);
  const putTitle = () => loadClient.request('PUT', `/api/incidents/${incident.id}`, { ...auth, 'content-type': 'application/json' }, JSON.stringify({ title: `Bench ${randomUUID().slice(0, 8)}` }));
  const requests = [
    { name: 'GET incident', route: 'incidents-get', send: () => succeeded('GET incident', getIncident()) },
    { name: 'list incidents', route: 'incidents-list', send: () => succeeded('list incidents', listIncidents()) },
    { name: 'PUT title', route: 'incidents-update', send: () => succeeded('PUT title', putTitle()) },
  ];
  const floors = new Map<string, () => Promise<void>>();
  for (const request of requests) {
    calls.reset();
    await request.send();
    floors.set(request.route, replayWith(document, recordRounds(request.route, calls)));
  }
  // The reads-under-writes rows' writes: incidents of a team's monitor with 20 confirmed subscribers, created by
  // its members in turn (the service counts 100 incidents a day per account); the first member's is recorded.
  // The team is another account's: the reader stays in no team, as when its floors above were recorded (in a
  // team, its list reads the team's page too, a round trip its recorded floor would not make).
  const lead = await signUp(runtime, 'Bench lead');
  const team = (await api(runtime, 'POST', '/api/teams', lead.token, { name: 'Bench writers', slug: `bench-${randomUUID().slice(0, 8)}` })).team;
  const shared = (await api(runtime, 'POST', '/api/monitors', lead.token, { name: 'Bench writes', team_id: team.id })).monitor;
  const [mailbox, pages] = [new KeptAlive(runtime.mailbox.url), new KeptAlive(runtime.url)];
  const confirm = confirmFromMailbox(async () => JSON.parse((await mailbox.request('GET', '/store')).body).emails, (path) => pages.request('POST', path));
  for (let index = 0; index < 20; index++) {
    const email = `reader-${index}-${randomUUID().slice(0, 6)}@bench.example`;
    await api(runtime, 'POST', `/api/monitors/${shared.id}/subscribers`, lead.token, { email });
    await confirm(email);
  }
  for (const client of [mailbox, pages]) client.close();
  const writers: { id: string; token: string }[] = [];
  for (let index = 0; index < 40; index++) {
    const writer = await signUp(runtime, `Writer ${index}`);
    const { invite } = await api(runtime, 'POST', `/api/teams/${team.id}/invite`, lead.token, { email: writer.email, role: 'MEMBER' });
    await api(runtime, 'POST', `/api/teams/invites/${invite.token}/accept`, writer.token);
    writers.push(writer);
  }
  calls.reset();
  await api(runtime, 'POST', '/api/incidents', writers[0]!.token, { monitorId: shared.id, title: 'Recorded' });
  const createRounds = recordRounds('incidents-create', calls);
  // Its e-mails to the 20 subscribers go before anything is timed.
  await runtime.idle();
  // Everything to replay is recorded: the bench's call log comes off the service's client, so that
  // neither side pays for this bench's own instrumentation.
  stopObservingCalls();
  for (const request of requests) {
    const floor = floors.get(request.route)!;
    // Steady state, as a warm Lambda instance serves: both paths run 3 s before they are timed (Node's JIT, DynamoDB Local's).
    for (const until = performance.now() + 3_000; performance.now() < until; ) {
      await request.send();
      await floor();
    }
    rows.push(await rounds(`request latency p50 through the local runtime: ${request.name}`, 'ms', '≤ 1.3×', async () => {
      const service: number[] = [];
      const direct: number[] = [];
      for (let run = 0; run < 200; run++) {
        service.push(await elapsed(request.send));
        direct.push(await elapsed(floor));
      }
      return [median(service), median(direct)];
    }));
  }

  // ----- Throughput at concurrency 8 -----------------------------------------------------------
  const throughput = async (work: () => Promise<unknown>) => {
    let done = 0;
    const until = performance.now() + 3_000;
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (; performance.now() < until; done++) await work();
    }));
    return done / 3;
  };
  // Steady state at concurrency 8 too (the latency rows ran one request at a time): each side 3 s first.
  await throughput(requests[0]!.send);
  await throughput(getFloor);
  rows.push(await rounds('throughput at concurrency 8, GET incident vs floor', 'req/s', '≥ 0.8', async () => [await throughput(requests[0]!.send), await throughput(getFloor)]));

  // ----- Reads while writes run (e-mail work in the same process) ------------------------------
  let created = 0;
  const createIncident = () => {
    const writer = writers[1 + Math.floor(created++ / 90)];
    if (!writer) throw new Error('the bench ran out of writers (90 incidents each)');
    return api(runtime, 'POST', '/api/incidents', writer.token, { monitorId: shared.id, title: 'Background' });
  };
  /** An incident's writes alone: its recorded calls under fresh ids, its event out of the consumers' reach (no publisher, no e-mail). */
  const writeAlone = () => {
    const fresh = new Map([writers[0]!.id, shared.id, team.id].map((id) => [id, id]));
    const substitute = (text: string) => freshIds(fresh, text);
    const rounds = createRounds.map((round) => round.map(({ command, input }) => ({ command, input: unconsumed(mapStrings(input, substitute) as Record<string, unknown>) })));
    return replayWith(document, rounds)();
  };
  /**
   * The p99 of `read`, called one after another for 3 s, while incidents are created (each e-mailed to 20
   * subscribers): `steady`, 5 a second (the e-mail work keeps pace); `back to back`, which outruns the e-mail
   * work and DynamoDB Local on two cores; or none. `create` makes one (the service's POST unless told).
   */
  const readP99 = async (read: () => Promise<unknown>, writes: 'steady' | 'back to back' | 'none', create: () => Promise<unknown> = createIncident) => {
    let writing = writes !== 'none';
    const created: Promise<unknown>[] = [];
    const writer = (async () => {
      if (writes === 'back to back') while (writing) await create();
      else for (let next = performance.now(); writing; next += 200) {
        const write = create();
        // A failed write fails the bench below (Promise.all), not as an unhandled rejection meanwhile.
        write.catch(() => undefined);
        created.push(write);
        await sleep(Math.max(0, next + 200 - performance.now()));
      }
    })();
    const latencies: number[] = [];
    for (const until = performance.now() + 3_000; performance.now() < until; ) latencies.push(await elapsed(read));
    writing = false;
    await writer;
    await Promise.all(created);
    await runtime.idle();
    return percentile(latencies, 0.99);
  };
  // The write path warms up (DynamoDB Local's JIT too) before anything is timed.
  await readP99(requests[0]!.send, 'back to back');
  // Each round takes the seven measures in an order that turns from round to round.
  const loads = ['steady', 'back to back', 'none'] as const;
  const sides = { service: requests[0]!.send, floor: getFloor };
  const p99s = new Map<string, number[]>();
  const measure = (key: string, p99: () => Promise<number>) => async () => p99s.set(key, [...(p99s.get(key) ?? []), await p99()]);
  const measures = [
    ...loads.flatMap((writes) => Object.entries(sides).map(([side, read]) => measure(`${side} ${writes}`, () => readP99(read, writes)))),
    measure('floor writes alone', () => readP99(getFloor, 'steady', writeAlone)),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    for (let index = 0; index < measures.length; index++) await measures[(round + index) % measures.length]!();
  }
  const p99 = (side: keyof typeof sides, writes: (typeof loads)[number] | 'writes alone') => median(p99s.get(`${side} ${writes}`)!);
  // The same calls sent straight slow down under the writes by themselves (DynamoDB Local shares the cores):
  // what the service adds is its p99 over theirs; against reads alone, the two rows after.
  rows.push(row('GET incident p99 while incidents (20 subscribers each) are created 5 a second vs the same calls straight under the same writes', p99('service', 'steady'), p99('floor', 'steady'), 'ms', '≤ 1.3×'));
  rows.push(row('GET incident p99 while incidents are created back to back vs the same calls straight under the same writes', p99('service', 'back to back'), p99('floor', 'back to back'), 'ms', '≤ 1.3×'));
  rows.push(row('GET incident p99 while incidents are created 5 a second vs reads alone (DynamoDB Local slowing down included)', p99('service', 'steady'), p99('service', 'none'), 'ms', '≤ 1.3×'));
  rows.push(row('GET incident p99 while incidents are created back to back vs reads alone (DynamoDB Local slowing down included)', p99('service', 'back to back'), p99('service', 'none'), 'ms', '≤ 1.3×'));
  rows.push(row('(for comparison) the same calls straight to DynamoDB Local, p99 while incidents are created 5 a second vs alone', p99('floor', 'steady'), p99('floor', 'none'), 'ms', '—'));
  rows.push(row('(for comparison) the same calls straight to DynamoDB Local, p99 while incidents are created back to back vs alone', p99('floor', 'back to back'), p99('floor', 'none'), 'ms', '—'));
  // What writing the incidents costs a read by itself, whatever the runtime: no event, no e-mail.
  rows.push(row("(for comparison) the same calls straight to DynamoDB Local, p99 while 5 incidents a second are written straight (each incident's own calls; no event, no e-mail) vs alone", p99('floor', 'writes alone'), p99('floor', 'none'), 'ms', '—'));

  for (const client of [document, loadClient]) 'destroy' in client ? client.destroy() : client.close();
  return rows;
}

/** Runs `measure` ROUNDS times and takes the median of each side. */
async function rounds(figure: string, unit: string, goal: string, measure: () => Promise<[number, number]>): Promise<Row> {
  const measured: [number, number][] = [];
  for (let round = 0; round < ROUNDS; round++) measured.push(await measure());
  return row(figure, median(measured.map(([service]) => service)), median(measured.map(([, floor]) => floor)), unit, goal);
}

// ----- check → e-mail ----------------------------------------------------------------------------

/**
 * The e-mail path's rows: monitor-check → the first e-mail in the local mailbox, and → step 1's e-mail,
 * against the same calls sent straight. The service's calls on the path are recorded (`Service.recordCalls`,
 * both threads), and the floor replays them: monitor-check's rounds → the transaction's record read off the
 * stream without sleeping → each background invocation's rounds at once (as the service runs them) → the
 * mailbox. What the service adds is its path between them: the stream reader, the publisher, the bus, the
 * handler stacks and the SES API in front of the mailbox. A row beside them keeps the smallest such path
 * (one Put in a TransactWriteItems → stream → one SendEmail).
 */
const RUNS = 5;
type Setup = PagingMonitor & { ownerId: string };

const HEX_64 = /\b[0-9a-f]{64}\b/g;
/** How long a run may wait for its record on the stream or its e-mail in the mailbox. */
const PATIENCE_MS = 10_000;

/** A call's rounds within its invocation: a call joins the round under way if one of its calls is still in flight. */
function roundsOf(calls: RecordedCall[]): RecordedCall[][] {
  const rounds: RecordedCall[][] = [];
  for (const entry of calls) {
    const current = rounds.at(-1);
    if (current?.some((earlier) => earlier.endedAt > entry.startedAt)) current.push(entry);
    else rounds.push([entry]);
  }
  return rounds;
}

async function benchEmailPath(runtime: Runtime): Promise<Row[]> {
  const mailboxUrl = runtime.mailbox.url;
  const raw = leanClient(new DynamoDBClient({}));
  const document = newDocumentClient();
  const streams = new DynamoDBStreamsClient({});
  const ses = leanClient(new SESClient({ endpoint: mailboxUrl }));
  const tableName = runtime.tableName;
  const { Table } = await raw.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = Table!.LatestStreamArn!;

  /** What one run needs of its own: a monitor paging `oncall` at once, with a subscriber, of an account of its own (one pages 25 outside addresses a day). */
  const prepare = async (): Promise<Setup> => {
    const owner = await signUp(runtime, 'E-mail bench');
    const send = async (method: string, path: string, body: unknown) => (await call(runtime, method, path, owner.token, body)).body;
    const confirm = confirmFromMailbox(async () => (JSON.parse(await mailboxCall('GET', '/store')) as { emails: Awaited<ReturnType<ReadMail>> }).emails, (path) => confirmer.request('POST', path));
    const setup = { ...(await pagingMonitor(send, confirm, 'bench.example')), ownerId: owner.id };
    await runtime.idle();
    return setup;
  };

  // The mailbox emptied before each timed path (a poll reads a run's own mail), polled over a kept-alive connection.
  const mailboxClient = new KeptAlive(mailboxUrl);
  const confirmer = new KeptAlive(runtime.url);
  const mailboxCall = async (method: string, path: string) => (await mailboxClient.request(method, path)).body;
  const emptyMailbox = () => mailboxCall('POST', '/clear-store');
  const mailbox = (to: string) => mailTo(mailboxClient, to, 2);
  /** Iterators at the end of every open shard: what is written after this is what a read finds. */
  const streamEnd = async () => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    return Promise.all(
      (StreamDescription!.Shards ?? [])
        .filter((shard) => !shard.SequenceNumberRange?.EndingSequenceNumber)
        .map(async (shard) => (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'LATEST' }))).ShardIterator!),
    );
  };
  /** Reads the stream without sleeping until a record of one of `keys` (`pk sk`) is on it. */
  const readUntil = async (iterators: (string | undefined)[], keys: Set<string>) => {
    for (const deadline = Date.now() + PATIENCE_MS; ; ) {
      const open = iterators.filter((iterator) => iterator !== undefined);
      if (open.length === 0 || Date.now() > deadline) throw new Error(`The stream did not carry ${[...keys][0]} within ${PATIENCE_MS} ms`);
      for (const [index, iterator] of iterators.entries()) {
        if (iterator === undefined) continue;
        const result = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        // A shard that closed meanwhile has no next iterator (its child opened after this run began).
        iterators[index] = result.NextShardIterator;
        if ((result.Records ?? []).some(({ dynamodb }) => keys.has(`${dynamodb?.Keys?.pk?.S} ${dynamodb?.Keys?.sk?.S}`))) return;
      }
    }
  };

  // ----- The service: monitor-check invoked as the monitoring system invokes it ------------------
  const checkToEmail = async (setup: Setup) => {
    await emptyMailbox();
    const start = performance.now();
    await invokeFunction('monitor-check', { monitorId: setup.monitorId, status: 'down', consecutiveFailures: 2, checkedAt: new Date().toISOString() });
    const [first, page] = await Promise.all([
      mailbox(setup.subscriber).then(() => performance.now() - start),
      mailbox(setup.oncall).then(() => performance.now() - start),
    ]);
    await runtime.idle();
    return { first, page };
  };

  // ----- The floor: the calls of one recorded run, under the ids of a fresh setup ----------------
  const template = await prepare();
  await runtime.recordCalls();
  await checkToEmail(template);
  // The invocations themselves (service `Lambda`) are not calls to replay.
  const recorded = (await runtime.recordedCalls()).filter((entry) => entry.service !== 'Lambda');
  const check = recorded.filter((entry) => entry.functionName === 'monitor-check');
  const invocations = new Map<string, RecordedCall[]>();
  for (const entry of recorded) {
    if (entry.functionName !== 'monitor-check') invocations.set(entry.requestId, [...(invocations.get(entry.requestId) ?? []), entry]);
  }
  if (!check.some((entry) => entry.command === 'TransactWriteItemsCommand') || !recorded.some((entry) => entry.service === 'SES')) {
    throw new Error(`The recorded path lacks monitor-check's transaction or a SendEmail: ${recorded.map((entry) => `${entry.functionName} ${entry.command}`).join(', ')}`);
  }
  const replay = (setup: Setup) => {
    const fresh = new Map<string, string>([[template.monitorId, setup.monitorId], [template.policyId, setup.policyId], [template.ownerId, setup.ownerId]]);
    const substitute = (text: string) =>
      text === tableName
        ? text
        : freshIds(fresh, text)
        .replace(HEX_64, (hash) => fresh.get(hash) ?? fresh.set(hash, randomBytes(32).toString('hex')).get(hash)!)
        .replaceAll(template.tag, setup.tag);
    const prepared = (entry: RecordedCall) => ({ ...entry, input: unconsumed(mapStrings(entry.input, substitute) as Record<string, unknown>) });
    const checkRounds = roundsOf(check).map((round) => round.map(prepared));
    const transaction = checkRounds.flat().find((entry) => entry.command === 'TransactWriteItemsCommand')!;
    const written = new Set(
      (transaction.input.TransactItems as { Put?: { Item: Record<string, string> } }[]).flatMap((item) => (item.Put ? [`${item.Put.Item.pk} ${item.Put.Item.sk}`] : [])),
    );
    const background = [...invocations.values()].map((calls) => replayWith(document, roundsOf(calls).map((round) => round.map(prepared)), ses));
    const checkFloor = replayWith(document, checkRounds, ses);
    return async () => {
      const iterators = await streamEnd();
      await emptyMailbox();
      const start = performance.now();
      await checkFloor();
      // As for the service: the mailbox is watched once monitor-check's calls are done.
      const mails = Promise.all([mailbox(setup.subscriber).then(() => performance.now() - start), mailbox(setup.oncall).then(() => performance.now() - start)]);
      try {
        await readUntil(iterators, written);
        await Promise.all(background.map((run) => run()));
      } catch (error) {
        mails.catch(() => undefined);
        throw error;
      }
      const [first, page] = await mails;
      return { first, page };
    };
  };

  /** The smallest path of the kind: one Put in a TransactWriteItems → the stream → one SendEmail → the mailbox. */
  const smallest = async () => {
    const iterators = await streamEnd();
    await emptyMailbox();
    const id = randomUUID();
    const to = `floor-${id}@bench.example`;
    const start = performance.now();
    const item = { pk: { S: `BENCH#${id}` }, sk: { S: 'BENCH' }, to: { S: to }, ttl: { N: String(Math.floor(Date.now() / 1000) + 3600) } };
    await raw.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: tableName, Item: item } }] }));
    await readUntil(iterators, new Set([`BENCH#${id} BENCH`]));
    await ses.send(new SendEmailCommand({ Source: 'floor@bench.example', Destination: { ToAddresses: [to] }, Message: { Subject: { Data: 'floor' }, Body: { Text: { Data: 'floor' } } } }));
    await mailbox(to);
    return performance.now() - start;
  };

  const medians: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    const runs: Record<string, number[]> = {};
    for (let run = 0; run < RUNS; run++) {
      const service = await checkToEmail(await prepare());
      const floor = await replay(await prepare())();
      const measured = { first: service.first, page: service.page, floorFirst: floor.first, floorPage: floor.page, smallest: await smallest() };
      for (const [name, value] of Object.entries(measured)) (runs[name] ??= []).push(value);
    }
    for (const [name, values] of Object.entries(runs)) (medians[name] ??= []).push(median(values));
  }
  const of = (name: string) => median(medians[name]!);
  for (const client of [streams, ses, raw, document, mailboxClient, confirmer]) 'destroy' in client ? client.destroy() : client.close();
  return [
    row('monitor-check → first e-mail in the local mailbox vs the same calls straight (TransactWrite → stream → SendEmail)', of('first'), of('floorFirst'), 'ms', '≤ 2×'),
    row('monitor-check → escalation step 1 e-mail vs the same calls straight', of('page'), of('floorPage'), 'ms', '≤ 3×'),
    row('(for comparison) monitor-check → first e-mail vs one Put in a TransactWrite → stream → one SendEmail', of('first'), of('smallest'), 'ms', '—'),
  ];
}
