/**
 * The local runtime, built from the system description out of the AWS stand-ins in `../aws/`: the
 * local API Gateway (routes, JWT authorizer, Lambda Invoke API), DynamoDB Local's stream read into
 * the outbox publisher, the local event bus delivering to the rules' targets, the local scheduler
 * (background.ts), and a local SES mailbox — all running the very handler modules Lambda runs.
 * The tests run it all in their own thread (`startRuntime`); `npm start` runs the same core with the
 * background in a worker thread and the mailbox in a process of its own (`../perf/service.ts`).
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createNetServer, isIP, type AddressInfo, type Server as NetServer } from 'node:net';
import { accountView, Email, signUpInput, type Account } from '../../../shared/accounts/model.js';
import { findAccountIdByEmail } from '../../../shared/accounts/repository.js';
import { getAccount, signUp } from '../../../shared/accounts/service.js';
import { db } from '../../../shared/platform/db/client.js';
import { keys } from '../../../shared/platform/db/keys.js';
import { fieldErrors } from '../../../shared/platform/validation.js';
import { routes, table } from '../../../shared/system.js';
import { classifyAddress } from '../../../shared/webhooks/target.js';
import { awsApis, type GatewayPorts } from '../aws/aws-apis.js';
import type { LocalEventBus } from '../aws/bus.js';
import { LocalStartError } from '../aws/errors.js';
import { invokeFunction, loadHandler } from '../aws/functions.js';
import { PhoneInbox, type PhoneMessage } from '../aws/phones.js';
import { createGateway, type LocalEndpoint } from '../aws/gateway.js';
import { enforceGrants } from '../aws/grants.js';
import { LocalIssuer, type TokenSubject } from '../aws/jwt.js';
import { consoleClient, LOCAL_CLIENT_ID, oidcEndpoints, type OidcAccounts } from '../aws/oidc.js';
import { createConsoleHost, localConsoleConfig } from '../aws/console-host.js';
import type { LocalQueues } from '../aws/queue.js';
import type { LocalScheduler } from '../aws/scheduler.js';
import type { StreamPoller } from '../aws/stream.js';
import { ensureTable } from '../aws/table.js';
import { startBackground, type BackgroundPorts } from './background.js';
import { docsEndpoints } from './docs.js';
import { phoneEndpoints } from './phones.js';
import { useLocalAws, useLocalServices } from './environment.js';

/** The console's port unless CONSOLE_PORT says otherwise (`npm start`). */
export const DEFAULT_CONSOLE_PORT = 3001;
/** The console's origin on `port`: where it is served from, its sign-in's redirect URI, the one origin CORS allows. */
export const consoleOriginAt = (port: number) => `http://localhost:${port}`;

/** CONSOLE_PORT as the user wrote it (unset or empty: 3001), as the console's origin. */
export function parseConsolePort(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return consoleOriginAt(DEFAULT_CONSOLE_PORT);
  const port = text.trim();
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new LocalStartError(`CONSOLE_PORT must be a port (1-65535), as in CONSOLE_PORT=3001; got "${text}".`);
  }
  return consoleOriginAt(Number(port));
}

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
  /**
   * The ports of this machine that webhooks may reach (LOCAL_WEBHOOK_PORTS: a receiver the user runs);
   * omitted = none. Never the runtime's own nor DynamoDB Local's, and none unless `host` is loopback.
   */
  webhookPorts?: readonly number[];
  /** How often the stream and the scheduler look for work. */
  pollMs?: number;
  /**
   * The web console's origin (`scheme://host:port`): the one origin CORS lets call the API, and the
   * sign-in client's redirect (`<origin>/callback`) and sign-out (`<origin>`) URIs. Omitted:
   * `http://localhost:3001` (DEFAULT_CONSOLE_PORT).
   */
  consoleOrigin?: string;
  /**
   * Serve the built console (`dir`, as `console/build/build.ts` writes it) at its own origin on `port`
   * (0: the system picks), on the API's host: CloudFront's stand-in. Its origin is then the one CORS
   * and the sign-in allow (`consoleOrigin` is not given with it).
   */
  console?: { dir: string; port: number };
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

