/**
 * The runtime's background in a worker thread of its own (`npm start`): the gateway's thread only
 * answers requests, while the stream, the bus, the scheduler and the functions they invoke (the
 * notifier above all) run beside it, calling the AWS APIs (SES, PutEvents, the scheduler) that
 * thread serves itself. The ports forward the API functions' PutEvents and schedules to it and tell
 * it when a function in the gateway's thread wrote.
 */
import { Worker } from 'node:worker_threads';
import type { BackgroundPorts } from '../runtime/background.js';
import type { WorkerData, WorkerMessage, WorkerRequest } from './background-worker.js';
import type { RecordedCall } from './call-recorder.js';

/** The background in its thread, as the runtime drives it; and the calls its functions make, recorded there. */
export interface BackgroundThread extends BackgroundPorts {
  recordCalls(): Promise<void>;
  recordedCalls(): Promise<RecordedCall[]>;
}

export async function startBackgroundThread(data: WorkerData, log: (line: string) => void): Promise<BackgroundThread> {
  const worker = new Worker(new URL('./background-worker.mjs', import.meta.url), { workerData: data });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  let ready!: () => void;
  const started = new Promise<void>((resolve, reject) => {
    ready = resolve;
    worker.once('error', reject);
  });
  worker.on('message', (message: WorkerMessage) => {
    if (message.type === 'ready') return ready();
    if (message.type === 'log') return log(message.line);
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (!waiting) return;
    if (message.error) waiting.reject(Object.assign(new Error(message.error.message), { name: message.error.name }));
    else waiting.resolve(message.result);
  });
  worker.on('error', (error) => log(`background thread failed: ${error.stack ?? error.message}`));
  worker.on('exit', (code) => {
    for (const waiting of pending.values()) waiting.reject(new Error(`the background thread exited (${code})`));
    pending.clear();
  });
  await started;
  const call = <T>(op: Exclude<WorkerRequest['op'], 'wake'>, ...args: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, op, args } satisfies WorkerRequest);
    });
  return {
    putEvents: (entries) => call('putEvents', entries),
    createSchedule: (name, request) => call('createSchedule', name, request),
    deleteSchedule: (name) => call('deleteSchedule', name),
    sendMessage: (queueUrl, body, delaySeconds) => call('sendMessage', queueUrl, body, delaySeconds),
    wake: () => worker.postMessage({ op: 'wake' } satisfies WorkerRequest),
    idle: () => call('idle'),
    recordCalls: () => call('recordCalls'),
    recordedCalls: () => call('recordedCalls'),
    close: async () => {
      await call('close');
      await worker.terminate();
    },
  };
}
