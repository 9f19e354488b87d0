/**
 * `npm run bench -- alerts`: a repeated trigger on an open incident (`POST /v2/enqueue`, the dedup key
 * of an incident that is open) against its floor, timed from a separate client process
 * (bench-alert-client.ts) that alternates between the two request by request.
 *
 * The floor is hand-written here, not a replay of the service's calls: a `node:http` server in the
 * same process as the local gateway (the same kind of HTTP hop: a kept-alive connection, a body read
 * whole, a JSON answer with a Content-Length), no JWT (the route is public), that does what any
 * correct implementation of a repeat trigger must do, and nothing else:
 * - parse the event and check the fields the Events API requires (a trigger: a 32-character
 *   `routing_key`, a `dedup_key`, `payload.summary`, `payload.source`, `payload.severity`);
 * - hash the key (the table keeps only its SHA-256);
 * - settle, at write time, the three things that decide the answer: the key still exists (not
 *   revoked) and is within its rate (120 events a minute, fixed one-minute windows), and the incident
 *   of the dedup key is still open — and write the two things a repeat changes: the key's count (with
 *   its last event) and the incident's `alert_count` / `last_alert_at`.
 *
 * What that minimum is: ONE conditional write, a TransactWriteItems of two Updates.
 * - Not one UpdateItem: the rate is per key and the count per incident, two items (one key's events
 *   go to many incidents; one incident's triggers may come from several keys of its monitor).
 * - Not two writes in parallel or in sequence: a refused event (429, revoked key) must not count on the
 *   incident, and a count must not be taken for an incident that was resolved meanwhile, so both
 *   conditions hold in one atomic write; sequentially they would be two round trips.
 * - No read first: what the write needs to know beforehand is the key's monitor (immutable: a key
 *   never moves to another monitor) and which incident holds the dedup key. The latter changes, but
 *   only as a hint: the incident's condition (open, this monitor, this dedup key) verifies it at write
 *   time, and a refused hint falls back to reading. A warm implementation has both from earlier
 *   requests, so the floor is given them up front.
 * - The monitor is not checked: in the minimal design deleting a monitor deletes its keys in the same
 *   transaction, so "the key's item exists" covers it. (This service revokes a deleted monitor's
 *   keys by a condition on the monitor item instead; that ConditionCheck is what the service pays
 *   over this floor.)
 * - The first event of a key in a new minute starts its window: the count in the current window is
 *   refused, and a second transaction starts the window (the service does the same).
 *
 * The floor writes items of its own (copies of the service's key lookup items and incident, renamed
 * so that the service never reads them, the same sizes and indexes), so the two sides do not share
 * rate windows or items, and the stream's consumers ignore them. A benchmark, not a test: it reports.
 */
import { fork } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { median } from '../build/bundling.js';
import type { Service as Runtime } from '../local/perf/service.js';
import { newDocumentClient } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { newIntegrationKey } from '../../shared/integrations/keys.js';
import { call, row, type Row } from './bench-path.js';
import type { AlertClientInput, AlertClientOutput } from './bench-alert-client.js';

/** Keys per side: each sends at most this bench's requests / KEYS a minute, well within its 120. */
const KEYS = 40;
const WARM_PAIRS = 600;
const ROUNDS = 3;
const PAIRS_PER_ROUND = 400;
const EVENTS_PER_MINUTE = 120;
const MAX_BODY = 512 * 1024;
const SEVERITIES = new Set(['critical', 'error', 'warning', 'info']);
const FLOOR_PREFIX = 'BENCHFLOOR#';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

type Answer = { status: number; body: unknown };
const invalid = (errors: string[]): Answer => ({ status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors } });

/** What the floor knows before a request, as a warm instance of any implementation would. */
interface FloorFacts {
  /** Key hash → its monitor (immutable). */
  monitorOfKey: Map<string, string>;
  /** `monitor \n dedup key` → the incident that holds it (a hint; the write verifies it). */
  incidentOfDedup: Map<string, string>;
}

const floorKey = (key: Record<string, string>) => ({ pk: `${FLOOR_PREFIX}${key.pk}`, sk: key.sk! });

