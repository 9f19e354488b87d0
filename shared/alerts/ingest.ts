/**
 * Alerts in: what an event from a monitoring tool does, whichever protocol brought it (Events API v2,
 * an Alertmanager or Grafana webhook). A key is admitted (it names an integration of a monitor that
 * exists, and is within its rate), then each event is applied with PagerDuty's semantics, scoped to
 * the integration's monitor:
 * - trigger: adds to the monitor's open incident of that dedup key (`alert_count + 1`, `last_alert_at`;
 *   no timeline entry, no e-mail, no page), or opens an automatic incident exactly as a failed check
 *   does, claiming the dedup key in the same transaction (`attribute_not_exists`), so concurrent
 *   triggers open one. A repeat of a key and dedup key this instance has seen is one TransactWriteItems
 *   that also admits the key (`countRepeat`);
 * - acknowledge / resolve: acknowledges (method `api`, named by the integration) or resolves (releasing
 *   the dedup key in the same transaction) that incident; with nothing open, nothing changes.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { itemPresent, keys } from '../platform/db/keys.js';
import { CONFLICT_RETRY_MS, conditionFailure, getByKeys, transactOutcome, type TransactItem } from '../platform/db/ops.js';
import { countMetric } from '../platform/observability/metrics.js';
import { monitorItem, type Monitor } from '../monitors/model.js';
import { claimPut, openAutomaticIncident, resolveAutomaticIncident } from '../incidents/automatic.js';
import type { Acknowledgement } from '../incidents/model.js';
import * as incidents from '../incidents/repository.js';
import { acknowledgementRecords } from '../incidents/timeline.js';
import { integrationKeyItem } from '../integrations/model.js';
import { integrationKeyHash, isIntegrationKeyShaped } from './keys.js';
import type { AlertEvent, TriggerEvent } from './model.js';

/**
 * Events a key may send a minute: PagerDuty's documented rate ("approximately 120 calls/minute per
 * integration key"), counted in fixed one-minute windows in the key's lookup item, so it holds across
 * every function instance at once.
 */
export const EVENTS_PER_MINUTE = 120;
const WINDOW_MS = 60_000;

/** The integration an admitted key belongs to. */
export interface IntegrationRef {
  integrationId: string;
  integrationName: string;
  monitorId: string;
  /** Whom its acknowledgements name as accountable: the e-mail of the integration's creator. */
  createdByEmail: string;
}

export type KeyAdmission =
  | { ok: true; integration: IntegrationRef }
  | { ok: false; reason: 'unknown' }
  | { ok: false; reason: 'rate'; retryAfterSeconds: number };

const refOf = (item: Record<string, unknown>): IntegrationRef => {
  const lookup = integrationKeyItem.parse(item);
  return { integrationId: lookup.integration_id, integrationName: lookup.integration_name, monitorId: lookup.monitor_id, createdByEmail: lookup.created_by_email };
};

/**
 * What a warm instance remembers across invocations, bounded. Never what decides an answer: a key's
 * integration (immutable: an integration is never renamed or moved, and a deleted one's key never
 * comes back), and which incident holds a dedup key (a hint: the write that uses it verifies it in
 * its conditions, and a refused hint is forgotten and read again).
 */
const REMEMBERED = 1_000;
const knownKeys = new Map<string, IntegrationRef>();
const dedupHints = new Map<string, string>();
const dedupHintKey = (monitorId: string, dedupKey: string) => `${monitorId}\n${dedupKey}`;

function remember<V>(map: Map<string, V>, key: string, value: V): V {
  map.delete(key);
  if (map.size >= REMEMBERED) map.delete(map.keys().next().value!);
  map.set(key, value);
  return value;
}
const rememberKey = (keyHash: string, ref: IntegrationRef) => remember(knownKeys, keyHash, ref);

/** The monitor of a key this instance has admitted before (immutable), if any. */
export function knownMonitorOf(key: string): string | undefined {
  return isIntegrationKeyShaped(key) ? knownKeys.get(integrationKeyHash(key))?.monitorId : undefined;
}

/** The key's rate counted in the current window (`start`: the first event of a new window starts it). */
const rateUpdate = (start: boolean, window: number, now: string) =>
  start
    ? {
        expression: 'SET rate_window = :window, rate_count = :one, last_event_at = :now',
        condition: `${itemPresent} AND (attribute_not_exists(rate_window) OR rate_window < :window)`,
        values: { ':window': window, ':one': 1, ':now': now },
      }
    : {
        expression: 'SET last_event_at = :now ADD rate_count :one',
        condition: `${itemPresent} AND rate_window = :window AND rate_count < :max`,
        values: { ':window': window, ':one': 1, ':now': now, ':max': EVENTS_PER_MINUTE },
      };

