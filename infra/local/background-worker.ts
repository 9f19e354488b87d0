/**
 * The worker thread that runs the runtime's background (see background.ts): the environment the
 * functions find, the same grant enforcement, and a small request/answer protocol over the port.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { db } from '../../shared/db/client.js';
import { startBackground, type BackgroundOptions } from './background.js';
import { useLocalAws, useLocalServices } from './environment.js';
import { enforceGrants } from './grants.js';

export interface WorkerData extends Omit<BackgroundOptions, 'log'> {
  dynamodbEndpoint: string;
  /** Where the functions reach the runtime's AWS APIs, and the API's public URL (for links in e-mails). */
  runtimeUrl: string;
  publicUrl: string;
}

export type WorkerRequest = { id: number; op: 'putEvents' | 'createSchedule' | 'deleteSchedule' | 'idle' | 'close'; args: unknown[] } | { op: 'wake' };
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'log'; line: string }
  | { type: 'answer'; id: number; result?: unknown; error?: { name: string; message: string } };

const port = parentPort!;
const data = workerData as WorkerData;
useLocalAws(data.dynamodbEndpoint, data.tableName);
useLocalServices(data.runtimeUrl, data.publicUrl);
enforceGrants(db());
const send = (message: WorkerMessage) => port.postMessage(message);
const background = await startBackground({ ...data, log: (line) => send({ type: 'log', line }) });

port.on('message', async (request: WorkerRequest) => {
  if (request.op === 'wake') return background.wake();
  try {
    const args = request.args as never[];
    const result = await {
      putEvents: () => background.putEvents(args[0]!),
      createSchedule: () => background.createSchedule(args[0]!, args[1]!),
      deleteSchedule: () => background.deleteSchedule(args[0]!),
      idle: () => background.idle(),
      close: () => background.close(),
    }[request.op]();
    send({ type: 'answer', id: request.id, result });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    send({ type: 'answer', id: request.id, error: { name: failure.name, message: failure.message } });
  }
});
send({ type: 'ready' });
