/**
 * The bench's one floor (issues 33, 42): what a correct implementation minimally needs, hand-written behind a
 * bare `node:http` server in a process of its own, against the service's own table and key design (it reads
 * the service's items, and the service reads what it writes: test/http/bench-floor.test.ts). What our design
 * chose beyond the minimum it does not do, so the bench's ratio shows what that choice costs; each route's
 * calls, and the service's beyond them, are docs/performance.md's first table.
 * - The incident routes (`/api/incidents…`) behind the local gateway's JWT check (RS256 against the issuer's
 *   JWKS, `iss`, `aud`, `exp`/`nbf`, a verified token remembered), for callers in no team (501 otherwise: the
 *   memberships Query is in the list because a correct list must know there are none).
 * - The page path, trigger (`POST /check`, the monitor-check payload; `POST /v2/enqueue`, Events API v2) →
 *   reads → one transaction (the claim on its absence, the incident, an outbox record with step 1's addresses
 *   and people) → the runtime's own stream reader (`StreamPoller`, woken by the write, started before the
 *   first page) → PutEvents to a bus in this process → a notifier that admits each page to an outside address
 *   (not stopped by it for the sending account, within the account's daily quotas: one TransactWriteItems)
 *   and sends it (an acknowledge link and a stop link signed with a key: no record) through the runtime's SES
 *   API; and pages each person by their rules: one Query of their items (the account, contact methods, rules
 *   and reply codes), their rules at once for the incident's urgency on verified, enabled methods (none: their
 *   account's address), an SMS with their reply code (the lowest free, one conditional write with the short
 *   link's record and its `notification` timeline entry, which the send's context names for the receipt)
 *   through the runtime's End User Messaging API. A refused claim answers the incident it names; a claim naming a
 *   resolved incident is replaced on the condition that it still names it. Not paged: schedules, people of a
 *   team's policy (501), voice, rules with a delay (the floor schedules nothing).
 *   `with` adds a guarantee of the design, to measure its cost: `delivery` (exactly-once pages: the pending
 *   delivery record with the link's record before the send, marked sent after), `transaction` (the atomic
 *   timeline: the steps, the monitor's count, the entries and a second event in the opening transaction).
 * - A repeat trigger of an open incident (the key's monitor and the dedup key's incident known from earlier
 *   requests, as a warm instance knows them; the write verifies the hint): ONE TransactWriteItems of two
 *   Updates, the key counted in its rate window (120 a minute, fixed windows; a new window started by a second
 *   transaction) and the incident's `alert_count` on the condition that it is open, of this monitor and
 *   dedup key. Not one UpdateItem (the rate is per key, the count per incident), not two writes (a refused
 *   event must not count, nor a count land on an incident resolved meanwhile), no read first.
 *
 * Run as a process: `node --import tsx infra/tools/floor.ts` with TABLE_NAME, FLOOR_ISSUER, FLOOR_AUDIENCE,
 * FLOOR_JWKS (JSON), FLOOR_AWS_URL, FLOOR_PUBLIC_URL, FLOOR_WITH and the AWS SDK's environment; it prints
 * `{"port":N}` once it listens (FLOOR_PORT, 0 = any).
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PinpointSMSVoiceV2Client, SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { BatchGetCommand, GetCommand, paginateQuery, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { leanClient } from '../../shared/platform/aws-client.js';
import { newDocumentClient } from '../../shared/platform/db/client.js';
import { maskPhone } from '../../shared/channels/phone.js';
import { pageSms } from '../../shared/notifications/texts.js';
import { LOCAL_ORIGINATION_NUMBER, LOCAL_SMS_CONFIGURATION_SET } from '../local/aws/phones.js';
import { StreamPoller } from '../local/aws/stream.js';

type Item = Record<string, any>;

const STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'];
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'];
const METHODS = ['web', 'api', 'slack', 'email', 'sms'];
const ALERT_SEVERITIES: Record<string, string> = { critical: 'CRITICAL', error: 'HIGH', warning: 'MEDIUM', info: 'LOW' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY_SHAPE = /^[a-z0-9]{32}$/;
const OUTBOX_RETENTION_SECONDS = 7 * 24 * 60 * 60;
const RATE_PER_MINUTE = 120;
/** The floor's page outbox records: a type of their own, so the service's publisher leaves them be. */
const FLOOR_OUTBOX_TYPE = 'floor_page_outbox';
const DETAIL_TYPE = 'floor.page';
/** Key of this process's signed acknowledge links. */
const LINK_KEY = randomBytes(32);