/** A running local runtime: where it answers, its issuer, its mailbox, its phones. */
export interface LocalService {
  url: string;
  port: number;
  /** The local JWT issuer, an OpenID Connect provider named after `url` (Cognito managed login's stand-in, `../aws/oidc.ts`). */
  issuer: LocalIssuer;
  /** The sign-in as the console does it: its discovery document's URL, the client id, the console's origin. */
  oidc: { discoveryUrl: string; clientId: string; consoleOrigin: string };
  tableName: string;
  mailbox: { url: string; emails(): Promise<MailboxEmail[]> };
  /** The web console's URL when the runtime serves it (`console` option). */
  consoleUrl?: string;
  /** The phone inbox (End User Messaging SMS and Voice v2's stand-in): its page, its messages (newest first). */
  phones: { url: string; messages(to?: string): PhoneMessage[] };
  /**
   * Resolves once every event under way has been delivered; with the background in a thread of its
   * own (`startService`), once the stream has also been read to its end.
   */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** The runtime with its background in the caller's thread, for tests to drive. */
export interface Runtime extends LocalService {
  bus: LocalEventBus;
  scheduler: LocalScheduler;
  queues: LocalQueues;
  stream: StreamPoller;
  alertStream: StreamPoller;
}

const subjectOf = (account: Account): TokenSubject => ({ sub: account.id, email: account.email, name: account.name });

/** The accounts the local sign-in form signs people in to: those `POST /local/users` creates. */
const signInAccounts: OidcAccounts = {
  async signIn(email, name) {
    const address = Email.safeParse(email);
    if (!address.success) {
      return { problems: [{ field: 'email', message: email ? 'Enter a valid e-mail address, as in alice@example.com.' : 'Enter your e-mail address.' }] };
    }
    if (!name) {
      const id = await findAccountIdByEmail(address.data);
      const account = id ? await getAccount(id) : undefined;
      if (account) return { account: subjectOf(account) };
      return { problems: [{ field: 'name', message: 'There is no account for this e-mail address yet: enter your name to create one.' }] };
    }
    const input = signUpInput.safeParse({ email: address.data, name });
    if (!input.success) return { problems: fieldErrors(input.error, 'body').map((problem) => ({ field: 'name', message: `Name: ${problem.message}` })) };
    return { account: subjectOf(await signUp(input.data)) };
  },
  find: async (sub) => {
    const account = await getAccount(sub);
    return account && subjectOf(account);
  },
};

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
  ];
}

/** Whether `host` keeps what listens on it to this machine. */
const isLoopbackHost = (host: string) => host === 'localhost' || (isIP(host) !== 0 && classifyAddress(host) === 'loopback');

/**
 * LOCAL_WEBHOOK_PORTS as the user wrote it: ports (1-65535) separated by commas; empty or unset
 * names none.
 */
export function parseWebhookPorts(text: string | undefined): number[] {
  if (text === undefined || text.trim() === '') return [];
  const parts = text.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d{1,5}$/.test(part) || Number(part) < 1 || Number(part) > 65535)) {
    throw new LocalStartError(`LOCAL_WEBHOOK_PORTS must list ports (1-65535) separated by commas, as in LOCAL_WEBHOOK_PORTS=9000,9001; got "${text}".`);
  }
  return [...new Set(parts.map(Number))];
}

/**
 * The webhook ports the runtime may let through: none at all when the API answers beyond this machine
 * (anyone who reaches it could then make webhooks call this machine's services), and never a port of
 * the runtime's own services.
 */
