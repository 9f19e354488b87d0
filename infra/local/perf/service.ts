/**
 * The runtime as `npm start` (and the bench) runs it: the same core as the tests' (`../runtime/`),
 * with the background (stream, bus, scheduler, and the functions they invoke) in a worker thread of
 * its own and the mailbox in a process of its own, both at a lower CPU priority, so that e-mail work
 * never holds up a request.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { db } from '../../../shared/platform/db/client.js';
import { LocalStartError } from '../aws/errors.js';
import { wakeOnWrite } from '../runtime/background.js';
import { startCore, type LocalService, type MailboxStarter, type RuntimeOptions } from '../runtime/runtime.js';
import { startBackgroundThread } from './background-thread.js';
import { startRecording, stopRecording, type RecordedCall } from './call-recorder.js';
import { lowerProcessPriority } from './priority.js';

export interface ServiceOptions extends RuntimeOptions {
  /** The functions' log lines are built but not printed, in both threads (the bench; the caller quiets its own thread). */
  quietFunctionLogs?: boolean;
}

export interface Service extends LocalService {
  /** Records the calls every function invocation makes to DynamoDB and SES, in whichever thread it runs (call-recorder.ts). */
  recordCalls(): Promise<void>;
  /** Stops recording; the calls in the order they started. */
  recordedCalls(): Promise<RecordedCall[]>;
}

/** The local SES mailbox in a child process of its own (`mailbox-process.mjs`), so mail parsing stays off the gateway's thread. */
const startMailboxProcess: MailboxStarter = async (port, host) => {
  const child = fork(fileURLToPath(new URL('./mailbox-process.mjs', import.meta.url)), {
    env: { ...process.env, MAILBOX_HOST: host, MAILBOX_PORT: String(port) },
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // Storing mail is background work: it waits while the cores serve requests.
  lowerProcessPriority(child.pid);
  const killChild = () => child.kill();
  process.once('exit', killChild);
  const started = await new Promise<{ port?: number; error?: string }>((resolve) => {
    child.once('message', (message) => resolve(message as { port?: number; error?: string }));
    child.once('exit', (code) => resolve({ error: `exited with code ${code}` }));
  });
  if (!started.port) throw new LocalStartError(`The local SES mailbox did not start: ${started.error}`);
  return {
    url: `http://127.0.0.1:${started.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', killChild);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
};

export async function startService(options: ServiceOptions): Promise<Service> {
  const { started, service } = await startCore(options, startMailboxProcess, async ({ publicUrl, consoleUrl, mailboxUrl, phonesUrl, tableName, webhookPorts, log }) => {
    const ports = await startBackgroundThread(
      {
        dynamodbEndpoint: options.dynamodbEndpoint,
        mailboxUrl,
        phonesUrl,
        publicUrl,
        consoleUrl,
        tableName,
        webhookPorts,
        stateDir: options.stateDir,
        pollMs: options.pollMs,
        streamMaxAttempts: options.streamMaxAttempts,
        quietFunctionLogs: options.quietFunctionLogs,
      },
      log,
    );
    // Writes of the functions in this thread (the API's) wake the stream reader over there.
    const stopWaking = wakeOnWrite(db(), () => ports.wake());
    return {
      ...ports,
      close: async () => {
        stopWaking();
        await ports.close();
      },
    };
  });
  return {
    ...service,
    recordCalls: async () => {
      startRecording();
      await started.recordCalls();
    },
    recordedCalls: async () => [...stopRecording(), ...(await started.recordedCalls())].sort((a, b) => a.startedAt - b.startedAt),
  };
}
