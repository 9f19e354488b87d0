/**
 * The bench's floor server (issue 33): what a correct implementation of the incident routes minimally
 * needs, hand-written, behind a bare `node:http` server, against the service's own table (the same
 * key design, docs/data-model.md; it reads the service's items and the service can read its own).
 *
 * - The same JWT check as the local gateway (infra/local/aws/jwt.ts): RS256 against the issuer's JWKS,
 *   `iss`, `aud`, `exp`/`nbf`, a verified token remembered and only its time claims checked again;
 *   anything else `401 {"message":"Unauthorized"}`.
 * - The fewest DynamoDB calls that meet the contract (../shared/spec/interface.md) with the timeline,
 *   the outbox and the conditions: what our design chose beyond that (reading the account for a name the
 *   token carries, counting incidents on the monitor, the daily quota, the status/open/acknowledged
 *   filter indexes, the monitor index) it does not do, so the bench's ratio shows what that costs.
 *   | Route | Calls |
 *   |---|---|
 *   | GET /api/incidents/:id | 1 Query of the item collection (`sk < UPDATE#`) |
 *   | GET /api/incidents | owner index Query ∥ memberships Query (BETWEEN-shaped) — 1 round trip |
 *   | GET /api/incidents/:id/updates (first page) | 1 Query `sk BETWEEN INCIDENT AND UPDATE#￿` (the incident, its message and the page) |
 *   | POST /api/incidents | GetItem monitor; TransactWriteItems: Put incident, [Put message,] ConditionCheck monitor still the caller's, Put `created` entry, Put outbox |
 *   | PUT /api/incidents/:id | GetItem incident; TransactWriteItems: Update on `updated_at` as read, Put entry, Put outbox |
 *   | POST /api/incidents/:id/acknowledge | GetItem incident; TransactWriteItems: Update on `acknowledged = false`, Put ACK, Put entry, Put outbox |
 * - It serves callers in no team (the bench's); a caller with memberships gets 501, as the floor does not
 *   implement team scopes (the memberships Query is in it because a correct list must know there are none).
 *
 * Run as a process of its own: `node --import tsx infra/tools/floor/server.ts` with FLOOR_ISSUER,
 * FLOOR_JWKS (JSON), TABLE_NAME and the AWS SDK's environment (the runtime's: DynamoDB Local's
 * endpoint); it prints `{"port":N}` once it listens (FLOOR_PORT, 0 = any).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { newDocumentClient } from '../../../shared/platform/db/client.js';

type Item = Record<string, any>;

const STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'];
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'];
const METHODS = ['web', 'api', 'slack', 'email', 'sms'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OUTBOX_RETENTION_SECONDS = 7 * 24 * 60 * 60;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: { field: string; message: string }[],
  ) {
    super(message);
  }
}
const notFound = () => new HttpError(404, 'Incident not found');
/** 400 Validation errors, naming the field as the service does (`{field, message}`). */
const invalid = (field = 'body', message = 'Invalid value') => new HttpError(400, 'Validation errors', [{ field, message }]);

export interface FloorOptions {
  tableName: string;
  issuer: string;
  audience: string;
  jwks: JSONWebKeySet;
  client?: DynamoDBDocumentClient;
}

