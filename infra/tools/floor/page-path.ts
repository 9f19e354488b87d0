/**
 * The floor of "monitor check or alert trigger → first page e-mail" (issue 33): the minimal *design*
 * path, hand-written, in a process of its own as the floor server is (floor/server.ts). What the design
 * card makes mandatory it does; what our design chose beyond that it does not, so the bench's ratio
 * shows what those choices cost:
 *
 * | Hop | The floor | The service, beyond it |
 * |---|---|---|
 * | trigger | `POST /check` (the monitor-check payload) or `POST /v2/enqueue` (Events API v2), one HTTP request | the Lambda Invoke API / the gateway, the handler stack |
 * | reads | GetItem monitor (threshold, name, policy); GetItem policy (step 1's addresses). An alert first admits its key: one conditional UpdateItem of the key's lookup item (the integration's monitor, the rate window), in parallel with the monitor's read once the key's (immutable) monitor is known | the claim read with the monitor (BatchGetItem) |
 * | write | TransactWriteItems: Put the claim (the monitor's open-incident marker, or the alert's dedup item) on the condition that it is absent, Put the incident, Put the outbox record carrying step 1's addresses | the escalation steps, the monitor's incident count (on the monitor's scope as read), the `created` and `paged` timeline entries, two outbox records (`incident.created`, `incident.escalation_step`) |
 * | stream | the runtime's own stream reader (`StreamPoller`, as Lambda's event source mapping), woken by the write, filtered to the floor's records | the same reader |
 * | bus | PutEvents (the SDK's EventBridge client) to a bus in this process that answers as the local bus does (an event per entry, delivered to the matching target asynchronously) | the local bus in the runtime's background thread |
 * | notifier | builds the page (the incident, an acknowledge link signed with a key: no record) and sends it | parses the event, writes the delivery record `pending` with the acknowledge link's record (a TransactWriteItems), sends, marks the delivery `sent` |
 * | e-mail | SendEmail to the runtime's SES API (the same local mailbox behind it) | the same |
 *
 * A refused claim answers the incident it names (an open incident: nothing written, nothing paged); a
 * claim naming a resolved incident (released as stale by the service) is replaced on the condition that it
 * still names it. Only addresses are paged (a step with schedule or person targets answers 501: the bench's
 * policies name addresses). Later steps, the subscribers' e-mails and the timeline are not the first page's
 * and are left out, as is the delivery record: exactly-once pages are what `bench-page.ts` measures apart.
 *
 * Run as a process: `node --import tsx infra/tools/floor/page-path.ts` with TABLE_NAME, FLOOR_SES_URL,
 * FLOOR_PUBLIC_URL and the AWS SDK's environment; it prints `{"port":N}` once it listens (FLOOR_PORT).
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { leanClient } from '../../../shared/platform/aws-client.js';
import { newDocumentClient } from '../../../shared/platform/db/client.js';
import { StreamPoller } from '../../local/aws/stream.js';

type Item = Record<string, any>;

/** The floor's outbox records: a type of their own, so the service's publisher leaves them be. */
export const FLOOR_OUTBOX_TYPE = 'floor_page_outbox';
const DETAIL_TYPE = 'floor.page';
const RATE_PER_MINUTE = 120;
const KEY_SHAPE = /^[a-z0-9]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface PagePathOptions {
  tableName: string;
  /** The SES API the page is sent through (the runtime's, in front of the local mailbox). */
  sesUrl: string;
  /** Where the acknowledge link points. */
  publicUrl: string;
  port?: number;
  sender?: string;
  /**
   * What a guarantee of the service's design adds, for measuring its cost (`npm run bench -- profile`):
   * `delivery`: the notifier writes a pending delivery record with the acknowledge link's record (one
   * TransactWriteItems) before the send and marks it sent after, as exactly-once pages do;
   * `transaction`: the opening transaction also holds the steps, the monitor's count, the `created` and
   * `paged` timeline entries and a second outbox record, as the atomic timeline does.
   */
  with?: ('delivery' | 'transaction')[];
  /** Called with each page sent (the test's hook); the bench passes none. */
  onSent?: (to: string, incidentId: string) => void;
}

