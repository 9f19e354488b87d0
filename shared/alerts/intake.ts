/**
 * Taking a webhook notification's alerts (issue 41 §3): the request records them durably and answers;
 * the alert processor applies them from the table's stream.
 *
 * - The request (`recordNotification`) writes the notification's alerts, as parsed, into alert batches
 *   (`ALERTBATCH#<id>`, at most ALERT_BATCH_SIZE alerts and ALERT_BATCH_MAX_BYTES each) with
 *   BatchWriteItem, and answers 202 only once every batch is written: a 1 MiB notification is one or two
 *   calls, whatever its number of alerts.
 * - Each batch's INSERT on the stream invokes `alert-processor` (`processAlertBatch`), which applies its
 *   alerts in order (`applyWebhookAlert`, `ingest.ts`) within its own timeout; a failed batch is retried
 *   by the stream mapping and then given to its alarmed on-failure queue (the local runtime likewise).
 * - Idempotent per alert state: an alert's claim records the state it was applied in (its `startsAt`), so
 *   a re-sent notification, or a batch retried, applies nothing twice.
 */
import { randomUUID } from 'node:crypto';
import * as z from '../platform/zod.js';
import { clock } from '../platform/clock.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, keys } from '../platform/db/keys.js';
import { batchWrite, conditionFailure } from '../platform/db/ops.js';
import { Severity } from '../incidents/model.js';
import type { WebhookAlertEvent } from './alertmanager.js';
import { applyWebhookAlert, readDedups, recordFolded, type AlertBatchContext, type IntegrationRef, type WebhookIngestEvent, type WebhookOutcome } from './ingest.js';

export const ALERT_BATCH_ITEM_TYPE = 'alert_batch';
/** Alerts a batch holds at most: what one invocation of the processor applies. */
export const ALERT_BATCH_SIZE = 100;
/** A batch's alerts' size at most (an item holds 400 KB). */
const ALERT_BATCH_MAX_BYTES = 300_000;
/** How long a batch is kept after it is written (for a replay of its stream record). */
const ALERT_BATCH_TTL_SECONDS = 7 * 24 * 60 * 60;

/** An alert as a batch keeps it: what applying it needs. */
const storedAlert = z.object({
  action: z.enum(['trigger', 'resolve']),
  dedup_key: z.string(),
  state: z.string(),
  title: z.optional(z.string()),
  summary: z.optional(z.string()),
  severity: z.optional(Severity),
  occurred_at: z.optional(z.nullable(z.string())),
  message: z.optional(z.nullable(z.string())),
});
type StoredAlert = z.output<typeof storedAlert>;

export const alertBatchItem = z.object({
  type: z.literal(ALERT_BATCH_ITEM_TYPE),
  monitor_id: z.string(),
  integration_id: z.string(),
  integration_name: z.string(),
  created_by_email: z.string(),
  key_hash: z.string(),
  alerts: z.array(storedAlert),
});

/** The incident's message of a webhook alert: the full summary where the title had to be cut from it, and its description. */
const messageOf = (event: WebhookAlertEvent) =>
  [event.action === 'trigger' && event.summary !== event.title ? event.summary : null, event.description].filter(Boolean).join('\n\n') || null;

const stored = (event: WebhookAlertEvent): StoredAlert =>
  event.action === 'trigger'
    ? { action: 'trigger', dedup_key: event.dedupKey, state: event.startsAt ?? '', title: event.title, summary: event.summary, severity: event.severity, occurred_at: event.occurredAt, message: messageOf(event) }
    : { action: 'resolve', dedup_key: event.dedupKey, state: event.startsAt ?? '' };