function checkWebhookPorts(options: RuntimeOptions, host: string) {
  const ports = options.webhookPorts ?? [];
  if (ports.length === 0) return;
  if (!isLoopbackHost(host)) {
    throw new LocalStartError(
      `LOCAL_WEBHOOK_PORTS cannot be used with HOST=${host}: anyone who reaches the API could make webhooks call this machine's services. Unset one of them.`,
    );
  }
  const dynamodb = new URL(options.dynamodbEndpoint);
  const own: [number, string][] = [
    [options.port, 'the local API (PORT)'],
    [options.sesPort, 'the local SES mailbox (LOCAL_SES_PORT)'],
    [Number(dynamodb.port), 'DynamoDB Local (DYNAMODB_PORT)'],
  ];
  for (const [port, what] of own) {
    if (port !== 0 && ports.includes(port)) {
      throw new LocalStartError(`LOCAL_WEBHOOK_PORTS names port ${port}, which is ${what}: webhooks may not reach the runtime's own services.`);
    }
  }
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

/** A running local SES mailbox. */
export interface Mailbox {
  url: string;
  stop(): Promise<void>;
}

/** Starts the mailbox on `port` (0: the system picks) and `host`. */
export type MailboxStarter = (port: number, host: string) => Promise<Mailbox>;

async function startSesV2Local(port: number, host: string): Promise<Server> {
  type Start = (config: object) => Promise<Server>;
  // A CommonJS module: its default export is the function or wraps it, depending on the loader.
  const module = (await import('aws-ses-v2-local')) as unknown as { default: Start | { default: Start } };
  return (typeof module.default === 'function' ? module.default : module.default.default)({ host, port });
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * The local SES mailbox (aws-ses-v2-local) in this process, as the tests run it (a process of its own
 * per test file would cost each file a Node.js start; `npm start` runs it in one, `../perf/mailbox-process.mjs`).
 * Its port listens at once; aws-ses-v2-local (an Express app with a mail parser: about 0.3 s of CPU
 * to load) starts behind it on the first request, which is forwarded there as every later one is,
 * so a test file that sends no e-mail never loads it. aws-ses-v2-local keeps its e-mails in its
 * module, one store per process: the last mailbox of the process to stop empties it, as a mailbox
 * process's end did (the next test file sharing the worker starts with an empty mailbox).
 */
let mailboxesBehind = 0;
export const startMailboxOnFirstUse: MailboxStarter = async (port, host) => {
  let behind: Promise<Server> | undefined;
  const front = createHttpServer((request, response) => {
    behind ??= startSesV2Local(0, '127.0.0.1').then((server) => {
      mailboxesBehind++;
      return server;
    });
    void behind.then((server) => {
      const forwarded = httpRequest(
        { host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: request.url, method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forwarded.once('error', () => response.destroy());
      request.pipe(forwarded);
    }, () => response.writeHead(502).end());
  });
  const bound = await listen(front, port, host, 'the local SES mailbox', 'LOCAL_SES_PORT');
  return {
    url: `http://127.0.0.1:${bound}`,
    stop: async () => {
      await closeServer(front);
      // A mailbox that failed to start answered 502 and holds nothing; a second stop finds none.
      const server = await behind?.catch(() => undefined);
      behind = undefined;
      if (!server) return;
      try {
        if (--mailboxesBehind === 0) await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/clear-store`, { method: 'POST' });
      } finally {
        await closeServer(server);
      }
    },
  };
};

/** Starts the mailbox, saying plainly when a port asked for is taken (the mailbox itself would only crash). */
async function startMailbox(port: number, host: string, start: MailboxStarter): Promise<Mailbox> {
  if (port !== 0) {
    const probe = createNetServer();
    await listen(probe, port, host, 'the local SES mailbox', 'LOCAL_SES_PORT');
    await new Promise((resolve) => probe.close(resolve));
  }
  // Port 0 goes to the mailbox as it is and the system picks: a port found free and released first
  // could be taken by another program (a DynamoDB Local starting beside) before the mailbox bound it.
  return start(port, host);
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
 * known (the functions call the runtime's AWS APIs there), in this thread or another.
 */
export async function startCore<B extends BackgroundPorts>(
  options: RuntimeOptions,
  mailboxStarter: MailboxStarter,
  background: (urls: {
    runtimeUrl: string;
    publicUrl: string;
    /** The console's origin, for the incident links of e-mails and Slack messages. */
    consoleUrl: string;
    mailboxUrl: string;
    /** Where the phone inbox answers (the gateway's thread keeps it): the functions' End User Messaging endpoint in every thread. */
    phonesUrl: string;
    tableName: string;
    webhookPorts: readonly number[];
    log: (line: string) => void;
  }) => Promise<B>,
) {
  const host = options.host ?? '127.0.0.1';
  checkWebhookPorts(options, host);
  const tableName = options.tableName ?? table.name;
  const log = options.log ?? ((line: string) => console.log(`[local] ${line}`));
  useLocalAws(options.dynamodbEndpoint, tableName);
  // Each function may do to the table exactly what its AWS grant allows.
  enforceGrants(db());
  const admin = new DynamoDBClient({});
  await ensureTable(admin, tableName, table);
  admin.destroy();

  const mailbox = await startMailbox(options.sesPort, host, mailboxStarter);
  const mailboxUrl = mailbox.url;

  // Named after the API's origin once it listens (PORT=0 lets the system pick the port).
  const issuer = await LocalIssuer.create({ keyFile: options.keyFile });
  let url = '';
  // The console listens first: its origin (a port the system may pick) is what CORS and the sign-in allow.
  const consoleHost = options.console && createConsoleHost({ dir: options.console.dir, config: () => localConsoleConfig(url, LOCAL_CLIENT_ID) });
  let consoleOrigin = options.consoleOrigin ?? consoleOriginAt(DEFAULT_CONSOLE_PORT);
  if (consoleHost) {
    try {
      consoleOrigin = consoleOriginAt(await listen(consoleHost, options.console!.port, host, 'the web console', 'CONSOLE_PORT'));
    } catch (error) {
      await mailbox.stop();
      throw error;
    }
  }
  // Requests may arrive as soon as the gateway listens; its AWS APIs wait for the background.
  let ports: Promise<B> | undefined;
  const later: GatewayPorts = {
    putEvents: async (entries) => (await ports!).putEvents(entries),
    createSchedule: async (name, request) => (await ports!).createSchedule(name, request),
    deleteSchedule: async (name) => (await ports!).deleteSchedule(name),
    sendMessage: async (queueUrl, body, delaySeconds) => (await ports!).sendMessage(queueUrl, body, delaySeconds),
  };
  // Every SMS and call, kept (across restarts with a state folder); receipts and replies invoke their functions here.
  const phones = new PhoneInbox(invokeFunction, { stateDir: options.stateDir, log });
  const server = createGateway({
    routes,
    issuer,
    loadHandler,
    localEndpoints: [
      ...localEndpoints(issuer),
      ...oidcEndpoints({ issuer, clients: [consoleClient(consoleOrigin)], accounts: signInAccounts }),
      ...docsEndpoints(() => url),
      ...phoneEndpoints(phones, log),
    ],
    awsApis: awsApis({ background: later, mailboxUrl, phones, log }),
    admits: signedUp(tableName),
    corsOrigins: new Set([consoleOrigin]),
  });
  let port: number;
  try {
    port = await listen(server, options.port, host, 'the local API', 'PORT');
  } catch (error) {
    if (consoleHost) await closeServer(consoleHost);
    await mailbox.stop();
    throw error;
  }
  url = `http://localhost:${port}`;
  // The issuer is the API's own origin, as an OpenID Connect client expects of its discovery document.
  issuer.serveAt(url);
  const runtimeUrl = `http://127.0.0.1:${port}`;
  // The ports the system picked (PORT=0, LOCAL_SES_PORT=0) are never a webhook's either.
  const ownPorts = [port, Number(new URL(mailboxUrl).port)];
  const webhookPorts = (options.webhookPorts ?? []).filter((candidate) => !ownPorts.includes(candidate));
  useLocalServices(runtimeUrl, url, webhookPorts, runtimeUrl, consoleOrigin);
  ports = background({ runtimeUrl, publicUrl: url, consoleUrl: consoleOrigin, mailboxUrl, phonesUrl: runtimeUrl, tableName, webhookPorts, log });
  const started = await ports;

  return {
    started,
    service: {
      url,
      port,
      issuer,
      oidc: { discoveryUrl: `${url}/.well-known/openid-configuration`, clientId: LOCAL_CLIENT_ID, consoleOrigin },
      ...(consoleHost ? { consoleUrl: consoleOrigin } : {}),
      tableName,
      mailbox: {
        url: mailboxUrl,
        emails: async () => ((await (await fetch(`${mailboxUrl}/store`)).json()) as { emails: MailboxEmail[] }).emails,
      },
      phones: { url: `${url}/local/phones`, messages: (to) => phones.list(to) },
      // The receipts and replies under way first: a receipt may be what a test waits for.
      idle: async () => {
        await phones.idle();
        await started.idle();
      },
      close: async () => {
        await phones.idle();
        await started.close();
        await new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        });
        if (consoleHost) await closeServer(consoleHost);
        await mailbox.stop();
      },
    } satisfies LocalService,
  };
}

/** The runtime with its background in this thread, where tests drive the bus, the stream, the scheduler and the clock. */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { started, service } = await startCore(options, startMailboxOnFirstUse, ({ tableName, log }) =>
    startBackground({ tableName, stateDir: options.stateDir, pollMs: options.pollMs, streamMaxAttempts: options.streamMaxAttempts, log }),
  );
  return { ...service, bus: started.bus, scheduler: started.scheduler, queues: started.queues, stream: started.stream, alertStream: started.alertStream };
}
