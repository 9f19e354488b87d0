/**
 * `npm run bench -- path`, its last rows: monitor-check → the first e-mail in the local mailbox,
 * and → the escalation step 1 e-mail, against their floor: the same calls sent straight. The
 * service's calls on that path are recorded (`Service.recordCalls`: monitor-check's reads and
 * its transaction; then, per background invocation, the notifier's reads, delivery records and
 * SendEmail), and the floor replays them with the low-level clients: monitor-check's rounds → the
 * transaction's record read off the stream without sleeping → each invocation's rounds at once →
 * the mailbox. What the service adds is its own path between them: the stream reader, the outbox
 * publisher, the event bus, the functions' handler stacks and the background thread's SES API in
 * front of the mailbox (the floor sends to the mailbox itself). The background invocations' calls
 * are replayed concurrently, as the service runs them. A row beside them keeps the smallest such path
 * (one Put in a TransactWriteItems → stream → one SendEmail). The floor's clients are configured as
 * the service's are (`newDocumentClient`, `leanClient`).
 */
import { DynamoDBClient, DescribeTableCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { SendEmailCommand, SESClient, type SendEmailCommandInput } from '@aws-sdk/client-ses';
import { randomBytes, randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import type { RecordedCall } from '../local/perf/call-recorder.js';
import { invokeFunction } from '../local/aws/functions.js';
import type { Service as Runtime } from '../local/perf/service.js';
import { median } from '../build/bundling.js';
import { leanClient } from '../../shared/platform/aws-client.js';
import { newDocumentClient } from '../../shared/platform/db/client.js';
import { confirmFromMailbox, pagingMonitor, type PagingMonitor as Setup, type ReadMail } from '../testing/scenarios.js';
import { call, documentCommand, freshIds, mapStrings, requestText, row, unconsumed, type Row } from './bench-path.js';

const ROUNDS = 3;
const RUNS = 5;

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

export async function benchEmailPath(runtime: Runtime, mailboxUrl: string): Promise<Row[]> {
  const raw = leanClient(new DynamoDBClient({}));
  const document = newDocumentClient();
  const streams = new DynamoDBStreamsClient({});
  const ses = leanClient(new SESClient({ endpoint: mailboxUrl }));
  const tableName = runtime.tableName;
  const { Table } = await raw.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = Table!.LatestStreamArn!;

  const caller = (await call(runtime, 'POST', '/local/users', undefined, { email: `email-bench-${randomUUID()}@bench.example`, name: 'Bench' })).body as {
    user: { id: string };
    token: string;
  };
  const api = async (method: string, path: string, body: unknown) => (await call(runtime, method, path, caller.token, body)).body;
  /** What one run needs of its own: a monitor paging `oncall` at once, with a subscriber. */
  const prepare = async (): Promise<Setup> => {
    const confirm = confirmFromMailbox(async () => (JSON.parse(await mailboxCall('GET', '/store')) as { emails: Awaited<ReturnType<ReadMail>> }).emails, (path) => requestText(`${runtime.url}${path}`, { method: 'POST', agent: mailboxAgent }));
    const setup = await pagingMonitor(api, confirm, 'bench.example');
    await runtime.idle();
    return setup;
  };

  // The mailbox is emptied before each timed path, so that a poll reads a run's own mail (two
  // e-mails, not every rendered page since the section began), over a kept-alive connection: the
  // polls run on the thread that serves requests, and cost both sides the same.
  const mailboxAgent = new Agent({ keepAlive: true });
  const mailboxCall = async (method: string, path: string) => (await requestText(`${mailboxUrl}${path}`, { method, agent: mailboxAgent })).text;
  const emptyMailbox = () => mailboxCall('POST', '/clear-store');
  const mailbox = async (to: string) => {
    for (const deadline = Date.now() + PATIENCE_MS; ; ) {
      if (Date.now() > deadline) throw new Error(`No e-mail to ${to} in the mailbox after ${PATIENCE_MS} ms`);
      const { emails } = JSON.parse(await mailboxCall('GET', '/store')) as { emails: { destination: { to: string[] } }[] };
      if (emails.some((email) => email.destination.to.includes(to))) return;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };
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
    const fresh = new Map<string, string>([
      [template.monitorId, setup.monitorId],
      [template.policyId, setup.policyId],
      [caller.user.id, caller.user.id],
    ]);
    const substitute = (text: string) =>
      text === tableName
        ? text
        : freshIds(fresh, text)
        .replace(HEX_64, (hash) => fresh.get(hash) ?? fresh.set(hash, randomBytes(32).toString('hex')).get(hash)!)
        .replaceAll(template.tag, setup.tag);
    const prepared = (entry: RecordedCall) => {
      return { ...entry, input: unconsumed(mapStrings(entry.input, substitute) as Record<string, unknown>) };
    };
    const send = async ({ service, command, input, failed }: ReturnType<typeof prepared>) => {
      const sent =
        service === 'SES'
          ? command === 'SendEmailCommand'
            ? ses.send(new SendEmailCommand(input as unknown as SendEmailCommandInput))
            : Promise.reject(new Error(`no floor for SES ${command}`))
          : document.send(documentCommand(command, input));
      // A call that failed in the recorded run (a refused condition) costs its round trip here too.
      await (sent as Promise<unknown>).catch((error: unknown) => {
        if (!failed || !(error instanceof Error) || error.name !== failed) throw error;
      });
    };
    const run = async (rounds: ReturnType<typeof prepared>[][]) => {
      for (const round of rounds) await Promise.all(round.map(send));
    };
    const checkRounds = roundsOf(check).map((round) => round.map(prepared));
    const transaction = checkRounds.flat().find((entry) => entry.command === 'TransactWriteItemsCommand')!;
    const written = new Set(
      (transaction.input.TransactItems as { Put?: { Item: Record<string, string> } }[]).flatMap((item) => (item.Put ? [`${item.Put.Item.pk} ${item.Put.Item.sk}`] : [])),
    );
    const background = [...invocations.values()].map((calls) => roundsOf(calls).map((round) => round.map(prepared)));
    return async () => {
      const iterators = await streamEnd();
      await emptyMailbox();
      const start = performance.now();
      await run(checkRounds);
      // As for the service: the mailbox is watched once monitor-check's calls are done.
      const mails = Promise.all([mailbox(setup.subscriber).then(() => performance.now() - start), mailbox(setup.oncall).then(() => performance.now() - start)]);
      try {
        await readUntil(iterators, written);
        await Promise.all(background.map(run));
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
    await raw.send(
      new TransactWriteItemsCommand({
        TransactItems: [{ Put: { TableName: tableName, Item: { pk: { S: `BENCH#${id}` }, sk: { S: 'BENCH' }, to: { S: to }, ttl: { N: String(Math.floor(Date.now() / 1000) + 3600) } } } }],
      }),
    );
    await readUntil(iterators, new Set([`BENCH#${id} BENCH`]));
    await ses.send(new SendEmailCommand({ Source: 'floor@bench.example', Destination: { ToAddresses: [to] }, Message: { Subject: { Data: 'floor' }, Body: { Text: { Data: 'floor' } } } }));
    await mailbox(to);
    return performance.now() - start;
  };

  const rounds: { first: number; page: number; floorFirst: number; floorPage: number; smallest: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const sides = { first: [] as number[], page: [] as number[], floorFirst: [] as number[], floorPage: [] as number[], smallest: [] as number[] };
    for (let run = 0; run < RUNS; run++) {
      const service = await checkToEmail(await prepare());
      const floor = await replay(await prepare())();
      sides.first.push(service.first);
      sides.page.push(service.page);
      sides.floorFirst.push(floor.first);
      sides.floorPage.push(floor.page);
      sides.smallest.push(await smallest());
    }
    rounds.push({
      first: median(sides.first),
      page: median(sides.page),
      floorFirst: median(sides.floorFirst),
      floorPage: median(sides.floorPage),
      smallest: median(sides.smallest),
    });
  }
  const of = (side: keyof (typeof rounds)[number]) => median(rounds.map((entry) => entry[side]));
  streams.destroy();
  ses.destroy();
  raw.destroy();
  document.destroy();
  mailboxAgent.destroy();
  return [
    row('monitor-check → first e-mail in the local mailbox vs the same calls straight (TransactWrite → stream → SendEmail)', of('first'), of('floorFirst'), 'ms', '≤ 2×'),
    row('monitor-check → escalation step 1 e-mail vs the same calls straight', of('page'), of('floorPage'), 'ms', '≤ 3×'),
    row('(for comparison) monitor-check → first e-mail vs one Put in a TransactWrite → stream → one SendEmail', of('first'), of('smallest'), 'ms', '—'),
  ];
}