const retryAfter = (window: number, now: Date) => Math.ceil(((window + 1) * WINDOW_MS - now.getTime()) / 1000);

/**
 * Sends a single-item write, retrying while DynamoDB refuses it for a transaction under way on the same
 * item (`TransactionConflictException`, which the SDK does not retry): a repeat trigger's transaction
 * holds the key's lookup and the incident, which admissions and counts of the read path write too. With
 * jittered backoff, for up to `CONFLICT_RETRY_MS`, as `transactWrite` retries its own conflicts.
 */
async function sendSingleWrite<T>(send: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + CONFLICT_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof Error && error.name === 'TransactionConflictException') || performance.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20 * attempt, 200)));
    }
  }
}

/** One conditional UpdateItem of the key's lookup item: the item after it, or as it was when the condition failed. */
async function updateLookup(keyHash: string, update: { expression: string; condition: string; values: Record<string, unknown> }) {
  try {
    const { Attributes } = await sendSingleWrite(() => db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.integrationKey(keyHash),
        UpdateExpression: update.expression,
        ConditionExpression: update.condition,
        ExpressionAttributeValues: update.values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ));
    return { ok: true as const, item: Attributes! };
  } catch (error) {
    const failed = conditionFailure(error);
    if (!failed) throw error;
    return { ok: false as const, item: failed.item };
  }
}

/**
 * Admits one request of `key`: finds its integration and counts it against the key's rate, in one
 * conditional UpdateItem of the key's lookup item in the common case (the window is the current one
 * and not full), two when a new minute starts. An unknown or revoked key writes nothing.
 * `last_event_at` is set by the same write.
 */
export async function admitKey(key: string): Promise<KeyAdmission> {
  if (!isIntegrationKeyShaped(key)) return { ok: false, reason: 'unknown' };
  const keyHash = integrationKeyHash(key);
  for (let attempt = 1; attempt <= 5; attempt++) {
    const now = clock.now();
    const window = Math.floor(now.getTime() / WINDOW_MS);
    const count = rateUpdate(false, window, now.toISOString());
    const counted = await updateLookup(keyHash, count);
    if (counted.ok) return { ok: true, integration: rememberKey(keyHash, refOf(counted.item)) };
    if (!counted.item) return { ok: false, reason: 'unknown' };
    if (counted.item.rate_window === window) return { ok: false, reason: 'rate', retryAfterSeconds: retryAfter(window, now) };
    // A new window (or the key's first event): start it, unless another request just did.
    const start = rateUpdate(true, window, now.toISOString());
    const started = await updateLookup(keyHash, start);
    if (started.ok) return { ok: true, integration: rememberKey(keyHash, refOf(started.item)) };
    if (!started.item) return { ok: false, reason: 'unknown' };
  }
  throw new Error('The key\'s rate window kept changing; gave up after 5 attempts');
}

/** A trigger as ingested: the event, and the incident's message (the full text where the title was cut, the tool's description). */
export type IngestEvent = AlertEvent & { message?: string | null };

export type IngestOutcome = 'opened' | 'counted' | 'acknowledged' | 'resolved' | 'ignored' | 'monitor_gone';

const MAX_ATTEMPTS = 5;

/** The monitor and the open incident (if any) of a dedup key, as read. */
export interface DedupRead {
  monitor?: Monitor;
  incidentId?: string;
}

/** The monitor and the open incident (if any) of a dedup key: one BatchGetItem. */
export async function readDedup(monitorId: string, dedupKey: string): Promise<DedupRead> {
  const read = await getByKeys({ monitor: keys.monitor(monitorId), dedup: keys.alertDedup(monitorId, dedupKey) });
  return {
    monitor: read.monitor ? monitorItem.parse(read.monitor) : undefined,
    incidentId: typeof read.dedup?.incident_id === 'string' ? read.dedup.incident_id : undefined,
  };
}

/**
 * Applies one event of an admitted key. `prefetched`: the dedup read already made for it (in
 * parallel with admitting the key, when the key's monitor was known); used only if it is of the
 * integration's monitor.
 */
