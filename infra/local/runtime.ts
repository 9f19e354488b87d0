/**
 * The local runtime, built from the system description: the local API Gateway (routes, JWT
 * authorizer, Lambda Invoke API), DynamoDB Local's stream read into the outbox publisher, the
 * local event bus delivering to the rules' targets, the local scheduler, and a local SES
 * mailbox — all running the very handler modules Lambda runs. Used by `npm start` and the tests.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { keys } from '../../shared/db/keys.js';
import { fork } from 'node:child_process';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { accountView, signUpInput } from '../../shared/accounts/model.js';
import { signUp } from '../../shared/accounts/service.js';
import { fieldErrors } from '../../shared/validation.js';
import { env, eventBus, routes, scheduleGroup, table, TABLE_NAME_ENV, workers } from '../system.js';
import { awsApis } from './aws-apis.js';
import { docsEndpoints } from './docs.js';
import { LocalEventBus } from './bus.js';
import { enforceGrants } from './grants.js';
import { db } from '../../shared/db/client.js';
import { LocalStartError } from './errors.js';
import { functionArn, invokeFunction, loadHandler } from './functions.js';
import { createGateway, type LocalEndpoint } from './gateway.js';
import { LocalIssuer } from './jwt.js';
import { LocalScheduler } from './scheduler.js';
import { StreamPoller } from './stream.js';
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
}

export interface MailboxEmail {
  messageId: string;
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
  at: number;
}

export interface Runtime {
  url: string;
  port: number;
  issuer: LocalIssuer;
  tableName: string;
  bus: LocalEventBus;
  scheduler: LocalScheduler;
  stream: StreamPoller;
  mailbox: { url: string; emails(): Promise<MailboxEmail[]> };
  close(): Promise<void>;
}

/**
 * Points the AWS SDK of this process at DynamoDB Local. The credentials are fixed local ones so
 * that a developer's real AWS credentials are never used by the local runtime.
 */
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);
const wakers = new Set<() => void>();
const watched = new WeakSet<object>();

/** Calls `wake` after every successful write through `client`, until the answered function is called. */
function wakeOnWrite(client: ReturnType<typeof db>, wake: () => void): () => void {
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

/** The name e-mails are sent with locally (SES's configuration set on AWS). */
const LOCAL_CONFIGURATION_SET = 'incident-service-local';

export function useLocalAws(dynamodbEndpoint: string, tableName: string) {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamodbEndpoint;
  process.env.AWS_ENDPOINT_URL_DYNAMODB_STREAMS = dynamodbEndpoint;
  process.env.AWS_REGION = 'local';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // As Lambda sets it (Powertools reads cold starts from it). Locally all functions share one
  // process, so only the first invocation after start is a cold start.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  process.env[TABLE_NAME_ENV] = tableName;
}

/** The other AWS services: this runtime (events, scheduler, lambda, and SES in front of the local mailbox). */
function useLocalServices(runtimeUrl: string) {
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = runtimeUrl;
  process.env.AWS_ENDPOINT_URL_SCHEDULER = runtimeUrl;
  process.env.AWS_ENDPOINT_URL_LAMBDA = runtimeUrl;
  process.env.AWS_ENDPOINT_URL_SES = runtimeUrl;
  process.env[env.sesConfigurationSet] = LOCAL_CONFIGURATION_SET;
  process.env[env.eventBusName] = eventBus.name;
  process.env[env.senderEmail] ??= 'incidents@example.com';
  process.env[env.publicApiUrl] = runtimeUrl;
  process.env[env.schedulerGroup] = scheduleGroup;
  process.env[env.schedulerRoleArn] = 'arn:aws:iam::000000000000:role/local-scheduler';
  process.env[env.escalationStepArn] = functionArn(workers.escalationStep.name);
  // EMF metrics are for CloudWatch; locally they would only fill the terminal.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
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

/** The local SES mailbox, in a child process of its own (mail parsing stays off the gateway's thread). */
async function startMailbox(port: number, host: string): Promise<{ url: string; stop(): Promise<void> }> {
  const probe = createNetServer();
  await listen(probe, port, host, 'the local SES mailbox', 'LOCAL_SES_PORT');
  const free = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  const child = fork(fileURLToPath(new URL('./mailbox-process.mjs', import.meta.url)), {
    env: { ...process.env, MAILBOX_HOST: host, MAILBOX_PORT: String(free) },
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
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
function signedUp(tableName: string): (subject: string) => Promise<boolean> {
  const client = new DynamoDBClient({});
  const known = new Set<string>();
  return async (subject) => {
    if (known.has(subject)) return true;
    const { Item } = await client.send(
      new GetItemCommand({ TableName: tableName, Key: marshall(keys.account(subject)), ConsistentRead: true, ProjectionExpression: table.partitionKey.name }),
    );
    if (Item) known.add(subject);
    return Item !== undefined;
  };
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const tableName = options.tableName ?? table.name;
  const log = options.log ?? ((line: string) => console.log(`[local] ${line}`));
  useLocalAws(options.dynamodbEndpoint, tableName);
  // Each function may do to the table exactly what its AWS grant allows.
  enforceGrants(db());
  const admin = new DynamoDBClient({});
  await ensureTable(admin, tableName, table);
  admin.destroy();

  const host = options.host ?? '127.0.0.1';
  const mailbox = await startMailbox(options.sesPort, host);
  const mailboxUrl = mailbox.url;

  const issuer = await LocalIssuer.create({ issuer: LOCAL_ISSUER, keyFile: options.keyFile });
  const bus = new LocalEventBus({ invoke: invokeFunction, log });
  const scheduler = new LocalScheduler({
    invoke: invokeFunction,
    file: options.stateDir && join(options.stateDir, 'schedules.json'),
    pollMs: options.pollMs ?? 1000,
    log,
  });
  const server = createGateway({
    routes,
    issuer,
    loadHandler,
    localEndpoints: [...localEndpoints(issuer), ...docsEndpoints(() => url)],
    awsApis: awsApis({ bus, scheduler, mailboxUrl, log }),
    admits: signedUp(tableName),
  });
  let port: number;
  let url = '';
  try {
    port = await listen(server, options.port, host, 'the local API', 'PORT');
  } catch (error) {
    await mailbox.stop();
    throw error;
  }
  url = `http://localhost:${port}`;
  useLocalServices(`http://127.0.0.1:${port}`);
  process.env[env.publicApiUrl] = url;

  const stream = new StreamPoller({
    tableName,
    handle: (event) => invokeFunction(workers.publisher.name, event),
    filter: workers.publisher.stream,
    pollMs: options.pollMs ?? 250,
    checkpointFile: options.stateDir && join(options.stateDir, `stream-checkpoints-${tableName}.json`),
    // As the AWS mapping: 20 retries, then the batch is given up to the on-failure records.
    maxAttempts: options.streamMaxAttempts ?? 21,
    deadLetterDir: options.stateDir && join(options.stateDir, 'dead-letters'),
    log,
  });
  await stream.start();
  // A function's write is on the stream at once: read it now (Lambda's mapping polls continuously).
  const stopWaking = wakeOnWrite(db(), () => stream.wake());
  scheduler.start();

  return {
    url,
    port,
    issuer,
    tableName,
    bus,
    scheduler,
    stream,
    mailbox: {
      url: mailboxUrl,
      emails: async () => ((await (await fetch(`${mailboxUrl}/store`)).json()) as { emails: MailboxEmail[] }).emails,
    },
    close: async () => {
      stopWaking();
      await stream.stop();
      await scheduler.stop();
      await bus.idle();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await mailbox.stop();
    },
  };
}
