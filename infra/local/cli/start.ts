/**
 * `npm start`: the whole service on this machine — DynamoDB Local, the local API Gateway with
 * JWT verification, and the very handler modules Lambda runs. Ctrl-C stops everything.
 *   npm start                 data kept under .data/
 *   npm start -- --in-memory  nothing kept
 * Everything listens on 127.0.0.1; HOST=0.0.0.0 opens the API and the mailbox to the network
 * (with a warning). PORT, DYNAMODB_PORT and LOCAL_SES_PORT choose the ports; LOCAL_WEBHOOK_PORTS
 * names the ports of this machine webhooks may reach (a receiver of your own; none unless named);
 * CONSOLE_PORT names the web console's port (3001): the one origin the API and the sign-in allow.
 */
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { startDynamoDbLocal, type DynamoDbLocal } from '../aws/dynamodb-local.js';
import { LocalStartError } from '../aws/errors.js';
import { makePrivate, privateDirectory } from '../aws/private-files.js';
import { dataDirectory, DEFAULT_PORT, forgetRunning, isLoopback, recordRunning, usage } from './running.js';
import { startService, type Service } from '../perf/service.js';
import { parseConsolePort, parseWebhookPorts } from '../runtime/runtime.js';
import { signUp } from '../../../shared/accounts/service.js';
import { buildConsole, consoleDist } from '../../../console/build/build.js';

let inMemory = false;
try {
  inMemory = parseArgs({ options: { 'in-memory': { type: 'boolean' } } }).values['in-memory'] ?? false;
} catch (error) {
  usage('npm start [-- --in-memory]', (error as Error).message);
}
const port = Number(process.env.PORT ?? DEFAULT_PORT);
const dynamodbPort = Number(process.env.DYNAMODB_PORT ?? 8000);
const sesPort = Number(process.env.LOCAL_SES_PORT ?? 8005);
// Unset or empty: this machine only (an empty HOST would otherwise make Node listen on every interface).
const host = process.env.HOST || '127.0.0.1';
let webhookPorts: number[] = [];
const dataDir = dataDirectory();

function requireJava() {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error) {
    throw new LocalStartError('Java 17 or newer is required (DynamoDB Local runs on it), and `java` was not found on PATH.');
  }
  const major = Number(/version "(\d+)/.exec(probe.stderr)?.[1] ?? 0);
  if (major && major < 17) throw new LocalStartError(`Java 17 or newer is required; found Java ${major}.`);
}

let database: DynamoDbLocal | undefined;
let runtime: Service | undefined;

async function stop() {
  forgetRunning();
  await runtime?.close();
  await database?.stop();
}

async function main() {
  webhookPorts = parseWebhookPorts(process.env.LOCAL_WEBHOOK_PORTS);
  const consoleOrigin = parseConsolePort(process.env.CONSOLE_PORT);
  requireJava();
  // The console is built from its sources at every start (about a second), so it is never stale.
  await buildConsole(consoleDist);
  // Everything this process and its children (DynamoDB Local, the mailbox) create is this user's
  // alone: the data folder holds the signing key, the table and e-mail addresses. The runtime's own
  // files are written 0600 in any case; a folder left by an older version is tightened here.
  process.umask(0o077);
  if (!inMemory) {
    privateDirectory(dataDir);
    makePrivate(dataDir);
  }
  database = await startDynamoDbLocal({
    port: dynamodbPort,
    dataDir: inMemory ? undefined : join(dataDir, 'dynamodb'),
    // Without its database the runtime can only fail every request: stop, saying why, rather than retry forever.
    onExit: (description) => {
      console.error(`${description}. Stopping the runtime${inMemory ? '' : ' (the data under .data/ is kept)'}; start it again with npm start.`);
      stopping = true;
      // Nothing under way can finish without it, so no graceful close: it would only let the
      // invocations in flight (a webhook retry, a step's schedule) print their failures after this
      // line. The scheduler's and the stream's state files are written as they change; the mailbox
      // process is killed on exit.
      forgetRunning();
      process.exit(1);
    },
  });
  runtime = await startService({
    port,
    host,
    dynamodbEndpoint: database.endpoint,
    keyFile: inMemory ? undefined : join(dataDir, 'jwt-signing-key.json'),
    stateDir: inMemory ? undefined : dataDir,
    sesPort,
    webhookPorts,
    console: { dir: consoleDist, port: Number(new URL(consoleOrigin).port) },
  });
  const demo = await signUp({ email: 'demo@example.com', name: 'Demo User' });
  const token = await runtime.issuer.sign({ sub: demo.id, email: demo.email, name: demo.name });
  recordRunning({ url: runtime.url, pid: process.pid, dynamodb: { endpoint: database.endpoint, pid: database.pid } });
  if (!isLoopback(host)) {
    console.warn(`
WARNING: HOST=${host}: the API and the mailbox answer on every address of this machine, and
POST /local/users hands a token for any e-mail to anyone who can reach it. Use it on a network you trust.`);
  }
  const where = inMemory ? 'in memory (nothing is kept)' : `${relative(process.cwd(), dataDir) || '.'}/ (kept across restarts)`;
  console.log(`
Incident service running at ${runtime.url}
  Web console        ${runtime.consoleUrl}  (sign in with any e-mail address; a new one asks for a name)
  DynamoDB Local     ${database.endpoint}  (table ${runtime.tableName})
  Data               ${where}
  OIDC sign-in       ${runtime.oidc.discoveryUrl}
                     (client ${runtime.oidc.clientId}, redirect URI ${runtime.oidc.consoleOrigin}/callback; the API allows CORS from ${runtime.oidc.consoleOrigin} only)
  API reference      ${runtime.url}/docs  (OpenAPI: ${runtime.url}/openapi.json)
  E-mail (local SES) ${runtime.mailbox.url}  (web mailbox; JSON at ${runtime.mailbox.url}/store)
  Phones (SMS/voice) ${runtime.phones.url}  (every SMS and call from +18005550100, with a reply box; JSON at ${runtime.phones.url}/messages)
  Webhooks           ${webhookPorts.length ? `may also reach port ${webhookPorts.join(', ')} of this machine (LOCAL_WEBHOOK_PORTS)` : 'https to public addresses only (LOCAL_WEBHOOK_PORTS=9000 lets them reach port 9000 here)'}
  Monitor checks     npm run invoke -- monitor-check payload.json
                     (or aws lambda invoke --endpoint-url ${runtime.url} --function-name monitor-check …)

A token for demo@example.com (valid 24 h):
  export TOKEN=${token}
  curl -s -H "Authorization: Bearer $TOKEN" ${runtime.url}/api/incidents

Sign up another user and get a token:
  curl -s -X POST ${runtime.url}/local/users -H 'content-type: application/json' -d '{"email":"alice@example.com","name":"Alice"}'

Press Ctrl-C to stop.`);
}

// Ctrl-C reaches this process twice (from the terminal and relayed by tsx): stop once, ignore the rest.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    void stop().then(() => process.exit(0));
  });
}

main().catch(async (error: unknown) => {
  await stop().catch(() => undefined);
  if (error instanceof LocalStartError) console.error(`Cannot start: ${error.message}`);
  else console.error('Cannot start:', error);
  process.exit(1);
});