export async function ingestEvent(integration: IntegrationRef, event: IngestEvent, prefetched?: Promise<DedupRead> & { monitorId: string }): Promise<IngestOutcome> {
  const first = prefetched?.monitorId === integration.monitorId ? prefetched : undefined;
  if (event.action === 'trigger') return trigger(integration, event, first);
  const { monitor, incidentId } = await (first ?? readDedup(integration.monitorId, event.dedupKey));
  if (!monitor) return 'monitor_gone';
  if (!incidentId) return 'ignored';
  return event.action === 'acknowledge' ? acknowledge(integration, incidentId) : resolve(integration, event.dedupKey, incidentId);
}

/** The dedup read of a key whose monitor this instance knows, started at once (see `ingestEvent`); undefined otherwise. */
export function prefetchDedup(key: string, dedupKey: string): (Promise<DedupRead> & { monitorId: string }) | undefined {
  const monitorId = knownMonitorOf(key);
  if (!monitorId) return undefined;
  const read = readDedup(monitorId, dedupKey);
  // Unused when the key is refused: not an unhandled rejection then.
  read.catch(() => undefined);
  return Object.assign(read, { monitorId });
}

/**
 * An alert counted on the incident: `alert_count + 1`, `last_alert_at`, on the condition that it is
 * there and open; `neverResolved`: and has never been resolved (see `countRepeat`).
 */
const countAlert = (incidentId: string, options: { neverResolved?: boolean } = {}) => ({
  TableName: tableName(),
  Key: keys.incident(incidentId),
  UpdateExpression: 'SET last_alert_at = :now ADD alert_count :one',
  ConditionExpression: `${itemPresent} AND #status <> :resolved${options.neverResolved ? ' AND attribute_not_exists(last_resolved_at)' : ''}`,
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: { ':now': clock.nowIso(), ':one': 1, ':resolved': 'RESOLVED' },
});

/**
 * A repeat trigger: one UpdateItem of the open incident. `counted: false` when it is resolved (the dedup
 * item is stale); `reopened` when it was resolved once (a hint to it would be refused, see `countRepeat`).
 */
async function countTrigger(incidentId: string): Promise<{ counted: boolean; reopened?: boolean }> {
  try {
    const { Attributes } = await sendSingleWrite(() => db().send(new UpdateCommand({ ...countAlert(incidentId), ReturnValues: 'ALL_NEW' })));
    return { counted: true, reopened: Attributes?.last_resolved_at !== undefined };
  } catch (error) {
    if (conditionFailure(error)) return { counted: false };
    throw error;
  }
}

/** What a repeat trigger settled on hints alone (`countRepeat`). */
export type RepeatOutcome = { outcome: 'counted' } | { outcome: 'unknown' } | { outcome: 'monitor_gone' } | { outcome: 'rate'; retryAfterSeconds: number };

/**
 * A repeat trigger of a key and a dedup key this instance has seen, in ONE TransactWriteItems whose
 * conditions settle everything the answer depends on, at write time: the key's lookup item counts the
 * event (it exists: the key is not revoked; its window is the current one and not full — or, on a
 * window's first event, starts it), the monitor is still there (a deleted monitor's keys are refused
 * at once), and the remembered incident, open and never resolved, counts the alert.
 *
 * Why "never resolved" proves the remembered incident still holds the dedup key without reading its
 * claim: the claim is written naming the incident in the transaction that opens it, and moves off an
 * incident only when that incident is resolved (released by the resolving transaction, released as
 * stale after a person resolved it, or replaced by a trigger that found it resolved), and every
 * resolution sets `last_resolved_at`, which nothing removes. So an open incident without it is its
 * claim's incident. (One reopened by a person may have lost its claim to a newer incident: it fails the
 * condition and takes the read path, which follows the claim.) The monitor's deletion purges its claims
 * after its transaction; the monitor's ConditionCheck covers that.
 *
 * Undefined when there is nothing to go on, or a hint was refused (forgotten): the caller takes the
 * full path, which reads. A refused transaction wrote nothing, so nothing is counted twice.
 */