/** The request handler of the floor: exported so a test can serve it in-process too. */
export function floorHandler(options: FloorOptions) {
  const TableName = options.tableName;
  const client = options.client ?? newDocumentClient();
  const keySet = createLocalJWKSet(options.jwks);
  const verified = new Map<string, JWTPayload>();

  const authenticate = async (header: string | undefined): Promise<JWTPayload | undefined> => {
    const token = /^Bearer (\S+)$/i.exec(header ?? '')?.[1];
    if (!token) return undefined;
    const known = verified.get(token);
    const now = Math.floor(Date.now() / 1000);
    if (known) return known.exp! > now && !(typeof known.nbf === 'number' && known.nbf > now) ? known : undefined;
    try {
      const { payload } = await jwtVerify(token, keySet, { issuer: options.issuer, audience: options.audience, algorithms: ['RS256'], requiredClaims: ['exp'] });
      if (verified.size >= 1_000) verified.delete(verified.keys().next().value!);
      verified.set(token, payload);
      return payload;
    } catch {
      return undefined;
    }
  };

  // ----- views (the contract's shapes) -----------------------------------------------------------
  const view = (i: Item) => ({
    id: i.id,
    monitor_id: i.monitor_id,
    title: i.title,
    status: i.status,
    severity: i.severity,
    acknowledged: i.acknowledged,
    started_at: i.started_at,
    resolved_at: i.resolved_at ?? null,
    created_at: i.created_at,
  });
  const listView = (i: Item) => ({
    ...view(i),
    monitor_name: i.monitor_name,
    escalation_policy_id: i.escalation_policy_id ?? null,
    ...(i.alert_count === undefined ? {} : { alert_count: i.alert_count, last_alert_at: i.last_alert_at }),
  });
  const entryView = (e: Item) => ({
    id: e.id,
    incident_id: e.incident_id,
    kind: e.kind,
    status: e.status,
    message: e.message ?? null,
    user_id: e.user_id ?? null,
    user_name: e.user_name ?? null,
    created_at: e.created_at,
    details: e.details ?? null,
  });
  const snapshot = (i: Item, message: string | null) => ({
    id: i.id,
    monitor_id: i.monitor_id,
    monitor_name: i.monitor_name,
    owner_id: i.owner_id,
    title: i.title,
    message,
    status: i.status,
    severity: i.severity,
    automatic: i.automatic,
    acknowledged: i.acknowledged,
    started_at: i.started_at,
    resolved_at: i.resolved_at ?? null,
    escalation_policy_id: i.escalation_policy_id ?? null,
  });

  // ----- items ------------------------------------------------------------------------------
  const entryPut = (incidentId: string, at: string, kind: string, status: string, user: JWTPayload, details: Item | null, message: string | null = null) => {
    const id = randomUUID();
    return {
      Put: {
        TableName,
        Item: {
          pk: `INCIDENT#${incidentId}`,
          sk: `UPDATE#${at}#00#${id}`,
          type: 'incident_update',
          id,
          incident_id: incidentId,
          kind,
          status,
          message,
          user_id: user.sub,
          user_name: String(user.name ?? user.email ?? ''),
          created_at: at,
          details,
        },
      },
    };
  };
  /** The outbox record the publisher reads off the stream, as the service writes it (the same event detail). */
  const outboxPut = (eventType: string, at: string, payload: Item) => {
    const eventId = randomUUID();
    return {
      Put: {
        TableName,
        Item: {
          pk: `OUTBOX#${at.slice(0, 13)}#${eventId[0]}`,
          sk: `${at}#${eventId}`,
          type: 'outbox',
          event_type: eventType,
          detail: { version: 1, event_id: eventId, occurred_at: at, ...payload },
          ttl: Math.floor(Date.parse(at) / 1000) + OUTBOX_RETENTION_SECONDS,
        },
      },
    };
  };
  const writeInstant = (updatedAt: string) => new Date(Math.max(Date.now(), Date.parse(updatedAt) + 1)).toISOString();
  const cancelledOn = (error: unknown, index: number) =>
    error instanceof Error && error.name === 'TransactionCanceledException' && (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';
  const incidentKey = (id: string) => ({ pk: `INCIDENT#${id}`, sk: 'INCIDENT' });
  /** One transaction: the incident's item updated on `update`'s condition (its index 0 in a cancellation), then `items`. */
  const updateIncidentWith = (id: string, update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> }, items: Item[]) =>
    client.send(new TransactWriteCommand({ TransactItems: [{ Update: { TableName, Key: incidentKey(id), ...update } }, ...items] }));

  /** The incident item if the caller owns it (strongly consistent GetItem). */
  const ownIncident = async (id: string, sub: string) => {
    if (!UUID.test(id)) throw notFound();
    const { Item } = await client.send(new GetCommand({ TableName, Key: incidentKey(id), ConsistentRead: true }));
    if (!Item || Item.owner_id !== sub) throw notFound();
    return Item;
  };

  // ----- routes -------------------------------------------------------------------------------
  async function getIncident(sub: string, id: string) {
    if (!UUID.test(id)) throw notFound();
    const { Items = [] } = await client.send(
      new QueryCommand({ TableName, KeyConditionExpression: 'pk = :pk AND sk < :updates', ExpressionAttributeValues: { ':pk': `INCIDENT#${id}`, ':updates': 'UPDATE#' } }),
    );
    const incident = Items.find((item) => item.sk === 'INCIDENT');
    if (!incident || incident.owner_id !== sub) throw notFound();
    const ack = Items.find((item) => item.sk === 'ACK');
    const steps = Items.filter((item) => String(item.sk).startsWith('ESC#')).sort((a, b) => a.step_order - b.step_order);
    return {
      status: 200,
      body: {
        incident: {
          ...listView(incident),
          ...(ack
            ? { acknowledgement: { id: ack.id, incident_id: ack.incident_id, user_id: ack.user_id, user_name: ack.user_name, user_email: ack.user_email, method: ack.method, acknowledged_at: ack.acknowledged_at } }
            : {}),
          ...(incident.escalation_policy_id ? { escalation_steps: steps.map((step) => ({ step_order: step.step_order, delay_minutes: step.delay_minutes })) } : {}),
        },
      },
    };
  }

  const pageLimit = (query: URLSearchParams) => {
    const raw = query.get('limit');
    const limit = raw === null ? 50 : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'Must be an integer from 1 to 100');
    return limit;
  };
  const decode = (cursor: string | null) => {
    if (cursor === null) return undefined;
    try {
      return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Item;
    } catch {
      throw invalid('cursor', 'Invalid cursor');
    }
  };
  const encode = (key: Item) => Buffer.from(JSON.stringify(key)).toString('base64url');

  async function listIncidents(sub: string, query: URLSearchParams, path: string) {
    const limit = pageLimit(query);
    const after = decode(query.get('cursor'));
    const owner = `OWNER#${sub}`;
    if (after && after.gsi1pk !== owner) throw invalid('cursor', 'Invalid cursor');
    const [page, memberships] = await Promise.all([
      client.send(
        new QueryCommand({
          TableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :owner AND gsi1sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':owner': owner, ':from': 'INCIDENT#', ':to': 'INCIDENT#\uffff' },
          ScanIndexForward: false,
          Limit: limit + 1,
          ExclusiveStartKey: after,
        }),
      ),
      client.send(
        new QueryCommand({
          TableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :owner AND gsi1sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':owner': owner, ':from': 'MEMBERSHIP#', ':to': 'MEMBERSHIP#\uffff' },
          ProjectionExpression: 'pk',
          Limit: 1,
        }),
      ),
    ]);
    if (memberships.Items?.length) throw new HttpError(501, 'The floor serves callers in no team');
    const items = page.Items ?? [];
    const shown = items.slice(0, limit);
    const last = shown.at(-1);
    const next = items.length > limit && last ? encode({ pk: last.pk, sk: last.sk, gsi1pk: last.gsi1pk, gsi1sk: last.gsi1sk }) : null;
    const headers: Record<string, string> = next ? { link: `<${path}?limit=${limit}&cursor=${next}>; rel="next"` } : {};
    return { status: 200, body: { incidents: shown.map(listView), next_cursor: next }, headers };
  }

  async function listUpdates(sub: string, id: string, query: URLSearchParams, path: string) {
    if (!UUID.test(id)) throw notFound();
    const limit = pageLimit(query);
    const after = decode(query.get('cursor'));
    const pk = `INCIDENT#${id}`;
    let entries: Item[];
    if (!after) {
      // The first page: the incident (for who may see it), its message and the page, in one Query.
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ':from': 'INCIDENT', ':to': 'UPDATE#\uffff' },
          ConsistentRead: true,
          Limit: limit + 3,
        }),
      );
      const incident = Items.find((item) => item.sk === 'INCIDENT');
      if (!incident || incident.owner_id !== sub) throw notFound();
      entries = Items.filter((item) => String(item.sk).startsWith('UPDATE#'));
    } else {
      if (typeof after.sk !== 'string' || !after.sk.startsWith('UPDATE#')) throw invalid('cursor', 'Invalid cursor');
      const [, page] = await Promise.all([
        ownIncident(id, sub),
        client.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': pk, ':from': 'UPDATE#', ':to': 'UPDATE#\uffff' },
            ExclusiveStartKey: { pk, sk: after.sk },
            ConsistentRead: true,
            Limit: limit + 1,
          }),
        ),
      ]);
      entries = page.Items ?? [];
    }
    const shown = entries.slice(0, limit);
    const next = entries.length > limit ? encode({ sk: shown.at(-1)!.sk }) : null;
    const headers: Record<string, string> = next ? { link: `<${path}?limit=${limit}&cursor=${next}>; rel="next"` } : {};
    return { status: 200, body: { updates: shown.map(entryView), next_cursor: next }, headers };
  }

  const text = (field: string, value: unknown, min: number, max: number) => {
    if (typeof value !== 'string') throw invalid(field, 'Expected a string');
    const trimmed = value.trim();
    if (trimmed.length < min || trimmed.length > max) throw invalid(field, `Must be ${min}-${max} characters`);
    return trimmed;
  };
  const only = (body: unknown, allowed: string[]): Item => {
    if (body === undefined) return {};
    if (!body || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).some((key) => !allowed.includes(key))) throw invalid('body', `Only ${allowed.join(', ')}`);
    return body as Item;
  };

  async function createIncident(user: JWTPayload, body: unknown) {
    const input = only(body ?? null, ['monitorId', 'title', 'message', 'severity']);
    if (typeof input.monitorId !== 'string' || !UUID.test(input.monitorId)) throw invalid('monitorId', 'Invalid UUID');
    const title = text('title', input.title, 1, 200);
    const message = input.message === undefined || input.message === null ? null : text('message', input.message, 0, 10_000);
    const severity = input.severity ?? 'MEDIUM';
    if (!SEVERITIES.includes(severity)) throw invalid('severity', 'Invalid option');
    const sub = user.sub!;
    const { Item: monitor } = await client.send(
      new GetCommand({ TableName, Key: { pk: `MONITOR#${input.monitorId}`, sk: 'MONITOR' }, ConsistentRead: true, ProjectionExpression: '#name, owner_id', ExpressionAttributeNames: { '#name': 'name' } }),
    );
    if (!monitor || monitor.owner_id !== sub) throw new HttpError(404, 'Monitor not found');
    const now = new Date().toISOString();
    const id = randomUUID();
    const incident: Item = {
      pk: `INCIDENT#${id}`,
      sk: 'INCIDENT',
      gsi1pk: `OWNER#${sub}`,
      gsi1sk: `INCIDENT#${now}#${id}`,
      // The contract's one list filter (severity), as the owner-severity index is keyed.
      owner_severity_pk: `OWNER#${sub}#severity#${severity}`,
      type: 'incident',
      id,
      monitor_id: input.monitorId,
      monitor_name: monitor.name,
      owner_id: sub,
      title,
      status: 'INVESTIGATING',
      severity,
      acknowledged: false,
      automatic: false,
      started_at: now,
      escalation_policy_id: null,
      created_at: now,
      updated_at: now,
    };
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName, Item: incident, ConditionExpression: 'attribute_not_exists(pk)' } },
          ...(message === null ? [] : [{ Put: { TableName, Item: { pk: incident.pk, sk: 'MESSAGE', type: 'incident_message', message } } }]),
          { ConditionCheck: { TableName, Key: { pk: `MONITOR#${input.monitorId}`, sk: 'MONITOR' }, ConditionExpression: 'owner_id = :sub', ExpressionAttributeValues: { ':sub': sub } } },
          entryPut(id, now, 'created', 'INVESTIGATING', user, { automatic: false, title, severity }, message),
          outboxPut('incident.created', now, { incident: snapshot(incident, message), escalation: null }),
        ],
      }),
    );
    return { status: 201, body: { incident: view(incident) } };
  }

  async function updateIncident(user: JWTPayload, id: string, body: unknown) {
    const input = only(body, ['status', 'severity', 'title']);
    if (input.status !== undefined && !STATUSES.includes(input.status)) throw invalid('status', 'Invalid option');
    if (input.severity !== undefined && !SEVERITIES.includes(input.severity)) throw invalid('severity', 'Invalid option');
    const title = input.title === undefined ? undefined : text('title', input.title, 1, 200);
    if (input.status === undefined && input.severity === undefined && title === undefined) throw new HttpError(400, 'No updates provided');
    for (let attempt = 1; attempt <= 5; attempt++) {
      const current = await ownIncident(id, user.sub!);
      const now = writeInstant(current.updated_at);
      const status = input.status ?? current.status;
      const next: Item = {
        ...current,
        status,
        severity: input.severity ?? current.severity,
        title: title ?? current.title,
        resolved_at: status === 'RESOLVED' ? (current.resolved_at ?? now) : undefined,
        updated_at: now,
      };
      const changes: Item = {};
      for (const field of ['status', 'severity', 'title'] as const) {
        if (next[field] !== current[field] && !(field === 'status' && status === 'RESOLVED')) changes[field] = { from: current[field], to: next[field] };
      }
      const statusChanged = status !== current.status;
      const items: Item[] = [];
      if (statusChanged) {
        const resolved = status === 'RESOLVED';
        items.push(entryPut(id, now, resolved ? 'resolved' : 'status_changed', status, user, resolved ? { previous_status: current.status, by: 'user' } : { previous_status: current.status }));
        items.push(outboxPut(resolved ? 'incident.resolved' : 'incident.status_changed', now, { incident: snapshot(next, null), previous_status: current.status }));
      }
      const edits = Object.fromEntries(Object.entries(changes).filter(([field]) => field !== 'status'));
      if (Object.keys(edits).length) items.push(entryPut(id, now, 'updated', status, user, { changes: edits }));
      if (Object.keys(changes).length) items.push(outboxPut('incident.updated', now, { incident: snapshot(next, null), changes }));
      const set = ['#status = :status', 'severity = :severity', 'title = :title', 'updated_at = :now', 'owner_severity_pk = :severity_pk'];
      if (next.resolved_at) set.push('resolved_at = :resolved_at');
      try {
        await updateIncidentWith(
          id,
          {
            UpdateExpression: `SET ${set.join(', ')}${next.resolved_at ? '' : ' REMOVE resolved_at'}`,
            ConditionExpression: 'updated_at = :was',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':status': status,
              ':severity': next.severity,
              ':title': next.title,
              ':now': now,
              ':was': current.updated_at,
              ':severity_pk': `OWNER#${user.sub}#severity#${next.severity}`,
              ...(next.resolved_at ? { ':resolved_at': next.resolved_at } : {}),
            },
          },
          items,
        );
        return { status: 200, body: { incident: view(next) } };
      } catch (error) {
        if (!cancelledOn(error, 0)) throw error;
      }
    }
    throw new Error(`incident ${id} kept changing`);
  }

  async function acknowledge(user: JWTPayload, id: string, body: unknown) {
    const input = only(body, ['method']);
    const method = input.method ?? 'web';
    if (!METHODS.includes(method)) throw invalid('method', 'Invalid option');
    const current = await ownIncident(id, user.sub!);
    if (current.acknowledged) throw new HttpError(400, 'Incident already acknowledged');
    const now = writeInstant(current.updated_at);
    const acknowledged = { ...current, acknowledged: true, updated_at: now };
    const userName = String(user.name ?? user.email ?? '');
    const record = { id: randomUUID(), incident_id: id, user_id: user.sub!, user_name: userName, user_email: String(user.email ?? ''), method, acknowledged_at: now };
    try {
      await updateIncidentWith(
        id,
        {
          UpdateExpression: 'SET acknowledged = :true, updated_at = :now',
          ConditionExpression: 'acknowledged = :false AND owner_id = :sub',
          ExpressionAttributeValues: { ':true': true, ':false': false, ':now': now, ':sub': user.sub },
        },
        [
          { Put: { TableName, Item: { pk: `INCIDENT#${id}`, sk: 'ACK', type: 'acknowledgement', ...record }, ConditionExpression: 'attribute_not_exists(pk)' } },
          entryPut(id, now, 'acknowledged', current.status, user, { method, user_email: record.user_email }),
          outboxPut('incident.acknowledged', now, { incident: snapshot(acknowledged, null), acknowledgement: { user_id: record.user_id, user_name: userName, method, acknowledged_at: now } }),
        ],
      );
    } catch (error) {
      if (cancelledOn(error, 0) || cancelledOn(error, 1)) throw new HttpError(400, 'Incident already acknowledged');
      throw error;
    }
    return { status: 200, body: { incident: view(acknowledged) } };
  }

  const route = async (method: string, path: string, query: URLSearchParams, user: JWTPayload, body: unknown): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> => {
    const parts = path.split('/').filter(Boolean); // api, incidents, :id, …
    if (parts[0] !== 'api' || parts[1] !== 'incidents') return { status: 404, body: { message: 'Not Found' } };
    const [, , id, sub] = parts;
    if (id === undefined) {
      if (method === 'GET') return listIncidents(user.sub!, query, path);
      if (method === 'POST') return createIncident(user, body);
    } else if (sub === undefined) {
      if (method === 'GET') return getIncident(user.sub!, id);
      if (method === 'PUT') return updateIncident(user, id, body);
    } else if (sub === 'updates' && method === 'GET' && parts.length === 4) return listUpdates(user.sub!, id, query, path);
    else if (sub === 'acknowledge' && method === 'POST' && parts.length === 4) return acknowledge(user, id, body);
    return { status: 404, body: { message: 'Not Found' } };
  };

  return async (request: IncomingMessage, response: ServerResponse) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
      response.end(text);
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const user = await authenticate(request.headers.authorization);
      if (!user?.sub) return send(401, { message: 'Unauthorized' });
      let body: unknown;
      if (chunks.length) {
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return send(400, { error: 'Validation errors', details: [{ field: 'body', message: 'Malformed JSON' }] });
        }
      }
      const url = new URL(request.url ?? '/', 'http://floor');
      const answer = await route(request.method ?? 'GET', url.pathname, url.searchParams, user, body);
      send(answer.status, answer.body, answer.headers);
    } catch (error) {
      if (error instanceof HttpError) return send(error.status, { error: error.message, ...(error.details ? { details: error.details } : {}) });
      console.error('floor failure', error);
      send(500, { error: 'Internal Server Error' });
    }
  };
}

/** Starts the floor on `port` (0: any free one); answers where it listens. */
export async function startFloorServer(options: FloorOptions & { port?: number }) {
  const server = createServer(floorHandler(options));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const floor = await startFloorServer({
    tableName: process.env.TABLE_NAME!,
    issuer: process.env.FLOOR_ISSUER!,
    audience: process.env.FLOOR_AUDIENCE ?? 'incident-service',
    jwks: JSON.parse(process.env.FLOOR_JWKS!) as JSONWebKeySet,
    port: Number(process.env.FLOOR_PORT ?? 0),
  });
  console.log(JSON.stringify({ port: Number(new URL(floor.url).port) }));
  process.on('SIGTERM', () => void floor.close().then(() => process.exit(0)));
}
