/**
 * The local runtime, built from the system description: the local API Gateway (routes, JWT
 * authorizer, Lambda Invoke API), DynamoDB Local's stream read into the outbox publisher, the
 * local event bus delivering to the rules' targets, the local scheduler (background.ts), and a
 * local SES mailbox — all running the very handler modules Lambda runs. `npm start` runs the
 * background in a worker thread (`startService`); the tests run it in their own (`startRuntime`).
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { fork } from 'node:child_process';
import type { Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { accountView, signUpInput } from '../../shared/accounts/model.js';
import { signUp } from '../../shared/accounts/service.js';
import { db } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { fieldErrors } from '../../shared/platform/validation.js';
import { routes, table } from '../../shared/system.js';
import { awsApis } from './aws-apis.js';
import { startBackground, wakeOnWrite, type BackgroundPorts, type GatewayPorts } from './background.js';
import { startBackgroundThread } from './background-thread.js';
import type { LocalEventBus } from './bus.js';
import { startRecording, stopRecording, type RecordedCall } from './call-recorder.js';
import { docsEndpoints } from './docs.js';
import { useLocalAws, useLocalServices } from './environment.js';
import { LocalStartError } from './errors.js';
import { loadHandler } from './functions.js';
import { enforceGrants } from './grants.js';
import { createGateway, type LocalEndpoint } from './gateway.js';
import { LocalIssuer } from './jwt.js';
import { lowerProcessPriority } from './priority.js';
import type { LocalScheduler } from './scheduler.js';
import type { StreamPoller } from './stream.js';
import { ensureTable } from './table.js';

export { repositoryRoot } from './paths.js';

/** The issuer of local tokens (independent of the port, so tokens survive a port change). */
export const LOCAL_ISSUER = 'http://localhost/incident-service';

export interface RuntimeOptions {
  /** HTTP port; 0 picks a free one. */
  port: number;
  /**
   * The address the API and the mailbox listen on: 127.0.0.1 unless a caller opts in to more
   * (HOST=0.0.0.0 for npm start), since local sign-up hands a token to anyone who asks.
   */
  host?: string;
  dynamodbEndpoint: string;
  tableName?: string;
  /** Where the signing key is kept; omitted = in memory. */
  keyFile?: string;
  /** Where schedules and stream checkpoints are kept; omitted = in memory. */
  stateDir?: string;
  /** Attempts of a failing stream batch before it is given up (default 21: the AWS mapping's 20 retries). */
  streamMaxAttempts?: number;
  /** Port of the local SES mailbox; 0 picks a free one. */
  sesPort: number;
  /** How often the stream and the scheduler look for work. */
  pollMs?: number;
  log?: (line: string) => void;
  /** The functions' log lines are built but not printed, in both threads (the bench; the caller quiets its own thread). */
  quietFunctionLogs?: boolean;
}

export interface MailboxEmail {
  messageId: string;
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
  at: number;
}

/** A running local runtime: where it answers, its issuer, its mailbox. */
export interface LocalService {
  url: string;
  port: number;
  issuer: LocalIssuer;
  tableName: string;
  mailbox: { url: string; emails(): Promise<MailboxEmail[]> };
  /**
   * Resolves once every event under way has been delivered; with the background in a thread of its
   * own (`startService`), once the stream has also been read to its end.
   */
  idle(): Promise<void>;
  /** Records the calls every function invocation makes to DynamoDB and SES, in whichever thread it runs (call-recorder.ts). */
  recordCalls(): Promise<void>;
  /** Stops recording; the calls in the order they started. */
  recordedCalls(): Promise<RecordedCall[]>;
  close(): Promise<void>;
}

/** The runtime with its background in the caller's thread, for tests to drive. */
export interface Runtime extends LocalService {
  bus: LocalEventBus;
  scheduler: LocalScheduler;
  stream: StreamPoller;
}

function localEndpoints(issuer: LocalIssuer): LocalEndpoint[] {
  return [
    {
      method: 'POST',
      path: '/local/users',
      async handle({ body }) {
        const input = signUpInput.safeParse(body);
        if (!input.success) {
          return { status: 400, body: { error: 'Validation errors', details: fieldErrors(input.error, 'body') } };
        }
        const account = await signUp(input.data);
        const token = await issuer.sign({ sub: account.id, email: account.email, name: account.name });
        return { status: 201, body: { user: accountView(account), token } };
      },
    },
    { method: 'GET', path: '/.well-known/jwks.json', handle: async () => ({ status: 200, body: issuer.jwks() }) },
    {
      method: 'GET',
      path: '/.well-known/openid-configuration',
      handle: async () => ({
        status: 200,
        body: { issuer: issuer.issuer, jwks_uri: '/.well-known/jwks.json', id_token_signing_alg_values_supported: ['RS256'] },
      }),
    },
  ];
}

const listen = (server: NetServer, port: number, host: string, what: string, variable: string) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new LocalStartError(`Port ${port} for ${what} is already in use; stop what uses it or set ${variable}.`)
          : error,
      ),
    );
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });

/**
 * The local SES mailbox (aws-ses-v2-local): for `npm start` in a child process of its own, so mail
 * parsing stays off the gateway's thread; for the tests in this process (a process per test file
 * would cost each file a Node.js start).
 */
