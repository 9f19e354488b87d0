/**
 * The runtime's background: DynamoDB Local's stream read into the outbox publisher, the event bus
 * delivering to the rules' targets, and the scheduler — and every function they invoke. Run in the
 * gateway's thread (`startBackground`, the tests: they drive the bus, the stream and the clock
 * in-process) or in a worker thread of its own (`../perf/background-thread.ts`, `npm start`), so that
 * e-mail work never delays a request.
 */
import { join } from 'node:path';
import { db } from '../../../shared/platform/db/client.js';
import { workers } from '../../../shared/system.js';
import type { GatewayPorts } from '../aws/aws-apis.js';
import { LocalEventBus } from '../aws/bus.js';
import { makePrivate, privateDirectory } from '../aws/private-files.js';
import { invokeFunction } from '../aws/functions.js';
import { LocalQueues } from '../aws/queue.js';
import { LocalScheduler } from '../aws/scheduler.js';
import { StreamPoller } from '../aws/stream.js';

export interface BackgroundOptions {
  tableName: string;
  /** Where schedules, stream checkpoints, dead letters and the bus's journal are kept; omitted = in memory. */
  stateDir?: string;
  /** How often the stream and the scheduler look for work. */
  pollMs?: number;
  /** Attempts of a failing stream batch before it is given up (default 21: the AWS mapping's 20 retries). */
  streamMaxAttempts?: number;
  log: (line: string) => void;
}

/** The background as the runtime drives it, wherever it runs. */
export interface BackgroundPorts extends GatewayPorts {
  /** A function wrote: read the stream now. */
  wake(): void;
  /** Resolves once every event under way has been delivered. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);
const wakers = new Set<() => void>();
const watched = new WeakSet<object>();

/** Calls `wake` after every successful write through `client`, until the answered function is called. */
export function wakeOnWrite(client: ReturnType<typeof db>, wake: () => void): () => void {
  wakers.add(wake);
  const stop = () => void wakers.delete(wake);
  if (watched.has(client)) return stop;
  watched.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (WRITES.has(String(context.commandName))) for (const waker of wakers) waker();
      return result;
    },
    { step: 'initialize', name: 'localStreamWake' },
  );
  return stop;
}

export interface Background extends BackgroundPorts {
  bus: LocalEventBus;
  scheduler: LocalScheduler;
  /** The queues (SQS), whose due messages the scheduler's tick hands over. */
  queues: LocalQueues;
  /** The stream read into the outbox publisher. */
  stream: StreamPoller;
  /** The stream read into the alert processor (a second mapping on AWS too). */
  alertStream: StreamPoller;
}

/** Starts the background in this thread. */
export async function startBackground(options: BackgroundOptions): Promise<Background> {
  const { log } = options;
  // Kept for this user only (0700, files 0600), what an older version wrote there included.
  if (options.stateDir) {
    privateDirectory(options.stateDir);
    makePrivate(options.stateDir);
  }
  const bus = new LocalEventBus({ invoke: invokeFunction, journalFile: options.stateDir && join(options.stateDir, 'event-bus-journal.jsonl'), log });
  const queues = new LocalQueues({ invoke: invokeFunction, file: options.stateDir && join(options.stateDir, 'queues.json'), log });
  const scheduler = new LocalScheduler({
    invoke: invokeFunction,
    queues,
    file: options.stateDir && join(options.stateDir, 'schedules.json'),
    pollMs: options.pollMs ?? 1000,
    log,
  });
  // One reader per stream consumer, each with its own checkpoints, as each has its mapping on AWS.
  const reader = (consumer: typeof workers.publisher | typeof workers.alertProcessor, checkpoints: string) =>
    new StreamPoller({
      tableName: options.tableName,
      handle: (event) => invokeFunction(consumer.name, event),
      filter: consumer.stream,
      pollMs: options.pollMs ?? 250,
      checkpointFile: options.stateDir && join(options.stateDir, `${checkpoints}-${options.tableName}.json`),
      // As the AWS mapping: 20 retries, then the batch is given up to the on-failure records.
      maxAttempts: options.streamMaxAttempts ?? 21,
      deadLetterDir: options.stateDir && join(options.stateDir, 'dead-letters'),
      log,
    });
  const stream = reader(workers.publisher, 'stream-checkpoints');
  const alertStream = reader(workers.alertProcessor, 'alert-stream-checkpoints');
  await stream.start();
  await alertStream.start();
  // A function's write is on the stream at once: read it now (Lambda's mapping polls continuously).
  const stopWaking = wakeOnWrite(db(), () => {
    stream.wake();
    alertStream.wake();
  });
  scheduler.start();
  // What the bus had accepted and not delivered when the runtime last stopped (or died) goes out now.
  bus.resume();
  return {
    bus,
    scheduler,
    queues,
    stream,
    alertStream,
    putEvents: (entries) => bus.putEvents(entries),
    createSchedule: (name, request) => scheduler.create(name, request),
    deleteSchedule: (name) => scheduler.delete(name),
    sendMessage: (queueUrl, body, delaySeconds) => queues.send(queueUrl, body, delaySeconds),
    wake: () => {
      stream.wake();
      alertStream.wake();
    },
    idle: () => bus.idle(),
    close: async () => {
      stopWaking();
      await alertStream.stop();
      await stream.stop();
      await scheduler.stop();
      await bus.idle();
      bus.close();
    },
  };
}