/** Key of this process's signed acknowledge links. */
const LINK_KEY = randomBytes(32);

export async function startPagePathFloor(options: PagePathOptions): Promise<{ url: string; close(): Promise<void> }> {
  const { tableName } = options;
  const db: DynamoDBDocumentClient = newDocumentClient();
  const ses = leanClient(new SESClient({ endpoint: options.sesUrl }));
  let busUrl = '';
  let events: EventBridgeClient | undefined;
  const sender = options.sender ?? 'pages@floor.example';
  /** This process's records: another floor reading the same stream (the bench's variants) leaves them be. */
  const instance = randomUUID();

  // ----- the notifier: the event → the page e-mail ----------------------------------------------
  const notify = async (detail: Item) => {
    const { incident, step } = detail;
    await Promise.all(
      (step.emails as string[]).map(async (to) => {
        const expires = Date.now() + 24 * 3_600_000;
        const claims = `${incident.id}.${step.step_order}.${Buffer.from(to).toString('base64url')}.${expires}`;
        const link = `${options.publicUrl}/floor/acknowledge/${claims}.${createHmac('sha256', LINK_KEY).update(claims).digest('base64url')}`;
        const subject = `[${incident.severity}] ${incident.title} — you are paged (step ${step.step_order})`;
        const text = `${incident.title}\nMonitor: ${incident.monitor_name}\nSeverity: ${incident.severity}\nStarted: ${incident.started_at}\nIncident: ${incident.id}\n\nAcknowledge: ${link}\n`;
        const delivery = { pk: `DELIVERY#${detail.event_id}`, sk: `TO#${to}` };
        if (options.with?.includes('delivery')) {
          await db.send(
            new TransactWriteCommand({
              TransactItems: [
                { Put: { TableName: tableName, Item: { ...delivery, type: 'floor_delivery', state: 'pending', attempt: randomUUID(), lease_until: new Date(Date.now() + 60_000).toISOString() }, ConditionExpression: 'attribute_not_exists(pk)' } },
                { Put: { TableName: tableName, Item: { pk: `FLOORLINK#${createHash('sha256').update(link).digest('hex')}`, sk: 'LINK', type: 'floor_link', incident_id: incident.id, recipient: to, expires_at: new Date(expires).toISOString() } } },
              ],
            }),
          );
        }
        await ses.send(
          new SendEmailCommand({
            Source: sender,
            Destination: { ToAddresses: [to] },
            Message: { Subject: { Data: subject, Charset: 'UTF-8' }, Body: { Text: { Data: text, Charset: 'UTF-8' } } },
          }),
        );
        if (options.with?.includes('delivery')) {
          await db.send(new UpdateCommand({ TableName: tableName, Key: delivery, UpdateExpression: 'SET #state = :sent REMOVE lease_until', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':sent': 'sent' } }));
        }
        options.onSent?.(to, incident.id);
      }),
    );
  };

  // ----- the bus: PutEvents answered as the local bus answers it ----------------------------------
  const putEvents = (entries: { Source?: string; DetailType?: string; Detail?: string }[]) => {
    const results = entries.map((entry) => {
      const event = { id: randomUUID(), 'detail-type': entry.DetailType, source: entry.Source, detail: JSON.parse(entry.Detail ?? '{}') };
      if (event['detail-type'] === DETAIL_TYPE) {
        // Delivered asynchronously, as EventBridge delivers to a target (retried on failure).
        setImmediate(() => {
          const attempt = (left: number): void =>
            void notify(event.detail).catch((error: unknown) => {
              if (left > 1) setTimeout(() => attempt(left - 1), 100);
              else console.error(`floor notifier: ${String(error)}`);
            });
          attempt(3);
        });
      }
      return { EventId: event.id };
    });
    return { FailedEntryCount: 0, Entries: results };
  };

  // ----- the publisher: the stream's floor records → the bus -------------------------------------
  /** Off until the stream is read to its end: what was there before this process is not its to page. */
  let live = false;
  const poller = new StreamPoller({
    tableName,
    filter: { eventNames: ['INSERT'], itemTypes: [FLOOR_OUTBOX_TYPE] },
    handle: async (event) => {
      if (!live) return;
      const mine = event.Records.filter((record) => record.dynamodb?.NewImage?.floor?.S === instance);
      const entries = mine.map((record) => {
        const item = unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>);
        return { EventBusName: 'floor', Source: 'floor', DetailType: DETAIL_TYPE, Detail: JSON.stringify(item.detail) };
      });
      for (let start = 0; start < entries.length; start += 10) {
        const result = await events!.send(new PutEventsCommand({ Entries: entries.slice(start, start + 10) }));
        if (result.FailedEntryCount) throw new Error(`PutEvents failed for ${result.FailedEntryCount} entries`);
      }
    },
    pollMs: 250,
  });

  // ----- the trigger: reads, then one transaction ---------------------------------------------------
  const get = async (key: Item) => (await db.send(new GetCommand({ TableName: tableName, Key: key }))).Item;
  const monitorKey = (monitorId: string) => ({ pk: `MONITOR#${monitorId}`, sk: 'MONITOR' });

  /** Step 1's addresses, from the monitor's policy (none without one). */
  const firstStep = async (monitor: Item): Promise<{ step_order: number; emails: string[] } | undefined> => {
    if (!monitor.escalation_policy_id) return undefined;
    const policy = await get({ pk: `POLICY#${monitor.escalation_policy_id}`, sk: 'POLICY' });
    const step = policy?.steps?.[0];
    if (!step || step.delay_minutes !== 0) return undefined;
    if (step.targets?.some((target: Item) => target.type !== 'email')) throw new HttpError(501, 'The floor pages addresses only');
    return { step_order: step.step_order, emails: step.emails ?? [] };
  };

  /** Opens the incident with its claim and its outbox record; a taken claim answers the incident it names. */
  const open = async (monitor: Item, claimKey: Item, title: string, severity: string, message: string | null, fields: Item = {}) => {
    const step = await firstStep(monitor);
    const now = new Date().toISOString();
    for (let stale: string | undefined, attempt = 0; attempt < 3; attempt++) {
      const incident = {
        id: randomUUID(),
        monitor_id: monitor.id,
        monitor_name: monitor.name,
        owner_id: monitor.owner_id,
        team_id: monitor.team_id ?? null,
        title,
        message,
        severity,
        status: 'INVESTIGATING',
        acknowledged: false,
        escalation_policy_id: monitor.escalation_policy_id ?? null,
        started_at: now,
        created_at: now,
        updated_at: now,
        ...fields,
      };
      const eventId = randomUUID();
      const items: Item[] = [
        {
          Put: {
            TableName: tableName,
            Item: { ...claimKey, type: 'floor_claim', incident_id: incident.id },
            ConditionExpression: stale ? 'attribute_not_exists(pk) OR incident_id = :stale' : 'attribute_not_exists(pk)',
            ...(stale ? { ExpressionAttributeValues: { ':stale': stale } } : {}),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        { Put: { TableName: tableName, Item: { pk: `INCIDENT#${incident.id}`, sk: 'INCIDENT', type: 'floor_incident', ...incident }, ConditionExpression: 'attribute_not_exists(pk)' } },
      ];
      if (step && step.emails.length > 0) {
        items.push({
          Put: {
            TableName: tableName,
            Item: {
              pk: `FLOOROUTBOX#${eventId[0]}`,
              sk: `${now}#${eventId}`,
              type: FLOOR_OUTBOX_TYPE,
              floor: instance,
              detail: { event_id: eventId, occurred_at: now, incident: { id: incident.id, title, severity, monitor_name: monitor.name, started_at: now }, step },
              ttl: Math.floor(Date.now() / 1000) + 7 * 24 * 3600,
            },
          },
        });
      }
      if (options.with?.includes('transaction')) {
        const extra = (sk: string, fields: Item) => ({ Put: { TableName: tableName, Item: { pk: `INCIDENT#${incident.id}`, sk, type: 'floor_extra', ...fields }, ConditionExpression: 'attribute_not_exists(pk)' } });
        items.push(
          extra('STEP#01', { step_order: 1, delay_minutes: 0, emails: step?.emails ?? [], sent_at: now }),
          extra('STEP#02', { step_order: 2, delay_minutes: 30, emails: step?.emails ?? [], due_at: now }),
          extra(`UPDATE#${now}#1`, { kind: 'created', message, title }),
          extra(`UPDATE#${now}#2`, { kind: 'paged', step_order: 1, emails: step?.emails ?? [] }),
          { Update: { TableName: tableName, Key: { pk: `MONITOR#${monitor.id}`, sk: 'MONITOR' }, UpdateExpression: 'ADD incident_count :one', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':one': 1 } } },
          { Put: { TableName: tableName, Item: { pk: `FLOOROUTBOX#${eventId[1]}`, sk: `${now}#${eventId}#created`, type: 'floor_other_outbox', detail: { incident } } } },
        );
      }
      try {
        await db.send(new TransactWriteCommand({ TransactItems: items as never }));
        poller.wake();
        return { opened: true, incident_id: incident.id };
      } catch (error) {
        const reason = (error as { CancellationReasons?: { Code?: string; Item?: Record<string, AttributeValue> }[] }).CancellationReasons?.[0];
        if (reason?.Code !== 'ConditionalCheckFailed') throw error;
        const held = reason.Item ? String(unmarshall(reason.Item).incident_id) : undefined;
        if (!held) continue;
        // Off the first page's path: a claim naming a resolved incident is replaced.
        const named = await get({ pk: `INCIDENT#${held}`, sk: 'INCIDENT' });
        if (named && named.status !== 'RESOLVED') return { opened: false, incident_id: held };
        stale = held;
      }
    }
    throw new HttpError(503, 'The claim kept changing');
  };

  const check = async (body: Item) => {
    if (!body || typeof body.monitorId !== 'string' || !UUID.test(body.monitorId) || !['down', 'up'].includes(body.status) || !Number.isInteger(body.consecutiveFailures)) {
      throw new HttpError(400, 'Invalid check');
    }
    if (body.status === 'up') throw new HttpError(501, 'The floor opens incidents only');
    const monitor = await get(monitorKey(body.monitorId));
    if (!monitor) throw new HttpError(404, 'Monitor not found');
    if (body.consecutiveFailures <= Number(monitor.failure_threshold)) return { ok: true, outcome: 'below_threshold' };
    const opened = await open(monitor, { pk: `MONITOR#${monitor.id}`, sk: 'OPEN_INCIDENT' }, `${monitor.name} is down`.slice(0, 200), 'HIGH', body.message ?? null);
    return { ok: true, outcome: opened.opened ? 'incident_opened' : 'incident_already_open', incident_id: opened.incident_id };
  };

  /** A key's (immutable) monitor, once admitted. */
  const knownKeys = new Map<string, string>();
  const admit = async (keyHash: string) => {
    const window = Math.floor(Date.now() / 60_000);
    const update = (start: boolean) =>
      db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: `INTEGRATIONKEY#${keyHash}`, sk: 'INTEGRATIONKEY' },
          UpdateExpression: start ? 'SET rate_window = :window, rate_count = :one, last_event_at = :now' : 'SET last_event_at = :now ADD rate_count :one',
          ConditionExpression: start
            ? 'attribute_exists(pk) AND (attribute_not_exists(rate_window) OR rate_window < :window)'
            : 'attribute_exists(pk) AND rate_window = :window AND rate_count < :max',
          ExpressionAttributeValues: { ':window': window, ':one': 1, ':now': new Date().toISOString(), ...(start ? {} : { ':max': RATE_PER_MINUTE }) },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    for (const start of [false, true]) {
      try {
        return String((await update(start)).Attributes!.monitor_id);
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        const item = (error as { Item?: Record<string, AttributeValue> }).Item;
        if (!item) throw new HttpError(400, 'Invalid routing key');
        if (unmarshall(item).rate_window === window) throw new HttpError(429, 'Too many events');
      }
    }
    throw new HttpError(429, 'Too many events');
  };

  const enqueue = async (body: Item) => {
    if (!body || typeof body.routing_key !== 'string' || !KEY_SHAPE.test(body.routing_key)) throw new HttpError(400, 'Invalid routing key');
    if (body.event_action !== 'trigger') throw new HttpError(501, 'The floor takes triggers only');
    const summary = body.payload?.summary;
    if (typeof summary !== 'string' || !summary || typeof body.payload?.source !== 'string') throw new HttpError(400, 'Invalid event');
    const severity = ({ critical: 'CRITICAL', error: 'HIGH', warning: 'MEDIUM', info: 'LOW' } as Record<string, string>)[body.payload.severity];
    if (!severity) throw new HttpError(400, 'Invalid event');
    const dedupKey = typeof body.dedup_key === 'string' && body.dedup_key ? body.dedup_key : randomUUID();
    const keyHash = createHash('sha256').update(body.routing_key, 'utf8').digest('hex');
    const known = knownKeys.get(keyHash);
    // The key's monitor known: its read goes with the admission; else after it.
    const [monitorId, early] = await Promise.all([admit(keyHash), known ? get(monitorKey(known)) : undefined]);
    knownKeys.set(keyHash, monitorId);
    const monitor = known === monitorId ? early : await get(monitorKey(monitorId));
    if (!monitor) throw new HttpError(400, 'Invalid routing key');
    await open(monitor, { pk: `MONITOR#${monitor.id}`, sk: `ALERT#${dedupKey}` }, summary.slice(0, 200), severity, summary.length > 200 ? summary : null, { dedup_key: dedupKey, alert_count: 1 });
    return { status: 'success', message: 'Event processed', dedup_key: dedupKey };
  };

  // ----- HTTP -------------------------------------------------------------------------------------
  const answer = (response: ServerResponse, status: number, body: unknown, type = 'application/json') => {
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
    response.end(text);
  };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      let body: Item;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {
        return answer(response, 400, { message: 'Invalid JSON' });
      }
      if (request.headers['x-amz-target'] === 'AWSEvents.PutEvents') return answer(response, 200, putEvents(body.Entries ?? []), 'application/x-amz-json-1.1');
      const route = request.method === 'POST' && request.url === '/check' ? check : request.method === 'POST' && request.url === '/v2/enqueue' ? enqueue : undefined;
      if (!route) return answer(response, 404, { message: 'Not found' });
      route(body).then(
        (result) => answer(response, route === enqueue ? 202 : 200, result),
        (error: unknown) => {
          if (error instanceof HttpError) return answer(response, error.status, { message: error.message });
          console.error(error);
          answer(response, 500, { message: 'Internal error' });
        },
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  busUrl = url;
  events = leanClient(new EventBridgeClient({ endpoint: busUrl }));
  // The reader starts at the stream's oldest record: what it finds there is not this process's to page.
  await poller.open();
  while ((await poller.pollOnce()) > 0);
  live = true;
  await poller.start();
  return {
    url,
    close: async () => {
      await poller.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      events?.destroy();
      ses.destroy();
      db.destroy();
    },
  };
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const floor = await startPagePathFloor({
    tableName: process.env.TABLE_NAME!,
    sesUrl: process.env.FLOOR_SES_URL!,
    publicUrl: process.env.FLOOR_PUBLIC_URL ?? 'http://127.0.0.1',
    port: Number(process.env.FLOOR_PORT ?? 0),
    with: (process.env.FLOOR_WITH ?? '').split(',').filter((part): part is 'delivery' | 'transaction' => part === 'delivery' || part === 'transaction'),
  });
  process.on('SIGTERM', () => void floor.close().then(() => process.exit(0)));
  console.log(JSON.stringify({ port: Number(new URL(floor.url).port) }));
}
