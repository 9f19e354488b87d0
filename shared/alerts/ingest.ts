/**
 * Alerts in: what an event from a monitoring tool does, whichever protocol brought it (Events API v2,
 * an Alertmanager or Grafana webhook). A key is admitted (it names an integration of a monitor that
 * exists, and is within its rate), then each event is applied with PagerDuty's semantics, scoped to
 * the integration's monitor:
 * - trigger: adds to the monitor's open incident of that dedup key (one UpdateItem: `alert_count + 1`,
 *   `last_alert_at`; no timeline entry, no e-mail, no page), or opens an automatic incident exactly as
 *   a failed check does (the paging flow's one entry, `raise` in `../paging/signal.ts`), claiming the
 *   dedup key in the same transaction (`attribute_not_exists`), so concurrent triggers open one;
 * - acknowledge / resolve: acknowledges (method `api`, named by the integration) or resolves (releasing
 *   the dedup key in the same transaction) that incident; with nothing open, nothing changes.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { itemPresent, keys } from '../platform/db/keys.js';
import { conditionFailure } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { acknowledgeAsSource } from '../paging/acknowledge.js';
import { resolveAutomaticIncident } from '../paging/resolve.js';
import { raise, readSignal } from '../paging/signal.js';
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

/** One conditional UpdateItem of the key's lookup item: the item after it, or as it was when the condition failed. */
async function updateLookup(keyHash: string, update: { expression: string; condition: string }, values: Record<string, unknown>) {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.integrationKey(keyHash),
        UpdateExpression: update.expression,
        ConditionExpression: update.condition,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
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
  return retryOnConflict<KeyAdmission>(async () => {
    const now = clock.now();
    const window = Math.floor(now.getTime() / WINDOW_MS);
    const values = { ':window': window, ':one': 1, ':now': now.toISOString() };
    const counted = await updateLookup(
      keyHash,
      { expression: 'SET last_event_at = :now ADD rate_count :one', condition: `${itemPresent} AND rate_window = :window AND rate_count < :max` },
      { ...values, ':max': EVENTS_PER_MINUTE },
    );
    if (counted.ok) return { ok: true, integration: refOf(counted.item) };
    if (!counted.item) return { ok: false, reason: 'unknown' };
    if (counted.item.rate_window === window) {
      return { ok: false, reason: 'rate', retryAfterSeconds: Math.ceil(((window + 1) * WINDOW_MS - now.getTime()) / 1000) };
    }
    // A new window (or the key's first event): start it, unless another request just did.
    const started = await updateLookup(
      keyHash,
      { expression: 'SET rate_window = :window, rate_count = :one, last_event_at = :now', condition: `${itemPresent} AND (attribute_not_exists(rate_window) OR rate_window < :window)` },
      values,
    );
    if (started.ok) return { ok: true, integration: refOf(started.item) };
    if (!started.item) return { ok: false, reason: 'unknown' };
    return undefined;
  }, (attempts) => `The key's rate window kept changing; gave up after ${attempts} attempts`);
}

/** A trigger as ingested: the event, and the incident's message (the full text where the title was cut, the tool's description). */
export type IngestEvent = AlertEvent & { message?: string | null };

export type IngestOutcome = 'opened' | 'counted' | 'acknowledged' | 'resolved' | 'ignored' | 'monitor_gone';

/** Applies one event of an admitted key: a signal for the paging flow (`../paging/`). */
export async function ingestEvent(integration: IntegrationRef, event: IngestEvent): Promise<IngestOutcome> {
  if (event.action === 'trigger') return trigger(integration, event);
  const { monitor, claimed: incidentId } = await readSignal(integration.monitorId, keys.alertDedup(integration.monitorId, event.dedupKey));
  if (!monitor) return 'monitor_gone';
  if (!incidentId) return 'ignored';
  return event.action === 'acknowledge' ? acknowledge(integration, incidentId) : resolve(integration, event.dedupKey, incidentId);
}

/** A repeat trigger: one UpdateItem of the open incident. False when it is resolved (the dedup item is stale). */
async function countTrigger(incidentId: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.incident(incidentId),
        UpdateExpression: 'SET last_alert_at = :now ADD alert_count :one',
        ConditionExpression: `${itemPresent} AND #status <> :resolved`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':now': clock.nowIso(), ':one': 1, ':resolved': 'RESOLVED' },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailure(error)) return false;
    throw error;
  }
}

/** A trigger: the dedup key's open incident counts it, or a new one opens, claiming the key. */
async function trigger(integration: IntegrationRef, event: TriggerEvent & { message?: string | null }): Promise<IngestOutcome> {
  const raised = await raise({
    monitorId: integration.monitorId,
    claim: { key: keys.alertDedup(integration.monitorId, event.dedupKey), type: 'alert_dedup', fields: { dedup_key: event.dedupKey } },
    what: `dedup key ${event.dedupKey}`,
    incident: () => ({
      title: event.title,
      severity: event.severity,
      message: event.message ?? null,
      fields: { alert_count: 1, last_alert_at: clock.nowIso(), dedup_key: event.dedupKey },
      createdDetails: {
        integration_id: integration.integrationId,
        integration_name: integration.integrationName,
        dedup_key: event.dedupKey,
        ...(event.summary !== event.title ? { summary: event.summary } : {}),
      },
    }),
    addTo: countTrigger,
  });
  return raised.outcome === 'monitor_gone' ? 'monitor_gone' : raised.outcome === 'opened' ? 'opened' : 'counted';
}

/** Acknowledges the incident as the integration (method `api`); already acknowledged or resolved: nothing changes. */
async function acknowledge(integration: IntegrationRef, incidentId: string): Promise<IngestOutcome> {
  const acknowledged = await acknowledgeAsSource(incidentId, {
    id: integration.integrationId,
    name: integration.integrationName,
    email: integration.createdByEmail,
    details: { integration_id: integration.integrationId, integration_name: integration.integrationName },
  });
  return acknowledged ? 'acknowledged' : 'ignored';
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
