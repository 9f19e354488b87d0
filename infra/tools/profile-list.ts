/**
 * `npm run bench -- profile-list`: where the first page of `GET /api/incidents` spends its time for a caller
 * with 100 incidents and one with 10,000 (own monitors), interleaved request by request, each request cut at
 * the points the process sees: the client's send and answer, the invocation's start and end (the runtime's
 * `local:invocation` channel), each DynamoDB call (a middleware on the service's client). Beside it, the same
 * two Queries sent straight, interleaved: what DynamoDB Local itself takes at each size.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/platform/db/client.js';
import { invocationChannel, invocationScope } from '../local/aws/functions.js';
import type { Service as Runtime } from '../local/perf/service.js';
import { seedIncidents } from '../testing/seed.js';
import { call, median } from './lib.js';
import { LoadClient } from './load-client.js';

const FUNCTION = 'incidents-list';
const PATH = '/api/incidents?limit=20';

interface Trace {
  sent: number;
  invoked?: number;
  returned?: number;
  calls: { kind: 'page' | 'memberships'; start: number; end?: number; input: QueryCommandInput }[];
  answered?: number;
}

const PHASES = [
  ['gateway in: HTTP, the token, routing, the event', (t: Trace) => t.invoked! - t.sent],
  ['handler before the Queries: middy, validation, the cursor', (t: Trace) => Math.min(...t.calls.map((c) => c.start)) - t.invoked!],
  ['owner-index Query (the page, limit + 2 items)', (t: Trace) => span(t, 'page')],
  ['memberships Query (beside it)', (t: Trace) => span(t, 'memberships')],
  ['the two Queries, one round trip', (t: Trace) => Math.max(...t.calls.map((c) => c.end!)) - Math.min(...t.calls.map((c) => c.start))],
  ['handler after them: items parsed, view, JSON, log line', (t: Trace) => t.returned! - Math.max(...t.calls.map((c) => c.end!))],
  ['gateway out: the answer written, HTTP', (t: Trace) => t.answered! - t.returned!],
  ['total, as the client sees it', (t: Trace) => t.answered! - t.sent],
] as const;

function span(trace: Trace, kind: 'page' | 'memberships') {
  const found = trace.calls.find((entry) => entry.kind === kind)!;
  return found.end! - found.start;
}

const label = (size: number) => size.toLocaleString('en');

export async function benchProfileList(runtime: Runtime, options: { requests?: number; warmMs?: number } = {}): Promise<string> {
  const requests = options.requests ?? 300;
  // PROFILE_SIZES=10,20: a smoke run of the section itself.
  const sizes = process.env.PROFILE_SIZES ? process.env.PROFILE_SIZES.split(',').map(Number) : [100, 10_000];
  // ----- Data: a caller per size, each with one monitor of their own --------------------------
  const callers = [];
  for (const size of sizes) {
    const { body } = await call(runtime, 'POST', '/local/users', undefined, { email: `profile-${size}-${randomUUID().slice(0, 8)}@bench.example`, name: `Profile ${size}` });
    const monitor = (await call(runtime, 'POST', '/api/monitors', body.token, { name: `Profile ${size}` })).body.monitor;
    await seedIncidents({ id: monitor.id, name: monitor.name, owner_id: body.user.id, team_id: null }, size, { message: 'x'.repeat(200) });
    callers.push({ size, token: body.token as string });
  }
  await runtime.idle();

  // ----- The cut points -------------------------------------------------------------------------
  let current: Trace | undefined;
  const onStart = (message: { functionName: string }) => {
    if (current && message.functionName === FUNCTION) current.invoked = performance.now();
  };
  const onEnd = (message: { functionName: string }) => {
    if (current && message.functionName === FUNCTION) current.returned = performance.now();
  };
  const ignore = () => undefined;
  const handlers = { start: onStart, end: ignore, asyncStart: ignore, asyncEnd: onEnd, error: ignore };
  invocationChannel.subscribe(handlers as never);
  const middlewareName = `profile-list-${randomUUID()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const trace = current;
      if (!trace || invocationScope.getStore()?.functionName !== FUNCTION || context.commandName !== 'QueryCommand') return next(args);
      const input = args.input as QueryCommandInput;
      const kind = Object.values(input.ExpressionAttributeValues ?? {}).some((value) => String(value).startsWith('MEMBERSHIP#')) ? 'memberships' : 'page';
      const entry: Trace['calls'][number] = { kind, start: performance.now(), input };
      trace.calls.push(entry);
      try {
        return await next(args);
      } finally {
        entry.end = performance.now();
      }
    },
    { step: 'initialize', name: middlewareName },
  );

  const client = new LoadClient(runtime.url.replace('localhost', '127.0.0.1'));
  try {
    const send = callers.map((caller) => client.prepare('GET', PATH, { authorization: `Bearer ${caller.token}` }));
    const traced = async (index: number): Promise<Trace> => {
      const trace: Trace = { sent: performance.now(), calls: [] };
      current = trace;
      const answer = await send[index]!();
      trace.answered = performance.now();
      current = undefined;
      if (answer.status !== 200) throw new Error(`profile-list: ${answer.status} ${answer.body.slice(0, 200)}`);
      if (trace.calls.length !== 2 || trace.invoked === undefined || trace.returned === undefined) throw new Error(`profile-list: expected one invocation with 2 Queries, saw ${trace.calls.length} (invoked ${trace.invoked}, returned ${trace.returned}, subscribers ${invocationChannel.hasSubscribers})`);
      return trace;
    };
    // The same two Queries straight to DynamoDB Local, in parallel (one round trip), from this process.
    const inputs: QueryCommandInput[][] = [];
    for (const index of callers.keys()) inputs.push((await traced(index)).calls.map((entry) => entry.input));
    const straight = async (index: number) => {
      const started = performance.now();
      await Promise.all(inputs[index]!.map((input) => db().send(new QueryCommand(input))));
      return performance.now() - started;
    };

    for (const until = performance.now() + (options.warmMs ?? 3_000); performance.now() < until; ) {
      for (const index of [0, 1]) {
        await traced(index);
        await straight(index);
      }
    }
    const traces: Trace[][] = [[], []];
    const straights: number[][] = [[], []];
    // The four in a turning order, so no kind of request always follows the same other one.
    const steps = [0, 1].flatMap((index) => [
      async () => void traces[index]!.push(await traced(index)),
      async () => void straights[index]!.push(await straight(index)),
    ]);
    const orders = [[0, 2, 1, 3], [3, 1, 2, 0], [2, 0, 3, 1], [1, 3, 0, 2]];
    for (let pass = 0; pass < requests; pass++) for (const step of orders[pass % orders.length]!) await steps[step]!();

    const rows = PHASES.map(([name, measure]) => {
      const [small, large] = traces.map((list) => median(list.map(measure)));
      return `| ${name} | ${small!.toFixed(2)} | ${large!.toFixed(2)} | ${(large! - small!).toFixed(2)} | ${(large! / small!).toFixed(2)}× |`;
    });
    const [straightSmall, straightLarge] = straights.map(median);
    rows.push(
      `| (beside it) the same two Queries sent straight, one round trip | ${straightSmall!.toFixed(2)} | ${straightLarge!.toFixed(2)} | ${(straightLarge! - straightSmall!).toFixed(2)} | ${(straightLarge! / straightSmall!).toFixed(2)}× |`,
    );
    const totalGrowth = median(traces[1]!.map(PHASES.at(-1)![1])) / median(traces[0]!.map(PHASES.at(-1)![1]));
    return [
      `Measured by \`npm run bench -- profile-list\` on ${new Date().toISOString().slice(0, 10)}: \`GET ${PATH}\` (the headline's list row) for a caller with ${label(sizes[0]!)} incidents and one with ${label(sizes[1]!)} (one monitor of their own, no team, 200-character messages), the two interleaved request by request, ${requests} each after ${((options.warmMs ?? 3_000) / 1000).toFixed(0)} s of warming; each phase's p50 (the phases' medians need not add up to the total's).`,
      '',
      `| Phase (p50, ms) | ${label(sizes[0]!)} incidents | ${label(sizes[1]!)} incidents | Added | Growth |`,
      '|---|---|---|---|---|',
      ...rows,
      '',
      `The first page at ${label(sizes[1]!)} over ${label(sizes[0]!)}: ${totalGrowth.toFixed(2)}× as the client sees it, against ${(straightLarge! / straightSmall!).toFixed(2)}× for its two Queries sent straight (the service's own growth: ${(totalGrowth / (straightLarge! / straightSmall!)).toFixed(2)}×).`,
    ].join('\n');
  } finally {
    client.close();
    invocationChannel.unsubscribe(handlers as never);
    db().middlewareStack.remove(middlewareName);
  }
}
