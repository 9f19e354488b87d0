/**
 * The worker thread that runs the runtime's background (see ../runtime/background.ts): the environment the
 * functions find, the same grant enforcement, the AWS APIs its functions call (served in this
 * thread, so that e-mails and events never pass through the gateway's), and a small
 * request/answer protocol over the port.
 */
// First: this thread prints its own lines, not through the gateway's thread.
import './worker-stdio.js';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { db } from '../../../shared/platform/db/client.js';
import { awsApis, serveAwsApis } from '../aws/aws-apis.js';
import { startBackground, type Background, type BackgroundOptions } from '../runtime/background.js';
import { startRecording, stopRecording } from './call-recorder.js';
import { useLocalAws, useLocalServices } from '../runtime/environment.js';
import { enforceGrants } from '../aws/grants.js';
import { lowerThisThreadsPriority } from './priority.js';
import { quietFunctionLogs } from './quiet-logs.js';

export interface WorkerData extends Omit<BackgroundOptions, 'log'> {
  dynamodbEndpoint: string;
  /** The local SES mailbox, behind this thread's SES API, and the API's public URL (for links in e-mails). */
  mailboxUrl: string;
  publicUrl: string;
  /** The console's origin (incident links in e-mails and Slack messages). */
  consoleUrl: string;
  /** The gateway's thread, which keeps the phone inbox: this thread's functions send SMS and calls there. */
  phonesUrl: string;
  /** The ports of this machine webhooks may reach (the runtime's own already left out). */
  webhookPorts: readonly number[];
  /** The functions' log lines are built but not printed (the bench). */
  quietFunctionLogs?: boolean;
}

export type WorkerRequest =
  | { id: number; op: 'putEvents' | 'createSchedule' | 'deleteSchedule' | 'sendMessage' | 'idle' | 'recordCalls' | 'recordedCalls' | 'close'; args: unknown[] }
  | { op: 'wake' };
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'log'; line: string }
  | { type: 'answer'; id: number; result?: unknown; error?: { name: string; message: string } };

const port = parentPort!;
const data = workerData as WorkerData;
lowerThisThreadsPriority();
if (data.quietFunctionLogs) quietFunctionLogs();
useLocalAws(data.dynamodbEndpoint, data.tableName);
enforceGrants(db());
const send = (message: WorkerMessage) => port.postMessage(message);
const log = (line: string) => send({ type: 'log', line });

// The functions' AWS endpoints are set before the first of them runs; the APIs wait for the background.
let begin!: (background: Promise<Background>) => void;
const started = new Promise<Background>((resolve, reject) => (begin = (background) => background.then(resolve, reject)));
const apis = serveAwsApis(
  awsApis({
    background: {
      putEvents: async (entries) => (await started).putEvents(entries),
      createSchedule: async (name, request) => (await started).createSchedule(name, request),
      deleteSchedule: async (name) => (await started).deleteSchedule(name),
      sendMessage: async (queueUrl, body, delaySeconds) => (await started).sendMessage(queueUrl, body, delaySeconds),
    },
    mailboxUrl: data.mailboxUrl,
    log,
  }),
);
await new Promise<void>((resolve, reject) => {
  apis.once('error', reject).listen(0, '127.0.0.1', () => {
    apis.off('error', reject);
    resolve();
  });
});
apis.on('error', (error) => log(`background AWS APIs: ${error.message}`));
useLocalServices(`http://127.0.0.1:${(apis.address() as AddressInfo).port}`, data.publicUrl, data.webhookPorts, data.phonesUrl, data.consoleUrl);
begin(startBackground({ ...data, log }));
const background = await started;

port.on('message', async (request: WorkerRequest) => {
  if (request.op === 'wake') return background.wake();
  try {
    const args = request.args as never[];
    const result = await {
      putEvents: () => background.putEvents(args[0]!),
      createSchedule: () => background.createSchedule(args[0]!, args[1]!),
      deleteSchedule: () => background.deleteSchedule(args[0]!),
      sendMessage: () => background.sendMessage(args[0]!, args[1]!, args[2]),
      // Here no test drives the stream: a write's records may not be read yet, so "everything under
      // way" means the stream read to its end and what it carried delivered, until nothing more comes.
      idle: async () => {
        for (;;) {
          const found = (await background.alertStream.pollOnce()) + (await background.stream.pollOnce());
          await background.idle();
          if (found === 0) return;
        }
      },
      recordCalls: async () => startRecording(),
      recordedCalls: async () => stopRecording(),
      close: async () => {
        await background.close();
        apis.closeAllConnections();
        await new Promise<void>((resolve) => apis.close(() => resolve()));
      },
    }[request.op]();
    send({ type: 'answer', id: request.id, result });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    send({ type: 'answer', id: request.id, error: { name: failure.name, message: failure.message } });
  }
});
send({ type: 'ready' });