class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly details?: { field: string; message: string }[]) {
    super(message);
  }
}
const notFound = () => new HttpError(404, 'Incident not found');
/** 400 Validation errors, naming the field as the service does (`{field, message}`). */
const invalid = (field = 'body', message = 'Invalid value') => new HttpError(400, 'Validation errors', [{ field, message }]);
const cancelledOn = (error: unknown, index: number) =>
  (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';

export interface FloorOptions {
  tableName: string;
  issuer: string;
  audience: string;
  jwks: JSONWebKeySet;
  /** The AWS APIs pages are sent through (the runtime's SES in front of the local mailbox, End User Messaging in front of the phone inbox), and where the acknowledge link points. */
  awsUrl: string;
  publicUrl: string;
  port?: number;
  with?: ('delivery' | 'transaction')[];
}

export async function startFloor(options: FloorOptions): Promise<{ url: string; close(): Promise<void> }> {
  const TableName = options.tableName;
  const db = newDocumentClient();
  const ses = leanClient(new SESClient({ endpoint: options.awsUrl }));
  const phones = leanClient(new PinpointSMSVoiceV2Client({ endpoint: options.awsUrl }));
  let events: EventBridgeClient | undefined;
  const keySet = createLocalJWKSet(options.jwks);
  const verified = new Map<string, JWTPayload>();
  /** This process's records: another floor reading the same stream (a variant) leaves them be. */
  const instance = randomUUID();

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

  // ----- the incident routes: views (the contract's shapes) and items -----------------------------
  /** The fields of an item, absent ones null. */
  const pick = (item: Item, fields: string) => Object.fromEntries(fields.split(' ').map((field) => [field, item[field] ?? null]));
  // Urgency is stored at open (the monitor's, or its severity's); an incident from before has its severity's.
  const urgencyOf = (severity: string) => (severity === 'CRITICAL' || severity === 'HIGH' ? 'high' : 'low');
  const view = (i: Item) => ({
    ...pick(i, 'id monitor_id title status severity acknowledged started_at resolved_at created_at'),
    urgency: i.urgency ?? urgencyOf(String(i.severity)),
    in_maintenance: i.in_maintenance === true,
  });
  const listView = (i: Item) => ({ ...view(i), ...pick(i, 'monitor_name escalation_policy_id'), ...(i.alert_count === undefined ? {} : pick(i, 'alert_count last_alert_at')) });
  const entryView = (e: Item) => pick(e, 'id incident_id kind status message user_id user_name created_at details');
  const snapshot = (i: Item, message: string | null) => ({ ...pick(i, 'id monitor_id monitor_name owner_id title status severity automatic acknowledged started_at resolved_at escalation_policy_id'), message });
  const entryPut = (incidentId: string, at: string, kind: string, status: string, user: JWTPayload | null, details: Item | null, message: string | null = null) => {
    const id = randomUUID();
    const item = { pk: `INCIDENT#${incidentId}`, sk: `UPDATE#${at}#00#${id}`, type: 'incident_update', id, incident_id: incidentId, kind, status, message };
    return { Put: { TableName, Item: { ...item, user_id: user?.sub ?? null, user_name: user ? String(user.name ?? user.email ?? '') : null, created_at: at, details } } };
  };
  /** The outbox record the publisher reads off the stream, as the service writes it (the same event detail). */
  const outboxPut = (eventType: string, at: string, payload: Item) => {
    const eventId = randomUUID();
    const detail = { version: 1, event_id: eventId, occurred_at: at, ...payload };
    const ttl = Math.floor(Date.parse(at) / 1000) + OUTBOX_RETENTION_SECONDS;
    return { Put: { TableName, Item: { pk: `OUTBOX#${at.slice(0, 13)}#${eventId[0]}`, sk: `${at}#${eventId}`, type: 'outbox', event_type: eventType, detail, ttl } } };
  };
  const writeInstant = (updatedAt: string) => new Date(Math.max(Date.now(), Date.parse(updatedAt) + 1)).toISOString();
  const incidentKey = (id: string) => ({ pk: `INCIDENT#${id}`, sk: 'INCIDENT' });
  /** One transaction: the incident's item updated on `update`'s condition (its index 0 in a cancellation), then `items`. */
  const updateIncidentWith = (id: string, update: Item, items: Item[]) => db.send(new TransactWriteCommand({ TransactItems: [{ Update: { TableName, Key: incidentKey(id), ...update } }, ...items] as never }));
  /** The incident item if the caller owns it (strongly consistent GetItem). */
  const ownIncident = async (id: string, sub: string) => {
    if (!UUID.test(id)) throw notFound();
    const { Item } = await db.send(new GetCommand({ TableName, Key: incidentKey(id), ConsistentRead: true }));
    if (!Item || Item.owner_id !== sub) throw notFound();
    return Item;
  };

  async function getIncident(sub: string, id: string) {
    if (!UUID.test(id)) throw notFound();
    const { Items = [] } = await db.send(new QueryCommand({ TableName, KeyConditionExpression: 'pk = :pk AND sk < :updates', ExpressionAttributeValues: { ':pk': `INCIDENT#${id}`, ':updates': 'UPDATE#' } }));
    const incident = Items.find((item) => item.sk === 'INCIDENT');
    if (!incident || incident.owner_id !== sub) throw notFound();
    const ack = Items.find((item) => item.sk === 'ACK');
    const steps = Items.filter((item) => String(item.sk).startsWith('ESC#')).sort((a, b) => a.step_order - b.step_order);
    const acknowledgement = ack ? { acknowledgement: pick(ack, 'id incident_id user_id user_name user_email method acknowledged_at') } : {};
    const escalation = incident.escalation_policy_id ? { escalation_steps: steps.map((step) => pick(step, 'step_order delay_minutes')) } : {};
    return { status: 200, body: { incident: { ...listView(incident), ...acknowledgement, ...escalation } } };
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
  const page = (path: string, limit: number, next: string | null): Record<string, string> => (next ? { link: `<${path}?limit=${limit}&cursor=${next}>; rel="next"` } : {});
  const ownerRange = (owner: string, prefix: string, extra: Item) =>
    db.send(new QueryCommand({ TableName, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :owner AND gsi1sk BETWEEN :from AND :to', ExpressionAttributeValues: { ':owner': owner, ':from': prefix, ':to': `${prefix}\uffff` }, ...extra }));

  async function listIncidents(sub: string, query: URLSearchParams, path: string) {
    const limit = pageLimit(query);
    const after = decode(query.get('cursor'));
    const owner = `OWNER#${sub}`;
    if (after && after.gsi1pk !== owner) throw invalid('cursor', 'Invalid cursor');
    const [found, memberships] = await Promise.all([
      ownerRange(owner, 'INCIDENT#', { ScanIndexForward: false, Limit: limit + 1, ExclusiveStartKey: after }),
      ownerRange(owner, 'MEMBERSHIP#', { ProjectionExpression: 'pk', Limit: 1 }),
    ]);
    if (memberships.Items?.length) throw new HttpError(501, 'The floor serves callers in no team');
    const items = found.Items ?? [];
    const shown = items.slice(0, limit);
    const last = shown.at(-1);
    const next = items.length > limit && last ? encode({ pk: last.pk, sk: last.sk, gsi1pk: last.gsi1pk, gsi1sk: last.gsi1sk }) : null;
    return { status: 200, body: { incidents: shown.map(listView), next_cursor: next }, headers: page(path, limit, next) };
  }

  async function listUpdates(sub: string, id: string, query: URLSearchParams, path: string) {
    if (!UUID.test(id)) throw notFound();
    const limit = pageLimit(query);
    const after = decode(query.get('cursor'));
    const pk = `INCIDENT#${id}`;
    const range = (from: string, extra: Item) =>
      db.send(new QueryCommand({ TableName, KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to', ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': 'UPDATE#\uffff' }, ConsistentRead: true, ...extra }));
    let entries: Item[];
    if (!after) {
      // The first page: the incident (for who may see it), its message and the page, in one Query.
      const { Items = [] } = await range('INCIDENT', { Limit: limit + 3 });
      const incident = Items.find((item) => item.sk === 'INCIDENT');
      if (!incident || incident.owner_id !== sub) throw notFound();
      entries = Items.filter((item) => String(item.sk).startsWith('UPDATE#'));
    } else {
      if (typeof after.sk !== 'string' || !after.sk.startsWith('UPDATE#')) throw invalid('cursor', 'Invalid cursor');
      const [, found] = await Promise.all([ownIncident(id, sub), range('UPDATE#', { ExclusiveStartKey: { pk, sk: after.sk }, Limit: limit + 1 })]);
      entries = found.Items ?? [];
    }
    const shown = entries.slice(0, limit);
    const next = entries.length > limit ? encode({ sk: shown.at(-1)!.sk }) : null;
    return { status: 200, body: { updates: shown.map(entryView), next_cursor: next }, headers: page(path, limit, next) };
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
    const monitorKey = { pk: `MONITOR#${input.monitorId}`, sk: 'MONITOR' };
    const { Item: monitor } = await db.send(new GetCommand({ TableName, Key: monitorKey, ConsistentRead: true, ProjectionExpression: '#name, owner_id', ExpressionAttributeNames: { '#name': 'name' } }));
    if (!monitor || monitor.owner_id !== sub) throw new HttpError(404, 'Monitor not found');
    const now = new Date().toISOString();
    const id = randomUUID();
    const incident: Item = {
      ...incidentKey(id),
      gsi1pk: `OWNER#${sub}`,
      gsi1sk: `INCIDENT#${now}#${id}`,
      // The contract's one list filter (severity), as the owner-severity index is keyed.
      owner_severity_pk: `OWNER#${sub}#severity#${severity}`,
      ...{ type: 'incident', id, monitor_id: input.monitorId, monitor_name: monitor.name, owner_id: sub, title, status: 'INVESTIGATING', severity, urgency: monitor.urgency ?? urgencyOf(severity) },
      ...{ acknowledged: false, automatic: false, started_at: now, escalation_policy_id: null, created_at: now, updated_at: now },
    };
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName, Item: incident, ConditionExpression: 'attribute_not_exists(pk)' } },
          ...(message === null ? [] : [{ Put: { TableName, Item: { pk: incident.pk, sk: 'MESSAGE', type: 'incident_message', message } } }]),
          { ConditionCheck: { TableName, Key: monitorKey, ConditionExpression: 'owner_id = :sub', ExpressionAttributeValues: { ':sub': sub } } },
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
      const resolvedAt = status === 'RESOLVED' ? (current.resolved_at ?? now) : undefined;
      const next: Item = { ...current, status, severity: input.severity ?? current.severity, title: title ?? current.title, resolved_at: resolvedAt, updated_at: now };
      const changes: Item = {};
      for (const field of ['status', 'severity', 'title'] as const) {
        if (next[field] !== current[field] && !(field === 'status' && status === 'RESOLVED')) changes[field] = { from: current[field], to: next[field] };
      }
      const items: Item[] = [];
      if (status !== current.status) {
        const resolved = status === 'RESOLVED';
        items.push(entryPut(id, now, resolved ? 'resolved' : 'status_changed', status, user, resolved ? { previous_status: current.status, by: 'user' } : { previous_status: current.status }));
        items.push(outboxPut(resolved ? 'incident.resolved' : 'incident.status_changed', now, { incident: snapshot(next, null), previous_status: current.status }));
      }
      const edits = Object.fromEntries(Object.entries(changes).filter(([field]) => field !== 'status'));
      if (Object.keys(edits).length) items.push(entryPut(id, now, 'updated', status, user, { changes: edits }));
      if (Object.keys(changes).length) items.push(outboxPut('incident.updated', now, { incident: snapshot(next, null), changes }));
      const set = ['#status = :status', 'severity = :severity', 'title = :title', 'updated_at = :now', 'owner_severity_pk = :severity_pk', ...(resolvedAt ? ['resolved_at = :resolved_at'] : [])];
      const values = { ':status': status, ':severity': next.severity, ':title': next.title, ':now': now, ':was': current.updated_at, ':severity_pk': `OWNER#${user.sub}#severity#${next.severity}` };
      try {
        await updateIncidentWith(
          id,
          {
            UpdateExpression: `SET ${set.join(', ')}${resolvedAt ? '' : ' REMOVE resolved_at'}`,
            ConditionExpression: 'updated_at = :was',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ...values, ...(resolvedAt ? { ':resolved_at': resolvedAt } : {}) },
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
    const method = only(body, ['method']).method ?? 'web';
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
        { UpdateExpression: 'SET acknowledged = :true, updated_at = :now', ConditionExpression: 'acknowledged = :false AND owner_id = :sub', ExpressionAttributeValues: { ':true': true, ':false': false, ':now': now, ':sub': user.sub } },
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
    const [, resource, id, sub] = parts;
    if (resource !== 'incidents') return { status: 404, body: { message: 'Not Found' } };
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

  // ----- the page path: the notifier, the bus, the publisher ---------------------------------------
  /** A page to an outside address (all the floor pages) goes if the address has not stopped the account (the service's item) and within the account's day (25 addresses, 250 pages): one transaction; withheld: recorded, not sent. */
  const admitted = async (incident: Item, to: string) => {
    const [address, now] = [to.toLowerCase(), new Date()];
    const quota = {
      UpdateExpression: 'SET #type = :type, #ttl = :ttl ADD addresses :address, pages :one',
      ConditionExpression: '(attribute_not_exists(pages) OR pages < :pages) AND (attribute_not_exists(addresses) OR contains(addresses, :to) OR size(addresses) < :addresses)',
      ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':type': 'floor_quota', ':ttl': Math.floor(now.getTime() / 1000) + 3 * 86_400, ':address': new Set([address]), ':to': address, ':one': 1, ':pages': 250, ':addresses': 25 },
    };
    const stopped = { TableName, Key: { pk: `PAGESTOP#${incident.owner_id}#${address}`, sk: 'PAGESTOP' }, ConditionExpression: 'attribute_not_exists(pk)' };
    try {
      await db.send(new TransactWriteCommand({ TransactItems: [{ ConditionCheck: stopped }, { Update: { TableName, Key: { pk: `QUOTA#${incident.owner_id}`, sk: `floor_outside#${now.toISOString().slice(0, 10)}` }, ...quota } }] }));
      return true;
    } catch (error) {
      if ((error as Error).name !== 'TransactionCanceledException') throw error;
      await db.send(new PutCommand({ TableName, Item: { pk: `INCIDENT#${incident.id}`, sk: `FLOORWITHHELD#${address}`, type: 'floor_withheld', at: now.toISOString() } }));
      return false;
    }
  };

  const signed = (path: string, claims: string) => `${options.publicUrl}/floor/${path}/${claims}.${createHmac('sha256', LINK_KEY).update(claims).digest('base64url')}`;
  /** Sends a page (`send`), with the `delivery` guarantee when measured: the pending record (with the link's record) before, marked sent after. */
  const delivered = async <T>(detail: Item, recipient: string, link: Item | undefined, send: () => Promise<T>): Promise<T> => {
    const delivery = { pk: `DELIVERY#${detail.event_id}`, sk: `TO#${recipient}` };
    if (!options.with?.includes('delivery')) return send();
    const record = { ...delivery, type: 'floor_delivery', state: 'pending', attempt: randomUUID(), lease_until: new Date(Date.now() + 60_000).toISOString() };
    await db.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName, Item: record, ConditionExpression: 'attribute_not_exists(pk)' } }, ...(link ? [link] : [])] as never }));
    const sent = await send();
    await db.send(new UpdateCommand({ TableName, Key: delivery, UpdateExpression: 'SET #state = :sent REMOVE lease_until', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':sent': 'sent' } }));
    return sent;
  };
  /** A page e-mail to `to`, its acknowledge link signed for `recipient` (a person's id, or the address); an outside address's with a stop link, once admitted. */
  const email = async (detail: Item, to: string, recipient = Buffer.from(to).toString('base64url'), outside = true) => {
    const { incident, step } = detail;
    const expires = Date.now() + 24 * 3_600_000;
    const link = signed('acknowledge', `${incident.id}.${step.step_order}.${recipient}.${expires}`);
    if (outside && !(await admitted(incident, to))) return;
    const stop = outside ? `Stop paging this address: ${signed('stop-paging', `${incident.owner_id}.${Buffer.from(to.toLowerCase()).toString('base64url')}.${expires}`)}\n` : '';
    const subject = `[${incident.severity}] ${incident.title} — you are paged (step ${step.step_order})`;
    const body = `${incident.title}\nMonitor: ${incident.monitor_name}\nSeverity: ${incident.severity}\nStarted: ${incident.started_at}\nIncident: ${incident.id}\n\nAcknowledge: ${link}\n${stop}`;
    const linkRecord = { Put: { TableName, Item: { pk: `FLOORLINK#${createHash('sha256').update(link).digest('hex')}`, sk: 'LINK', type: 'floor_link', incident_id: incident.id, recipient: to, expires_at: new Date(expires).toISOString() } } };
    const message = { Subject: { Data: subject, Charset: 'UTF-8' }, Body: { Text: { Data: body, Charset: 'UTF-8' } } };
    await delivered(detail, to, linkRecord, () => ses.send(new SendEmailCommand({ Source: 'pages@floor.example', Destination: { ToAddresses: [to] }, Message: message })));
  };

  /** A person's items: the account, contact methods, rules (`CM` … `PROFILE`) and reply codes (`REPLY#`), one consistent Query. */
  const personItems = async (userId: string) => {
    const items: Item[] = [];
    const query = { TableName, KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to', ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':from': 'CM', ':to': 'REPLY#\uffff' }, ConsistentRead: true };
    for await (const page of paginateQuery({ client: db }, query)) items.push(...(page.Items ?? []));
    return items;
  };
  /** Of these incidents, those not resolved (one unread is taken for open: its code is not given away). */
  const openOf = async (ids: string[]) => {
    const open = new Set<string>();
    for (let start = 0; start < ids.length; start += 100) {
      const found = await db.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: ids.slice(start, start + 100).map(incidentKey), ProjectionExpression: 'id, #status', ExpressionAttributeNames: { '#status': 'status' } } } }));
      for (const item of found.Responses?.[TableName] ?? []) if (item.status !== 'RESOLVED') open.add(String(item.id));
      for (const key of found.UnprocessedKeys?.[TableName]?.Keys ?? []) open.add(String(key.pk).slice('INCIDENT#'.length));
    }
    return open;
  };
  /** The person's reply code for the incident: the one naming it, else the lowest free (never given, or naming an incident no longer open), taken by one conditional write with `records`; a lost race reads again. */
  const replyCode = async (userId: string, incidentId: string, items: Item[], records: Item[]) => {
    for (let attempt = 0; attempt < 5; attempt++, items = await personItems(userId)) {
      const codes = new Map(items.filter((item) => String(item.sk).startsWith('REPLY#')).map((item) => [Number(String(item.sk).slice(6)), String(item.incident_id)]));
      const own = [...codes].find(([, id]) => id === incidentId)?.[0];
      if (own !== undefined) return (await db.send(new TransactWriteCommand({ TransactItems: records as never })), own);
      const open = codes.size ? await openOf([...new Set(codes.values())]) : new Set<string>();
      let code = 1;
      while (codes.has(code) && open.has(codes.get(code)!)) code++;
      const previous = codes.get(code);
      const held = previous === undefined ? { ConditionExpression: 'attribute_not_exists(pk)' } : { ConditionExpression: 'incident_id = :previous', ExpressionAttributeValues: { ':previous': previous } };
      const item = { pk: `USER#${userId}`, sk: `REPLY#${code}`, type: 'reply_code', user_id: userId, incident_id: incidentId, allocated_at: new Date().toISOString() };
      try {
        return (await db.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName, Item: item, ...held } }, ...records] as never })), code);
      } catch (error) {
        if (!cancelledOn(error, 0)) throw error;
      }
    }
    throw new Error(`the reply codes of ${userId} kept changing`);
  };
  /**
   * A page SMS: `[N] …` with the person's code and a short link (a random token). The link's record and the
   * `notification` entry are written with the code, before the send: a receipt can come before the send's
   * answer (locally it does), and the send's context names the entry, so the receipt finds it; a failed send
   * marks it failed.
   */
  const sms = async (detail: Item, person: Item, to: string, items: Item[]) => {
    const { incident, step } = detail;
    const token = randomBytes(32).toString('base64url');
    const expires = new Date(Date.now() + 24 * 3_600_000);
    const link = { Put: { TableName, Item: { pk: `FLOORLINK#${createHash('sha256').update(token).digest('hex')}`, sk: 'LINK', type: 'floor_link', incident_id: incident.id, user_id: person.id, recipient: to, expires_at: expires.toISOString(), ttl: Math.floor(expires.getTime() / 1000) } } };
    const details = { channel: 'sms', address: maskPhone(to), user_id: person.id, user_name: person.name, status: 'sent', step_order: step.step_order };
    const entry = entryPut(incident.id, new Date().toISOString(), 'notification', 'INVESTIGATING', null, details);
    const code = await replyCode(String(person.id), incident.id, items, [link, entry]);
    const text = pageSms({ code, severity: incident.severity, title: incident.title, monitorName: incident.monitor_name, acknowledgeUrl: `${options.publicUrl}/floor/acknowledge/${token}` });
    const key = { pk: entry.Put.Item.pk, sk: entry.Put.Item.sk };
    const send = new SendTextMessageCommand({ DestinationPhoneNumber: to, OriginationIdentity: LOCAL_ORIGINATION_NUMBER, ConfigurationSetName: LOCAL_SMS_CONFIGURATION_SET, MessageBody: text, MessageType: 'TRANSACTIONAL', MaxPrice: '0.10', Context: { incident: incident.id, entry: key.sk } });
    await delivered(detail, `sms:${to}`, undefined, () => phones.send(send)).catch(async (error: unknown) => {
      await db.send(new UpdateCommand({ TableName, Key: key, UpdateExpression: 'SET details.#status = :failed', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':failed': 'failed' } }));
      throw error;
    });
  };
  /** A person (of a personal policy: any account) paged by their rules due at once for the incident's urgency; none usable: their account's address. */
  const pagePerson = async (detail: Item, userId: string) => {
    const items = await personItems(userId);
    const person = items.find((item) => item.sk === 'PROFILE');
    if (!person) return;
    const methods = new Map(items.filter((item) => item.type === 'contact_method').map((item) => [item.id, item]));
    // Unwritten (no counter), the rules are the defaults: the account's address at once, as the fallback.
    const usable = items.some((item) => item.sk === 'CM-COUNT')
      ? items.flatMap((rule) => {
          const method = methods.get(rule.contact_method_id);
          return rule.type === 'notification_rule' && rule.urgency === detail.incident.urgency && method?.verified && !method.disabled && ['email', 'sms'].includes(method.method_type) ? [{ rule, method }] : [];
        })
      : [];
    if (usable.length === 0) return email(detail, String(person.email), String(person.id), false);
    await Promise.all(usable.filter(({ rule }) => rule.delay_minutes === 0).map(({ method }) => (method.method_type === 'sms' ? sms(detail, person, method.address, items) : email(detail, method.address, String(person.id), false))));
  };

  const notify = async (detail: Item) => {
    await Promise.all([...(detail.step.emails as string[]).map((to) => email(detail, to)), ...((detail.step.people ?? []) as string[]).map((userId) => pagePerson(detail, userId))]);
  };

  /** PutEvents answered as the local bus answers it: an event per entry, delivered asynchronously (retried on failure). */
  const putEvents = (entries: { Source?: string; DetailType?: string; Detail?: string }[]) => ({
    FailedEntryCount: 0,
    Entries: entries.map((entry) => {
      if (entry.DetailType === DETAIL_TYPE) {
        const detail = JSON.parse(entry.Detail ?? '{}');
        const attempt = (left: number): void =>
          void notify(detail).catch((error: unknown) => {
            if (left > 1) setTimeout(() => attempt(left - 1), 100);
            else console.error(`floor notifier: ${String(error)}`);
          });
        setImmediate(() => attempt(3));
      }
      return { EventId: randomUUID() };
    }),
  });

  const poller = new StreamPoller({
    tableName: TableName,
    filter: { eventNames: ['INSERT'], itemTypes: [FLOOR_OUTBOX_TYPE] },
    handle: async (event) => {
      const entries = event.Records.filter((record) => record.dynamodb?.NewImage?.floor?.S === instance).map((record) => {
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
  /**
   * The publisher, started before the floor's first page: the reader starts at the stream's oldest record,
   * and reads to its end first (what is there is not this process's to page). Not before it: the incident
   * routes' rows run without a stream reader beside them.
   */
  let publishing: Promise<void> | undefined;
  const publisher = () =>
    (publishing ??= (async () => {
      await poller.open();
      while ((await poller.pollOnce()) > 0);
      await poller.start();
    })());

  // ----- the page path: the trigger, its reads and its one transaction ----------------------------
  const get = async (key: Item) => (await db.send(new GetCommand({ TableName, Key: key }))).Item;
  const monitorKey = (monitorId: string) => ({ pk: `MONITOR#${monitorId}`, sk: 'MONITOR' });

  /** Step 1's addresses and people, from the monitor's policy (none without one). */
  const firstStep = async (monitor: Item): Promise<{ step_order: number; emails: string[]; people: string[] } | undefined> => {
    if (!monitor.escalation_policy_id) return undefined;
    const policy = await get({ pk: `POLICY#${monitor.escalation_policy_id}`, sk: 'POLICY' });
    const step = policy?.steps?.[0];
    if (!step || step.delay_minutes !== 0) return undefined;
    const targets: Item[] = step.targets ?? [];
    if (targets.some((target) => target.type === 'schedule' || (target.type === 'user' && policy!.team_id))) throw new HttpError(501, 'The floor pages addresses, and people of personal policies');
    return { step_order: step.step_order, emails: step.emails ?? [], people: targets.flatMap((target) => (target.type === 'user' ? [String(target.id)] : [])) };
  };

  /** Opens the incident with its claim and its outbox record; a taken claim answers the incident it names. */
  const open = async (monitor: Item, claimKey: Item, title: string, severity: string, message: string | null, fields: Item = {}) => {
    const step = await firstStep(monitor);
    const paged = step !== undefined && step.emails.length + step.people.length > 0;
    if (paged) await publisher();
    const now = new Date().toISOString();
    for (let stale: string | undefined, attempt = 0; attempt < 3; attempt++) {
      const incident = {
        ...{ id: randomUUID(), monitor_id: monitor.id, monitor_name: monitor.name, owner_id: monitor.owner_id, team_id: monitor.team_id ?? null, title, message, severity, urgency: monitor.urgency ?? urgencyOf(severity) },
        ...{ status: 'INVESTIGATING', acknowledged: false, escalation_policy_id: monitor.escalation_policy_id ?? null, started_at: now, created_at: now, updated_at: now, ...fields },
      };
      const eventId = randomUUID();
      const claim = stale ? { ConditionExpression: 'attribute_not_exists(pk) OR incident_id = :stale', ExpressionAttributeValues: { ':stale': stale } } : { ConditionExpression: 'attribute_not_exists(pk)' };
      const items: Item[] = [
        { Put: { TableName, Item: { ...claimKey, type: 'floor_claim', incident_id: incident.id }, ...claim, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
        { Put: { TableName, Item: { ...incidentKey(incident.id), type: 'floor_incident', ...incident }, ConditionExpression: 'attribute_not_exists(pk)' } },
      ];
      if (paged) {
        const detail = { event_id: eventId, occurred_at: now, incident: { id: incident.id, title, severity, urgency: incident.urgency, monitor_name: monitor.name, owner_id: monitor.owner_id, started_at: now }, step };
        items.push({ Put: { TableName, Item: { pk: `FLOOROUTBOX#${eventId[0]}`, sk: `${now}#${eventId}`, type: FLOOR_OUTBOX_TYPE, floor: instance, detail, ttl: Math.floor(Date.now() / 1000) + OUTBOX_RETENTION_SECONDS } } });
      }
      if (options.with?.includes('transaction')) {
        const extra = (sk: string, more: Item) => ({ Put: { TableName, Item: { pk: `INCIDENT#${incident.id}`, sk, type: 'floor_extra', ...more }, ConditionExpression: 'attribute_not_exists(pk)' } });
        const emails = step?.emails ?? [];
        items.push(
          extra('STEP#01', { step_order: 1, delay_minutes: 0, emails, sent_at: now }),
          extra('STEP#02', { step_order: 2, delay_minutes: 30, emails, due_at: now }),
          extra(`UPDATE#${now}#1`, { kind: 'created', message, title }),
          extra(`UPDATE#${now}#2`, { kind: 'paged', step_order: 1, emails }),
          { Update: { TableName, Key: monitorKey(monitor.id), UpdateExpression: 'ADD incident_count :one', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':one': 1 } } },
          { Put: { TableName, Item: { pk: `FLOOROUTBOX#${eventId[1]}`, sk: `${now}#${eventId}#created`, type: 'floor_other_outbox', detail: { incident } } } },
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
        const named = await get(incidentKey(held));
        if (named && named.status !== 'RESOLVED') return { opened: false, incident_id: held };
        stale = held;
      }
    }
    throw new HttpError(503, 'The claim kept changing');
  };

  const check = async (body: Item) => {
    if (typeof body.monitorId !== 'string' || !UUID.test(body.monitorId) || !['down', 'up'].includes(body.status) || !Number.isInteger(body.consecutiveFailures)) throw new HttpError(400, 'Invalid check');
    if (body.status === 'up') throw new HttpError(501, 'The floor opens incidents only');
    const monitor = await get(monitorKey(body.monitorId));
    if (!monitor) throw new HttpError(404, 'Monitor not found');
    if (body.consecutiveFailures <= Number(monitor.failure_threshold)) return { ok: true, outcome: 'below_threshold' };
    const opened = await open(monitor, { pk: `MONITOR#${monitor.id}`, sk: 'OPEN_INCIDENT' }, `${monitor.name} is down`.slice(0, 200), 'HIGH', body.message ?? null);
    return { ok: true, outcome: opened.opened ? 'incident_opened' : 'incident_already_open', incident_id: opened.incident_id };
  };

  /** The key counted in the current window (or, `start`, a new one): the conditions of its lookup item. */
  const keyCount = (keyHash: string, start: boolean, now: Date) => {
    const window = Math.floor(now.getTime() / 60_000);
    const at = { ':window': window, ':one': 1, ':now': now.toISOString() };
    return {
      TableName,
      Key: { pk: `INTEGRATIONKEY#${keyHash}`, sk: 'INTEGRATIONKEY' },
      ...(start
        ? { UpdateExpression: 'SET rate_window = :window, rate_count = :one, last_event_at = :now', ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(rate_window) OR rate_window < :window)', ExpressionAttributeValues: at }
        : { UpdateExpression: 'SET last_event_at = :now ADD rate_count :one', ConditionExpression: 'attribute_exists(pk) AND rate_window = :window AND rate_count < :max', ExpressionAttributeValues: { ...at, ':max': RATE_PER_MINUTE } }),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
  };
  /** A refused count: 400 for a key that is gone, 429 within a full window; else the window is to be started. */
  const refusedKey = (item: Record<string, AttributeValue> | undefined, now: Date) => {
    if (!item) throw new HttpError(400, 'Invalid routing key');
    if (unmarshall(item).rate_window === Math.floor(now.getTime() / 60_000)) throw new HttpError(429, 'Too many events');
  };
  /** Admits a key (its count, the cold path); answers its monitor. */
  const admit = async (keyHash: string) => {
    const now = new Date();
    for (const start of [false, true]) {
      try {
        return String((await db.send(new UpdateCommand({ ...keyCount(keyHash, start, now), ReturnValues: 'ALL_NEW' }))).Attributes!.monitor_id);
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        refusedKey((error as { Item?: Record<string, AttributeValue> }).Item, now);
      }
    }
    throw new HttpError(429, 'Too many events');
  };
  /** A repeat of an open incident: the key's count and the incident's, one transaction; false if the incident is no longer that open one. */
  const repeat = async (keyHash: string, monitorId: string, dedupKey: string, incidentId: string) => {
    const now = new Date();
    const counted = {
      TableName,
      Key: incidentKey(incidentId),
      UpdateExpression: 'SET last_alert_at = :now ADD alert_count :one',
      ConditionExpression: 'attribute_exists(pk) AND #status <> :resolved AND monitor_id = :monitor AND dedup_key = :dedup',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':now': now.toISOString(), ':one': 1, ':resolved': 'RESOLVED', ':monitor': monitorId, ':dedup': dedupKey },
    };
    for (const start of [false, true]) {
      try {
        await db.send(new TransactWriteCommand({ TransactItems: [{ Update: keyCount(keyHash, start, now) }, { Update: counted }] }));
        return true;
      } catch (error) {
        const [key, incident] = (error as { CancellationReasons?: { Code?: string; Item?: Record<string, AttributeValue> }[] }).CancellationReasons ?? [];
        if (key?.Code === 'ConditionalCheckFailed') refusedKey(key.Item, now);
        else if (incident?.Code === 'ConditionalCheckFailed') return false;
        else throw error;
      }
    }
    throw new HttpError(429, 'Too many events');
  };

  /** What a warm instance knows from earlier requests: a key's (immutable) monitor, and the open incident of a dedup key (a hint the write verifies). */
  const monitorOfKey = new Map<string, string>();
  const openIncidents = new Map<string, string>();
  const enqueue = async (body: Item) => {
    if (typeof body.routing_key !== 'string' || !KEY_SHAPE.test(body.routing_key)) throw new HttpError(400, 'Invalid routing key');
    if (body.event_action !== 'trigger') throw new HttpError(501, 'The floor takes triggers only');
    const summary = body.payload?.summary;
    const severity = ALERT_SEVERITIES[body.payload?.severity];
    if (typeof summary !== 'string' || !summary || summary.length > 1024 || typeof body.payload?.source !== 'string' || !severity) throw new HttpError(400, 'Invalid event');
    const dedupKey = typeof body.dedup_key === 'string' && body.dedup_key ? body.dedup_key.slice(0, 255) : randomUUID();
    const answer = { status: 'success', message: 'Event processed', dedup_key: dedupKey };
    const keyHash = createHash('sha256').update(body.routing_key, 'utf8').digest('hex');
    const known = monitorOfKey.get(keyHash);
    const held = known && openIncidents.get(`${known}\n${dedupKey}`);
    if (known && held) {
      if (await repeat(keyHash, known, dedupKey, held)) return answer;
      openIncidents.delete(`${known}\n${dedupKey}`);
    }
    // The key's monitor known: its read goes with the admission; else after it.
    const [monitorId, early] = await Promise.all([admit(keyHash), known ? get(monitorKey(known)) : undefined]);
    monitorOfKey.set(keyHash, monitorId);
    const monitor = known === monitorId ? early : await get(monitorKey(monitorId));
    if (!monitor) throw new HttpError(400, 'Invalid routing key');
    const opened = await open(monitor, { pk: `MONITOR#${monitor.id}`, sk: `ALERT#${dedupKey}` }, summary.slice(0, 200), severity, summary.length > 200 ? summary : null, { dedup_key: dedupKey, alert_count: 1, last_alert_at: new Date().toISOString() });
    // A repeat found cold: counted on the incident that holds its dedup key.
    if (!opened.opened) await db.send(new UpdateCommand({ TableName, Key: incidentKey(opened.incident_id), UpdateExpression: 'SET last_alert_at = :now ADD alert_count :one', ExpressionAttributeValues: { ':now': new Date().toISOString(), ':one': 1 } }));
    openIncidents.set(`${monitor.id}\n${dedupKey}`, opened.incident_id);
    return answer;
  };

  // ----- HTTP ---------------------------------------------------------------------------------------
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://floor');
    const api = url.pathname.startsWith('/api/');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}, type = 'application/json') => {
      const json = JSON.stringify(body);
      response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(json), ...headers });
      response.end(json);
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      let body: any;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      } catch {
        throw api ? invalid('body', 'Malformed JSON') : new HttpError(400, 'Invalid JSON');
      }
      if (request.headers['x-amz-target'] === 'AWSEvents.PutEvents') return send(200, putEvents(body?.Entries ?? []), {}, 'application/x-amz-json-1.1');
      if (api) {
        const user = await authenticate(request.headers.authorization);
        if (!user?.sub) return send(401, { message: 'Unauthorized' });
        const answer = await route(request.method ?? 'GET', url.pathname, url.searchParams, user, body);
        return send(answer.status, answer.body, answer.headers);
      }
      if (request.method === 'POST' && url.pathname === '/check') return send(200, await check(body ?? {}));
      if (request.method === 'POST' && url.pathname === '/v2/enqueue') return send(202, await enqueue(body ?? {}));
      send(404, { message: 'Not Found' });
    } catch (error) {
      if (!(error instanceof HttpError)) console.error('floor failure', error);
      const [status, message] = error instanceof HttpError ? [error.status, error.message] : [500, 'Internal Server Error'];
      send(status, api ? { error: message, ...(error instanceof HttpError && error.details ? { details: error.details } : {}) } : { message });
    }
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  events = leanClient(new EventBridgeClient({ endpoint: url }));
  const close = async () => {
    await poller.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const client of [events, ses, phones, db]) client?.destroy();
  };
  return { url, close };
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const env = (name: string) => process.env[name] ?? (() => { throw new Error(`${name} is not set`); })();
  const [tableName, issuer, audience, jwks, awsUrl, publicUrl] = ['TABLE_NAME', 'FLOOR_ISSUER', 'FLOOR_AUDIENCE', 'FLOOR_JWKS', 'FLOOR_AWS_URL', 'FLOOR_PUBLIC_URL'].map(env) as string[];
  const variant = (process.env.FLOOR_WITH ?? '').split(',').filter((part): part is 'delivery' | 'transaction' => part === 'delivery' || part === 'transaction');
  const floor = await startFloor({ tableName: tableName!, issuer: issuer!, audience: audience!, jwks: JSON.parse(jwks!) as JSONWebKeySet, awsUrl: awsUrl!, publicUrl: publicUrl!, port: Number(process.env.FLOOR_PORT ?? 0), with: variant });
  process.on('SIGTERM', () => void floor.close().then(() => process.exit(0)));
  console.log(JSON.stringify({ port: Number(new URL(floor.url).port) }));
}