/** The floor's one conditional write: the key counted in the current (or a new) window and the incident's count, at once. */
async function countRepeat(document: DynamoDBDocumentClient, keyHash: string, monitorId: string, dedupKey: string, incidentId: string): Promise<Answer> {
  const now = new Date();
  const window = Math.floor(now.getTime() / 60_000);
  const incidentUpdate = {
    Update: {
      TableName: tableName,
      Key: floorKey(keys.incident(incidentId)),
      UpdateExpression: 'SET last_alert_at = :now ADD alert_count :one',
      ConditionExpression: 'attribute_exists(pk) AND #status <> :resolved AND monitor_id = :monitor AND dedup_key = :dedup',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':now': now.toISOString(), ':one': 1, ':resolved': 'RESOLVED', ':monitor': monitorId, ':dedup': dedupKey },
    },
  };
  const keyUpdate = (start: boolean) => ({
    Update: {
      TableName: tableName,
      Key: floorKey(keys.integrationKey(keyHash)),
      ...(start
        ? {
            UpdateExpression: 'SET rate_window = :window, rate_count = :one, last_event_at = :now',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(rate_window) OR rate_window < :window)',
            ExpressionAttributeValues: { ':window': window, ':one': 1, ':now': now.toISOString() },
          }
        : {
            UpdateExpression: 'SET last_event_at = :now ADD rate_count :one',
            ConditionExpression: 'attribute_exists(pk) AND rate_window = :window AND rate_count < :max',
            ExpressionAttributeValues: { ':window': window, ':one': 1, ':now': now.toISOString(), ':max': EVENTS_PER_MINUTE },
          }),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  });
  for (const start of [false, true]) {
    try {
      await document.send(new TransactWriteCommand({ TransactItems: [keyUpdate(start), incidentUpdate] }));
      return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: dedupKey } };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [keyReason, incidentReason] = error.CancellationReasons ?? [];
      if (keyReason?.Code === 'ConditionalCheckFailed') {
        if (!keyReason.Item) return invalid(['Invalid routing key']);
        const current = Number(keyReason.Item.rate_window?.N ?? -1);
        if (current === window) return { status: 429, body: { status: 'throttle exceeded', message: 'Requests for this service are arriving too quickly.  Please retry later.', errors: ['Enhance Your Calm.'] } };
        if (!start) continue;
      }
      if (incidentReason?.Code === 'ConditionalCheckFailed') throw new Error('the floor serves repeats of an open incident only; its incident is not open');
      throw error;
    }
  }
  throw new Error('the floor could not start its rate window');
}

let tableName = '';

async function handle(document: DynamoDBDocumentClient, facts: FloorFacts, raw: string): Promise<Answer> {
  let event: any;
  try {
    event = JSON.parse(raw);
  } catch {
    return { status: 400, body: { status: 'Unrecognized object', message: 'Event object is invalid', errors: ['JSON parse error'] } };
  }
  const errors: string[] = [];
  if (typeof event?.routing_key !== 'string' || event.routing_key.length !== 32) errors.push('Length of \'routing_key\' is incorrect (should be 32 characters)');
  if (event?.event_action !== 'trigger') errors.push("'event_action' is invalid (must be one of the following: 'trigger', 'acknowledge' or 'resolve')");
  if (typeof event?.dedup_key !== 'string' || event.dedup_key.length === 0 || event.dedup_key.length > 255) errors.push("'dedup_key' is invalid");
  const payload = event?.payload;
  if (typeof payload?.summary !== 'string' || payload.summary.length < 1 || payload.summary.length > 1024) errors.push("'payload.summary' is missing or blank");
  if (typeof payload?.source !== 'string' || payload.source.length === 0) errors.push("'payload.source' is missing or blank");
  if (!SEVERITIES.has(payload?.severity)) errors.push("'payload.severity' is missing or invalid");
  if (errors.length) return invalid(errors);
  const keyHash = sha256(event.routing_key);
  const monitorId = facts.monitorOfKey.get(keyHash);
  if (!monitorId) return invalid(['Invalid routing key']);
  const incidentId = facts.incidentOfDedup.get(`${monitorId}\n${event.dedup_key}`);
  if (!incidentId) throw new Error('the floor serves repeats of an open incident only');
  return countRepeat(document, keyHash, monitorId, event.dedup_key, incidentId);
}