export async function countRepeat(key: string, dedupKey: string): Promise<RepeatOutcome | undefined> {
  if (!isIntegrationKeyShaped(key)) return undefined;
  const keyHash = integrationKeyHash(key);
  const integration = knownKeys.get(keyHash);
  if (!integration) return undefined;
  const { monitorId } = integration;
  const hint = dedupHintKey(monitorId, dedupKey);
  const incidentId = dedupHints.get(hint);
  if (!incidentId) return undefined;
  let start = false;
  for (let attempt = 1; attempt <= 4; attempt++) {
    const now = clock.now();
    const window = Math.floor(now.getTime() / WINDOW_MS);
    const rate = rateUpdate(start, window, now.toISOString());
    const actions: (readonly ['key' | 'monitor' | 'incident', TransactItem])[] = [
      [
        'key',
        {
          Update: {
            TableName: tableName(),
            Key: keys.integrationKey(keyHash),
            UpdateExpression: rate.expression,
            ConditionExpression: rate.condition,
            ExpressionAttributeValues: rate.values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
      ['monitor', { ConditionCheck: { TableName: tableName(), Key: keys.monitor(monitorId), ConditionExpression: itemPresent } }],
      ['incident', { Update: countAlert(incidentId, { neverResolved: true }) }],
    ];
    const { outcome, item } = await transactOutcome(actions);
    switch (outcome) {
      case 'ok':
        return { outcome: 'counted' };
      case 'key':
        if (!item) {
          knownKeys.delete(keyHash);
          return { outcome: 'unknown' };
        }
        // Counting refused in the current window: it is full. Otherwise start the window, or (another
        // request started it first) count in it.
        if (!start && item.rate_window === window) return { outcome: 'rate', retryAfterSeconds: retryAfter(window, now) };
        start = !start;
        continue;
      case 'monitor':
        knownKeys.delete(keyHash);
        return { outcome: 'monitor_gone' };
      default:
        dedupHints.delete(hint);
        return undefined;
    }
  }
  return undefined;
}

async function trigger(integration: IntegrationRef, event: TriggerEvent & { message?: string | null }, prefetched?: Promise<DedupRead>): Promise<IngestOutcome> {
  const hint = dedupHintKey(integration.monitorId, event.dedupKey);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const { monitor, incidentId } = await (attempt === 1 && prefetched ? prefetched : readDedup(integration.monitorId, event.dedupKey));
    if (!monitor) return 'monitor_gone';
    const count = incidentId ? await countTrigger(incidentId) : { counted: false };
    if (count.counted) {
      if (!count.reopened) remember(dedupHints, hint, incidentId!);
      return 'counted';
    }
    const now = clock.nowIso();
    const opened = await openAutomaticIncident({
      monitor,
      title: event.title,
      severity: event.severity,
      message: event.message ?? null,
      claim: claimPut(keys.alertDedup(monitor.id, event.dedupKey), 'alert_dedup', incidentId, { dedup_key: event.dedupKey }),
      fields: { alert_count: 1, last_alert_at: now, dedup_key: event.dedupKey },
      createdDetails: {
        integration_id: integration.integrationId,
        integration_name: integration.integrationName,
        dedup_key: event.dedupKey,
        ...(event.summary !== event.title ? { summary: event.summary } : {}),
      },
    });
    if (opened) {
      remember(dedupHints, hint, opened.id);
      return 'opened';
    }
    // Another trigger of the key opened it first (count on it), or the monitor moved (read it again).
  }
  throw new Error(`Monitor ${integration.monitorId}: could not settle dedup key ${event.dedupKey} after ${MAX_ATTEMPTS} attempts`);
}

/** Acknowledges the incident as the integration (method `api`); already acknowledged or resolved: nothing changes. */
async function acknowledge(integration: IntegrationRef, incidentId: string): Promise<IngestOutcome> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const incident = await incidents.getIncident(incidentId);
    if (!incident || incident.status === 'RESOLVED' || incident.acknowledged) return 'ignored';
    const now = incidents.writeInstant(incident);
    const acknowledgement: Acknowledgement = {
      id: randomUUID(),
      incident_id: incident.id,
      user_id: integration.integrationId,
      user_name: integration.integrationName,
      user_email: integration.createdByEmail,
      method: 'api',
      acknowledged_at: now,
    };
    const records = acknowledgementRecords(incident, acknowledgement, { integration_id: integration.integrationId, integration_name: integration.integrationName });
    const { outcome } = await incidents.acknowledgeIncident(incident, acknowledgement, now, records, []);
    if (outcome === 'acknowledged') {
      countMetric('IncidentAcknowledged', { method: 'api' });
      return 'acknowledged';
    }
    if (outcome !== 'rescoped') return 'ignored';
  }
  throw new Error(`Incident ${incidentId} kept changing; gave up after ${MAX_ATTEMPTS} attempts`);
}

/** Resolves the incident, releasing the dedup key in the same transaction (timeline: resolved by the integration). */
async function resolve(integration: IntegrationRef, dedupKey: string, incidentId: string): Promise<IngestOutcome> {
  const resolved = await resolveAutomaticIncident(incidentId, (monitorId) => keys.alertDedup(monitorId, dedupKey), {
    by: 'integration',
    integration_id: integration.integrationId,
    integration_name: integration.integrationName,
  });
  return resolved ? 'resolved' : 'ignored';
}
