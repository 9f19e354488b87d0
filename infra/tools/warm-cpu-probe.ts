/**
 * The warm-CPU probe of `npm run bench -- path` (path.ts bundles it and runs it with node): a process that
 * holds what a warm Lambda instance holds, one deployed function's bundle, and beside it the floor's bundle.
 * `process.cpuUsage()` counts every thread of a process, and in the bench's own process the runtime's
 * threads and async hooks run too; here only the two sides run. It warms both up (V8 optimizes for the
 * first thousand calls or so), times blocks of calls, the sides alternating, and writes each side's CPU
 * milliseconds per call to the output file.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';
import { lambdaContext } from '../local/aws/lambda-context.js';
import { quietFunctionLogs } from '../local/perf/quiet-logs.js';

export interface ProbeInput {
  /** file: URLs of the deployed function's bundle and of the floor's. */
  handlerFile: string;
  floorFile: string;
  functionName: string;
  /** The event every invocation gets (a fresh copy each, made outside the timed blocks). */
  event: unknown;
  /** What the floor's handler is called with. */
  floorInput: unknown;
  warm: number;
  blocks: number;
  blockSize: number;
  output: string;
}

export interface ProbeOutput {
  /** CPU milliseconds per call. */
  service: number;
  floor: number;
}

type Handler = (event: unknown, context?: Context) => Promise<unknown>;

const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ProbeInput;
quietFunctionLogs();
const { handler } = (await import(input.handlerFile)) as { handler: Handler };
const { handler: floor } = (await import(input.floorFile)) as { handler: Handler };

/** An invocation as Lambda makes it: the event and the context are Lambda's work, built before the call. */
const invocation = () => ({ event: structuredClone(input.event), context: lambdaContext(input.functionName, randomUUID(), 10) });
const invoke = async ({ event, context }: ReturnType<typeof invocation>) => {
  const answer = (await handler(event, context)) as { statusCode: number; body: string };
  if (answer.statusCode !== 200) throw new Error(`The deployed ${input.functionName} answered ${answer.statusCode}: ${answer.body}`);
};

for (let run = 0; run < input.warm; run++) {
  await invoke(invocation());
  await floor(input.floorInput);
}
const used = [0, 0];
for (let block = 0; block < input.blocks; block++) {
  for (const side of block % 2 === 0 ? [0, 1] : [1, 0]) {
    const invocations = Array.from({ length: input.blockSize }, invocation);
    const before = process.cpuUsage();
    if (side === 0) for (const next of invocations) await invoke(next);
    else for (let call = 0; call < input.blockSize; call++) await floor(input.floorInput);
    const spent = process.cpuUsage(before);
    used[side]! += spent.user + spent.system;
  }
}
const calls = input.blocks * input.blockSize;
const output: ProbeOutput = { service: used[0]! / 1000 / calls, floor: used[1]! / 1000 / calls };
writeFileSync(input.output, JSON.stringify(output));
// The functions' DynamoDB clients keep their connections alive.
process.exit(0);