/** The floor's server: POST /v2/enqueue, on 127.0.0.1, a free port. */
async function startFloor(document: DynamoDBDocumentClient, facts: FloorFacts): Promise<{ url: string; server: Server }> {
  const readBody = (request: IncomingMessage) =>
    new Promise<string | undefined>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      request.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY) chunks.push(chunk);
      });
      request.on('error', reject);
      request.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks, size).toString('utf8')));
    });
  const server = createServer({ keepAlive: true }, (request, response) => {
    const answer = async (): Promise<Answer> => {
      if (request.method !== 'POST' || request.url !== '/v2/enqueue') return { status: 404, body: { message: 'Not Found' } };
      const raw = await readBody(request);
      if (raw === undefined) return { status: 413, body: { status: 'invalid event', message: 'Request too large', errors: [] } };
      return handle(document, facts, raw);
    };
    answer().then(
      ({ status, body }) => {
        const text = JSON.stringify(body);
        response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        response.end(text);
      },
      (error: unknown) => {
        console.error('floor:', error);
        const text = JSON.stringify({ message: 'Internal Server Error' });
        response.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        response.end(text);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const triggerBody = (routingKey: string, dedupKey: string) =>
  JSON.stringify({ routing_key: routingKey, event_action: 'trigger', dedup_key: dedupKey, payload: { summary: 'Checkout 5xx above 2%', source: 'checkout-api', severity: 'critical' } });

/** Runs the client process once: the rounds' p50 and p99 of each side. */
function runClient(input: AlertClientInput) {
  return new Promise<Extract<AlertClientOutput, { ok: true }>['rounds']>((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./bench-alert-client.ts', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let settled = false;
    child.once('message', (output: AlertClientOutput) => {
      settled = true;
      if (output.ok) resolve(output.rounds);
      else reject(new Error(`the client process failed: ${output.error}`));
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`the client process exited (${code}) without an answer`));
    });
    child.send(input);
  });
}

export async function benchAlertRepeat(runtime: Runtime): Promise<Row[]> {
  tableName = runtime.tableName;
  const document = newDocumentClient();
  // A monitor with KEYS integrations (the dedup scope is the monitor: every key counts on its incident), and one open incident.
  const caller = (await call(runtime, 'POST', '/local/users', undefined, { email: `alert-bench-${randomUUID()}@bench.example`, name: 'Bench' })).body as { token: string };
  const api = async (method: string, path: string, body?: unknown) => (await call(runtime, method, path, caller.token, body)).body;
  const monitor = (await api('POST', '/api/monitors', { name: 'Alert bench' })).monitor as { id: string };
  const serviceKeys: string[] = [];
  for (let index = 0; index < KEYS; index++) serviceKeys.push((await api('POST', `/api/monitors/${monitor.id}/integrations`, { name: `Bench ${index}` })).integration.key);
  const dedupKey = `bench-${randomUUID()}`;
  await call(runtime, 'POST', '/v2/enqueue', undefined, JSON.parse(triggerBody(serviceKeys[0]!, dedupKey)));
  const incidentId = (await api('GET', `/api/incidents?monitor_id=${monitor.id}`)).incidents[0].id as string;

  // The floor's items: copies of the service's, renamed; its own keys.
  const copy = async (key: Record<string, string>, to: Record<string, string>, fields: Record<string, unknown> = {}) => {
    const { Item } = await document.send(new GetCommand({ TableName: tableName, Key: key }));
    if (!Item) throw new Error(`nothing to copy at ${key.pk}`);
    await document.send(new PutCommand({ TableName: tableName, Item: { ...Item, ...to, ...fields, type: `bench-floor-${String(Item.type)}` } }));
  };
  const facts: FloorFacts = { monitorOfKey: new Map(), incidentOfDedup: new Map([[`${monitor.id}\n${dedupKey}`, incidentId]]) };
  await copy(keys.incident(incidentId), floorKey(keys.incident(incidentId)));
  const floorKeys: string[] = [];
  for (const serviceKey of serviceKeys) {
    const key = newIntegrationKey();
    floorKeys.push(key);
    facts.monitorOfKey.set(sha256(key), monitor.id);
    await copy(keys.integrationKey(sha256(serviceKey)), floorKey(keys.integrationKey(sha256(key))), { rate_count: 0, rate_window: 0 });
  }
  const floor = await startFloor(document, facts);
  try {
    const rounds: Extract<AlertClientOutput, { ok: true }>['rounds'][] = [];
    // Each run in a fresh client process; the figures are the median of ROUNDS runs' medians.
    for (let run = 0; run < ROUNDS; run++) {
      rounds.push(
        await runClient({
          service: { url: runtime.url, bodies: serviceKeys.map((key) => triggerBody(key, dedupKey)) },
          floor: { url: floor.url, bodies: floorKeys.map((key) => triggerBody(key, dedupKey)) },
          warmPairs: run === 0 ? WARM_PAIRS : WARM_PAIRS / 4,
          rounds: 1,
          pairsPerRound: PAIRS_PER_ROUND,
        }),
      );
    }
    const flat = rounds.flat();
    const figure = (side: 'service' | 'floor', p: 'p50' | 'p99') => median(flat.map((round) => round[side][p]));
    const counted = (await api('GET', `/api/incidents/${incidentId}`)).incident.alert_count as number;
    console.log(`alert bench: the service's incident counted ${counted} triggers`);
    return [
      row('repeat trigger on an open incident, POST /v2/enqueue p50 from a client process vs the floor (one TransactWriteItems behind a node:http server)', figure('service', 'p50'), figure('floor', 'p50'), 'ms', '≤ 1.3×'),
      row('repeat trigger on an open incident, POST /v2/enqueue p99 from a client process vs the floor', figure('service', 'p99'), figure('floor', 'p99'), 'ms', '≤ 1.3×'),
    ];
  } finally {
    await new Promise((resolve) => floor.server.close(resolve));
    floor.server.closeAllConnections();
    document.destroy();
  }
}