async function startMailbox(port: number, host: string, where: 'child' | 'here'): Promise<{ url: string; stop(): Promise<void> }> {
  if (port !== 0) {
    // A port asked for: say so plainly when it is taken (the mailbox itself would only crash).
    const probe = createNetServer();
    await listen(probe, port, host, 'the local SES mailbox', 'LOCAL_SES_PORT');
    await new Promise((resolve) => probe.close(resolve));
  }
  // Port 0 goes to the mailbox as it is and the system picks: a port found free and released first
  // could be taken by another program (a DynamoDB Local starting beside) before the mailbox bound it.
  if (where === 'here') {
    type Start = (config: object) => Promise<Server>;
    // A CommonJS module: its default export is the function or wraps it, depending on the loader.
    const module = (await import('aws-ses-v2-local')) as unknown as { default: Start | { default: Start } };
    const server = await (typeof module.default === 'function' ? module.default : module.default.default)({ host, port });
    const bound = (server.address() as AddressInfo).port;
    return {
      url: `http://127.0.0.1:${bound}`,
      stop: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }
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
}

/**
 * Locally every token comes from this runtime, so a verified token whose user never signed up is
 * refused at the gateway (401) rather than reaching the functions. Who has signed up is read
 * once per user (accounts are never deleted) with a client of the runtime's own.
 */
function signedUp(tableName: string): (subject: string) => boolean | Promise<boolean> {
  const client = new DynamoDBClient({});
  const known = new Set<string>();
  const read = async (subject: string) => {
    const { Item } = await client.send(
      new GetItemCommand({ TableName: tableName, Key: marshall(keys.account(subject)), ConsistentRead: true, ProjectionExpression: table.partitionKey.name }),
    );
    if (Item) known.add(subject);
    return Item !== undefined;
  };
  // A known subject is answered at once, not through a promise.
  return (subject) => known.has(subject) || read(subject);
}

/**
 * The runtime around its background: DynamoDB Local's table, the mailbox, the issuer and the
 * gateway, listening; `background` starts the stream, bus and scheduler once the gateway's URL is
 * known (the functions call the runtime's AWS APIs there).
 */
async function startCore<B extends BackgroundPorts>(
  options: RuntimeOptions,
  mailboxWhere: 'child' | 'here',
  background: (urls: { runtimeUrl: string; publicUrl: string; mailboxUrl: string; tableName: string; log: (line: string) => void }) => Promise<B>,
) {
  const tableName = options.tableName ?? table.name;
  const log = options.log ?? ((line: string) => console.log(`[local] ${line}`));
  useLocalAws(options.dynamodbEndpoint, tableName);
  // Each function may do to the table exactly what its AWS grant allows.
  enforceGrants(db());
  const admin = new DynamoDBClient({});
  await ensureTable(admin, tableName, table);
  admin.destroy();

  const host = options.host ?? '127.0.0.1';
  const mailbox = await startMailbox(options.sesPort, host, mailboxWhere);
  const mailboxUrl = mailbox.url;

  const issuer = await LocalIssuer.create({ issuer: LOCAL_ISSUER, keyFile: options.keyFile });
  // Requests may arrive as soon as the gateway listens; its AWS APIs wait for the background.
  let ports: Promise<B> | undefined;
  const later: GatewayPorts = {
    putEvents: async (entries) => (await ports!).putEvents(entries),
    createSchedule: async (name, request) => (await ports!).createSchedule(name, request),
    deleteSchedule: async (name) => (await ports!).deleteSchedule(name),
  };
  let url = '';
  const server = createGateway({
    routes,
    issuer,
    loadHandler,
    localEndpoints: [...localEndpoints(issuer), ...docsEndpoints(() => url)],
    awsApis: awsApis({ background: later, mailboxUrl, log }),
    admits: signedUp(tableName),
  });
  let port: number;
  try {
    port = await listen(server, options.port, host, 'the local API', 'PORT');
  } catch (error) {
    await mailbox.stop();
    throw error;
  }
  url = `http://localhost:${port}`;
  const runtimeUrl = `http://127.0.0.1:${port}`;
  useLocalServices(runtimeUrl, url);
  ports = background({ runtimeUrl, publicUrl: url, mailboxUrl, tableName, log });
  const started = await ports;

  return {
    started,
    service: {
      url,
      port,
      issuer,
      tableName,
      mailbox: {
        url: mailboxUrl,
        emails: async () => ((await (await fetch(`${mailboxUrl}/store`)).json()) as { emails: MailboxEmail[] }).emails,
      },
      idle: () => started.idle(),
      recordCalls: async () => {
        startRecording();
        await started.recordCalls();
      },
      recordedCalls: async () => [...stopRecording(), ...(await started.recordedCalls())].sort((a, b) => a.startedAt - b.startedAt),
      close: async () => {
        await started.close();
        await new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        });
        await mailbox.stop();
      },
    } satisfies LocalService,
  };
}

/** The runtime with its background in this thread, where tests drive the bus, the stream, the scheduler and the clock. */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { started, service } = await startCore(options, 'here', ({ tableName, log }) =>
    startBackground({ tableName, stateDir: options.stateDir, pollMs: options.pollMs, streamMaxAttempts: options.streamMaxAttempts, log }),
  );
  return { ...service, bus: started.bus, scheduler: started.scheduler, stream: started.stream };
}

/**
 * The runtime as `npm start` runs it: the background (stream, bus, scheduler, and the functions they
 * invoke) in a worker thread of its own, so e-mail work never holds up a request.
 */
export async function startService(options: RuntimeOptions): Promise<LocalService> {
  const { service } = await startCore(options, 'child', async ({ publicUrl, mailboxUrl, tableName, log }) => {
    const ports = await startBackgroundThread(
      {
        dynamodbEndpoint: options.dynamodbEndpoint,
        mailboxUrl,
        publicUrl,
        tableName,
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
  return service;
}