/** The alerts in batches, in order: at most ALERT_BATCH_SIZE and about ALERT_BATCH_MAX_BYTES each. */
function batches(alerts: StoredAlert[]): StoredAlert[][] {
  const result: StoredAlert[][] = [];
  let current: StoredAlert[] = [];
  let bytes = 0;
  for (const alert of alerts) {
    const size = Buffer.byteLength(JSON.stringify(alert), 'utf8');
    if (current.length > 0 && (current.length >= ALERT_BATCH_SIZE || bytes + size > ALERT_BATCH_MAX_BYTES)) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(alert);
    bytes += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}

/** Writes a notification's alerts as alert batches (BatchWriteItem); resolves once every one is written. */
export async function recordNotification(integration: IntegrationRef, keyHash: string, events: WebhookAlertEvent[]): Promise<void> {
  const now = clock.now();
  const ttl = Math.floor(now.getTime() / 1000) + ALERT_BATCH_TTL_SECONDS;
  const items = batches(events.map(stored)).map((alerts) => ({
    ...keys.alertBatch(randomUUID()),
    type: ALERT_BATCH_ITEM_TYPE,
    monitor_id: integration.monitorId,
    integration_id: integration.integrationId,
    integration_name: integration.integrationName,
    created_by_email: integration.createdByEmail,
    key_hash: keyHash,
    received_at: now.toISOString(),
    ttl,
    alerts,
  }));
  if (items.length > 0) await batchWrite(items.map((Item) => ({ PutRequest: { Item } })));
}

const eventOf = (alert: StoredAlert): WebhookIngestEvent =>
  alert.action === 'trigger'
    ? {
        action: 'trigger',
        dedupKey: alert.dedup_key,
        state: alert.state,
        title: alert.title ?? 'Alert',
        summary: alert.summary ?? alert.title ?? 'Alert',
        severity: alert.severity ?? 'HIGH',
        occurredAt: alert.occurred_at ?? null,
        message: alert.message ?? null,
      }
    : { action: 'resolve', dedupKey: alert.dedup_key, state: alert.state };

/**
 * Time an invocation keeps in hand when it hands the rest of its batch on (issue 46 §4): an alert under
 * way (an incident opened, a page due at once) finishes well within it, so a batch never runs into the
 * processor's timeout (and its retries, and its on-failure queue) however slow the table is.
 */
export const BATCH_RESERVE_MS = 20_000;

/** How much time an invocation has: Lambda's context, or a test's (`setBatchBudget`). */
export interface BatchBudget {
  remainingMs(): number;
}
let budgetOverride: BatchBudget | undefined;
/** Test control: the budget every invocation uses instead of its own (undefined: back to its own). */
export function setBatchBudget(budget: BatchBudget | undefined) {
  budgetOverride = budget;
}

/**
 * The alerts a batch had not reached, as a batch of their own (`<batch id>+<index>`, written once:
 * a retried invocation writes the same one), whose INSERT invokes the processor again.
 */
async function continueBatch(item: Record<string, unknown>, alerts: StoredAlert[], index: number) {
  const batchId = String(item[attributes.pk]).slice('ALERTBATCH#'.length);
  const next = { ...item, ...keys.alertBatch(`${batchId}+${index}`), alerts };
  try {
    await db().send(new PutCommand({ TableName: tableName(), Item: next, ConditionExpression: itemAbsent }));
  } catch (error) {
    if (!conditionFailure(error)) throw error;
  }
}

export type BatchOutcomes = Partial<Record<WebhookOutcome | 'continued', number>>;

/**
 * Applies one alert batch's alerts in order; answers how many came to each outcome. With a `budget`,
 * it stops while BATCH_RESERVE_MS remain and hands the alerts it had not reached on as a batch of their
 * own (`continued`: how many), applied by the next invocation.
 */
export async function processAlertBatch(item: Record<string, unknown>, budget?: BatchBudget): Promise<BatchOutcomes> {
  const batch = alertBatchItem.parse(item);
  const limit = budgetOverride ?? budget;
  const context: AlertBatchContext = {
    integration: { integrationId: batch.integration_id, integrationName: batch.integration_name, monitorId: batch.monitor_id, createdByEmail: batch.created_by_email },
    keyHash: batch.key_hash,
    folded: [],
  };
  const outcomes: BatchOutcomes = {};
  // The monitor and every alert's claim in one read; an alert whose dedup key came earlier in the batch reads again.
  const reads = await readDedups(batch.monitor_id, batch.alerts.map((alert) => alert.dedup_key));
  for (const [index, alert] of batch.alerts.entries()) {
    if (index > 0 && limit && limit.remainingMs() < BATCH_RESERVE_MS) {
      await continueBatch(item, batch.alerts.slice(index), index);
      outcomes.continued = batch.alerts.length - index;
      break;
    }
    const first = reads.get(alert.dedup_key);
    reads.delete(alert.dedup_key);
    const outcome = await applyWebhookAlert(context, eventOf(alert), first);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    // The monitor deleted: its alerts go with it.
    if (outcome === 'monitor_gone') break;
  }
  await recordFolded(context);
  return outcomes;
}
