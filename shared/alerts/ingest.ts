/**
 * Alerts in: what an event from a monitoring tool does, whichever protocol brought it (Events API v2,
 * an Alertmanager or Grafana webhook). A key is admitted (it names an integration of a monitor that
 * exists, and is within its rate), then each event is applied with PagerDuty's semantics, scoped to
 * the integration's monitor:
 * - trigger: adds to the monitor's open incident of that dedup key (`alert_count + 1`, `last_alert_at`;
 *   no timeline entry, no e-mail, no page), or opens an automatic incident exactly as a failed check
 *   does (the paging flow's one entry, `raise` in `../paging/signal.ts`), claiming the dedup key in the
 *   same transaction (`attribute_not_exists`), so concurrent triggers open one. A repeat of a key and
 *   dedup key this instance has seen is one TransactWriteItems that also admits the key (`countRepeat`);
 * - acknowledge / resolve: acknowledges (method `api`, named by the integration) or resolves (releasing
 *   the dedup key in the same transaction) that incident; with nothing open, nothing changes.
 */
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys } from '../platform/db/keys.js';
import { batchGet, conditionFailure, conflicted, sendWrite, transactOutcome, type TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { countInMinute, currentMinute, minuteFull, minuteOf, minuteOlder, minuteUpdate, secondsLeftIn, rateWindowGaveUp, type KeyRate } from '../integrations/key-rate.js';
import { onNewSandbox } from '../platform/sandbox.js';
import { acknowledgeAsSource } from '../paging/acknowledge.js';
import { resolveAutomaticIncident } from '../paging/resolve.js';
import { raise, readSignal, type SignalRead } from '../paging/signal.js';
import { integrationKeyItem } from '../integrations/model.js';
import { monitorItem as monitorSchema } from '../monitors/model.js';
import { entryRecord, timelineEntry } from '../incidents/timeline.js';
import type { AlertDetails, Severity, Status } from '../incidents/model.js';
import { integrationKeyHash, isIntegrationKeyShaped } from '../integrations/keys.js';
import { incidentTitle, type AlertEvent, type TriggerEvent } from './model.js';

/**
 * Events a key may send a minute: PagerDuty's documented rate ("approximately 120 calls/minute per
 * integration key"), counted in fixed one-minute windows in the key's lookup item, so it holds across
 * every function instance at once.
 */
export const EVENTS_PER_MINUTE = 120;

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
onNewSandbox(() => {
  knownKeys.clear();
  dedupHints.clear();
});
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

/** A key's events, counted in its lookup item (`../integrations/key-rate.ts`), which also keeps `last_event_at`. */
const EVENT_RATE: KeyRate = {
  window: 'rate_window',
  count: 'rate_count',
  max: EVENTS_PER_MINUTE,
  set: (now) => ({ expression: 'last_event_at = :now', values: { ':now': now.toISOString() } }),
  first: 'count',
};

/**
 * Admits one request of `key`: finds its integration and counts it against the key's rate, in one
 * conditional UpdateItem of the key's lookup item in the common case (the window is the current one
 * and not full), two when a new minute starts. An unknown or revoked key writes nothing.
 * `last_event_at` is set by the same write.
 */
export async function admitKey(key: string): Promise<KeyAdmission> {
  if (!isIntegrationKeyShaped(key)) return { ok: false, reason: 'unknown' };
  const keyHash = integrationKeyHash(key);
  const counted = await countInMinute(keyHash, EVENT_RATE);
  if (counted.ok) return { ok: true, integration: rememberKey(keyHash, refOf(counted.item)) };
  if (counted.reason === 'unknown') return counted;
  return { ok: false, reason: 'rate', retryAfterSeconds: counted.retryAfterSeconds };
}

/** A trigger as ingested: the event, and the incident's message (the full text where the title was cut, the tool's description). */
export type IngestEvent = AlertEvent & {
  message?: string | null;
  /**
   * A webhook alert's state (its `startsAt`; '' when it has none): the claim records the state it was
   * applied in, so a re-sent notification applies each alert state once (issue 41 §3).
   */
  state?: string;
  /** An Events API v2 trigger's details, bounded (`alertDetails`): kept with the incident it opens and in its `created` entry. */
  alertDetails?: AlertDetails;
};

export type IngestOutcome = 'opened' | 'counted' | 'acknowledged' | 'resolved' | 'ignored' | 'monitor_gone';

/** The monitor and the incident (if any) a dedup key's claim names: one BatchGetItem (`readSignal`). */
const readDedup = (monitorId: string, dedupKey: string): Promise<SignalRead> => readSignal(monitorId, keys.alertDedup(monitorId, dedupKey));

/**
 * The monitor and the claims of several dedup keys, read at once (BatchGetItem, 100 keys a call): the
 * first read of each alert of a batch.
 */
export async function readDedups(monitorId: string, dedupKeys: string[]): Promise<Map<string, SignalRead>> {
  const unique = [...new Set(dedupKeys)];
  const found = await batchGet([keys.monitor(monitorId), ...unique.map((dedupKey) => keys.alertDedup(monitorId, dedupKey))]);
  const bySk = new Map(found.map((item) => [item[attributes.sk] as string, item]));
  const monitorItem = bySk.get(keys.monitor(monitorId)[attributes.sk]!);
  const monitor = monitorItem ? monitorSchema.parse(monitorItem) : undefined;
  return new Map(
    unique.map((dedupKey) => {
      const claim = bySk.get(keys.alertDedup(monitorId, dedupKey)[attributes.sk]!);
      return [dedupKey, { monitor, claimed: typeof claim?.incident_id === 'string' ? claim.incident_id : undefined, claim }];
    }),
  );
}

/** A dedup read started before the key was admitted, with the monitor it was made for. */
export type PrefetchedRead = Promise<SignalRead> & { monitorId: string };

/**
 * Applies one event of an admitted key: a signal for the paging flow (`../paging/`). `prefetched`: the
 * dedup read already made for it (in parallel with admitting the key, when the key's monitor was
 * known); used only if it is of the integration's monitor.
 */
export async function ingestEvent(integration: IntegrationRef, event: IngestEvent, prefetched?: PrefetchedRead): Promise<IngestOutcome> {
  const first = prefetched?.monitorId === integration.monitorId ? prefetched : undefined;
  if (event.action === 'trigger') return trigger(integration, event, first && (await first));
  const { monitor, claimed: incidentId } = await (first ?? readDedup(integration.monitorId, event.dedupKey));
  if (!monitor) return 'monitor_gone';
  if (!incidentId) return 'ignored';
  return event.action === 'acknowledge' ? acknowledge(integration, incidentId) : resolve(integration, event.dedupKey, incidentId);
}

/** The dedup read of a key whose monitor this instance knows, started at once (see `ingestEvent`); undefined otherwise. */
export function prefetchDedup(key: string, dedupKey: string): PrefetchedRead | undefined {
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
 * A repeat trigger: one UpdateItem of the open incident (a conflict with a repeat's transaction on it
 * retried, `sendWrite`). `counted: false` when it is resolved (the claim is stale); `reopened` when it
 * was resolved once (a hint to it would be refused, see `countRepeat`).
 */
async function countTrigger(incidentId: string): Promise<{ counted: boolean; reopened?: boolean }> {
  try {
    const { Attributes } = await sendWrite(() => db().send(new UpdateCommand({ ...countAlert(incidentId), ReturnValues: 'ALL_NEW' })));
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
 * A transaction that collides with another on these items is not retried: the event takes the read
 * path (under a storm of one key, transactions on its lookup item would make each other back off until
 * the function's timeout; single writes wait their turn). A window another request started first is
 * retried by `retryOnConflict` (as `admitKey`). Undefined when there is nothing
 * to go on, or a hint was refused (forgotten): the caller takes the full path, which reads. A refused
 * transaction wrote nothing, so nothing is counted twice.
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
  const send = (start: boolean, minute: number, now: Date) => {
    const rate = minuteUpdate(EVENT_RATE, start, minute, now);
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
    // A conflict with another transaction on these items (a storm's repeats all write the key's item) is
    // not waited out: the event takes the read path, whose single writes queue on the item instead.
    return transactOutcome(actions, { conflictRetryMs: 0 }).catch((error: unknown) => {
      if (conflicted(error)) return 'conflict' as const;
      throw error;
    });
  };
  const settled = await retryOnConflict<RepeatOutcome | 'read'>(async () => {
    const now = clock.now();
    const minute = minuteOf(now);
    let current = minute;
    let written = await send(false, minute, now);
    if (written === 'conflict') return 'read';
    if (written.outcome === 'key' && written.item) {
      // The key's current minute: ours, or a later one an instance whose clock is a little ahead started.
      current = currentMinute(EVENT_RATE, written.item, minute);
      if (!minuteFull(EVENT_RATE, written.item, current)) {
        // The key's first event of a new window: start it; a later one's: count in it (count again if it changed meanwhile).
        written = await send(minuteOlder(EVENT_RATE, written.item, minute), current, now);
        if (written === 'conflict') return 'read';
        if (written.outcome === 'key' && written.item && !minuteFull(EVENT_RATE, written.item, current)) return undefined;
      }
    }
    switch (written.outcome) {
      case 'ok':
        return { outcome: 'counted' };
      case 'key':
        if (!written.item) {
          knownKeys.delete(keyHash);
          return { outcome: 'unknown' };
        }
        return { outcome: 'rate', retryAfterSeconds: secondsLeftIn(current, now) };
      case 'monitor':
        knownKeys.delete(keyHash);
        return { outcome: 'monitor_gone' };
      case 'incident':
        dedupHints.delete(hint);
        return 'read';
    }
  }, rateWindowGaveUp);
  return settled === 'read' ? undefined : settled;
}

/**
 * A trigger through the paging flow's entry (`raise`): the dedup key's open incident counts it, or a
 * new one opens, claiming the key. `first`: the dedup read already made. The incident that holds the
 * key is remembered for the next repeat, unless it was resolved once (`countRepeat` would refuse it).
 */
async function trigger(
  integration: IntegrationRef,
  event: TriggerEvent & { message?: string | null; state?: string; fields?: Record<string, unknown>; alertDetails?: AlertDetails },
  first?: SignalRead,
): Promise<IngestOutcome> {
  let reopened = false;
  const raised = await raise(
    {
      monitorId: integration.monitorId,
      claim: {
        key: keys.alertDedup(integration.monitorId, event.dedupKey),
        type: 'alert_dedup',
        fields: { dedup_key: event.dedupKey, ...(event.state === undefined ? {} : { alert_state: event.state }) },
      },
      what: `dedup key ${event.dedupKey}`,
      incident: () => ({
        title: event.title,
        severity: event.severity,
        message: event.message ?? null,
        fields: {
          alert_count: 1,
          last_alert_at: clock.nowIso(),
          dedup_key: event.dedupKey,
          ...event.fields,
          ...(event.alertDetails ? { alert_details: event.alertDetails } : {}),
        },
        createdDetails: {
          integration_id: integration.integrationId,
          integration_name: integration.integrationName,
          dedup_key: event.dedupKey,
          ...(event.summary !== event.title ? { summary: event.summary } : {}),
          ...(event.alertDetails ? { alert_details: event.alertDetails } : {}),
        },
      }),
      addTo: async (incidentId) => {
        const count = await countTrigger(incidentId);
        reopened = count.reopened ?? false;
        return count.counted;
      },
    },
    first,
  );
  if (raised.outcome === 'monitor_gone') return 'monitor_gone';
  if (raised.outcome === 'opened' || !reopened) remember(dedupHints, dedupHintKey(integration.monitorId, event.dedupKey), raised.incident_id);
  return raised.outcome === 'opened' ? 'opened' : 'counted';
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

/**
 * New incidents the alerts of a key's webhook notifications may open a minute (issue 41 §4): the key's
 * rate, counted in incidents opened, not in requests (a 1 MiB notification carries about 18,000 alerts).
 * Counted in fixed one-minute windows in the key's lookup item (`open_window`, `open_count`), beside the
 * request rate. Alerts past it are folded into the key's overflow incident (`applyWebhookAlert`).
 */
export const OPENS_PER_MINUTE = EVENTS_PER_MINUTE;

/** A key's new incidents, counted in its lookup item beside its events (`../integrations/key-rate.ts`). */
const OPENING_RATE: KeyRate = { window: 'open_window', count: 'open_count', max: OPENS_PER_MINUTE, first: 'count' };

/** One new incident taken from the key's allowance of the current minute; `unknown`: the key is gone. */
export async function takeOpening(keyHash: string): Promise<'granted' | 'refused' | 'unknown'> {
  const taken = await countInMinute(keyHash, OPENING_RATE);
  return taken.ok ? 'granted' : taken.reason === 'unknown' ? 'unknown' : 'refused';
}

/** The dedup key of an integration's overflow incident (`~` starts no fingerprint Alertmanager or Grafana makes). */
export const overflowDedupKey = (integrationId: string) => `~overflow~${integrationId}`;

/** What applying one alert of a notification did: `repeated`, a state already applied; `folded`, into the overflow incident. */
export type WebhookOutcome = IngestOutcome | 'repeated' | 'folded';

/** One alert batch being applied: its integration, its key's hash (the allowance), what it folded. */
export interface AlertBatchContext {
  integration: IntegrationRef;
  keyHash: string;
  overflow?: { incidentId: string; opened: boolean };
  folded: { dedupKey: string; title: string }[];
  /** The minute whose allowance this batch found used up (a window's count only grows: no need to ask again). */
  refusedWindow?: number;
}

/** A webhook alert as applied: an event with its state. */
export type WebhookIngestEvent = IngestEvent & { state: string };

/** Records on an alert's claim the state it was applied in (the claim still naming `incidentId`). */
async function recordState(monitorId: string, dedupKey: string, incidentId: string, state: string) {
  try {
    await sendWrite(() =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.alertDedup(monitorId, dedupKey),
          UpdateExpression: 'SET alert_state = :state',
          ConditionExpression: 'incident_id = :incident',
          ExpressionAttributeValues: { ':state': state, ':incident': incidentId },
        }),
      ),
    );
  } catch (error) {
    if (!conditionFailure(error)) throw error;
  }
}

/**
 * Applies one alert of a webhook notification (the alert processor, `intake.ts`), once per alert state:
 * - a firing alert whose claim records this state was applied already (a re-sent notification): nothing;
 * - one whose incident is open counts on it (and its claim records the new state);
 * - otherwise it needs a new incident: one from the key's allowance of the minute (`takeOpening`) opens
 *   it; past the allowance the alert is folded into the integration's overflow incident (opened once,
 *   listing what it holds), its claim naming that incident, so re-sends of it are repeats;
 * - a resolved alert resolves its incident (of the same state: a late resolve of an earlier firing
 *   changes nothing); a folded one only releases its claim.
 */
export async function applyWebhookAlert(context: AlertBatchContext, event: WebhookIngestEvent, first?: SignalRead, again = false): Promise<WebhookOutcome> {
  const { integration } = context;
  // The batch's read (`first`) may be a moment old: every write below is conditional on what it relies on.
  const read = first ?? (await readDedup(integration.monitorId, event.dedupKey));
  if (!read.monitor) return 'monitor_gone';
  const claim = read.claim;
  const sameState = claim?.alert_state === event.state;
  if (event.action !== 'trigger') {
    if (!read.claimed) return 'ignored';
    if (claim?.alert_state !== undefined && !sameState) return 'ignored';
    if (claim?.folded === true) return (await releaseClaim(integration.monitorId, event.dedupKey, read.claimed)) ? 'resolved' : 'ignored';
    return event.action === 'acknowledge' ? acknowledge(integration, read.claimed) : resolve(integration, event.dedupKey, read.claimed);
  }
  if (read.claimed && sameState) return 'repeated';
  if (read.claimed && (await countTrigger(read.claimed)).counted) {
    await recordState(integration.monitorId, event.dedupKey, read.claimed, event.state);
    return 'counted';
  }
  const window = minuteOf(clock.now());
  const allowance = context.refusedWindow === window ? 'refused' : await takeOpening(context.keyHash);
  if (allowance === 'unknown') return 'ignored';
  if (allowance === 'granted') return trigger(integration, event, read);
  context.refusedWindow = window;
  return fold(context, event, read.claimed, again);
}

/** Deletes a folded alert's claim (still naming the overflow incident). */
async function releaseClaim(monitorId: string, dedupKey: string, incidentId: string): Promise<boolean> {
  try {
    await sendWrite(() =>
      db().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.alertDedup(monitorId, dedupKey),
          ConditionExpression: 'incident_id = :incident',
          ExpressionAttributeValues: { ':incident': incidentId },
        }),
      ),
    );
    return true;
  } catch (error) {
    if (conditionFailure(error)) return false;
    throw error;
  }
}

/** A trigger past the allowance: claimed for the overflow incident (opened at the batch's first fold). */
async function fold(context: AlertBatchContext, event: WebhookIngestEvent & TriggerEvent, stale: string | undefined, again: boolean): Promise<WebhookOutcome> {
  const { integration } = context;
  if (!context.overflow) {
    const opened = await openOverflow(integration, event.severity);
    if (!opened) return 'monitor_gone';
    context.overflow = opened;
  }
  try {
    await sendWrite(() =>
      db().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.alertDedup(integration.monitorId, event.dedupKey),
            type: 'alert_dedup',
            incident_id: context.overflow!.incidentId,
            dedup_key: event.dedupKey,
            alert_state: event.state,
            folded: true,
          },
          ConditionExpression: stale ? `${itemAbsent} OR incident_id = :stale` : itemAbsent,
          ExpressionAttributeValues: stale ? { ':stale': stale } : undefined,
        }),
      ),
    );
  } catch (error) {
    if (!conditionFailure(error)) throw error;
    // Claimed meanwhile (another batch opened its incident): apply it again, once, to what claims it now.
    return again ? 'ignored' : applyWebhookAlert(context, event, undefined, true);
  }
  context.folded.push({ dedupKey: event.dedupKey, title: event.title });
  return 'folded';
}

/**
 * The integration's overflow incident: the open one, or a new one (one claim per integration, so at most
 * one is open; it pages and e-mails once as any alert incident does). Undefined: the monitor is gone.
 */
async function openOverflow(integration: IntegrationRef, severity: Severity): Promise<{ incidentId: string; opened: boolean } | undefined> {
  const dedupKey = overflowDedupKey(integration.integrationId);
  const raised = await raise({
    monitorId: integration.monitorId,
    claim: { key: keys.alertDedup(integration.monitorId, dedupKey), type: 'alert_dedup', fields: { dedup_key: dedupKey, overflow: true } },
    what: 'the overflow incident',
    incident: () => ({
      title: incidentTitle(`More than ${OPENS_PER_MINUTE} new alerts a minute from ${integration.integrationName}`, `More than ${OPENS_PER_MINUTE} new alerts a minute`),
      severity,
      message: `Alerts of ${integration.integrationName} that would have opened more than ${OPENS_PER_MINUTE} incidents in a minute are folded into this incident; its timeline lists them. Each counts here until it resolves.`,
      fields: { alert_count: 1, last_alert_at: clock.nowIso(), dedup_key: dedupKey },
      createdDetails: { integration_id: integration.integrationId, integration_name: integration.integrationName, dedup_key: dedupKey },
    }),
  });
  if (raised.outcome === 'monitor_gone') return undefined;
  return { incidentId: raised.incident_id, opened: raised.outcome === 'opened' };
}

/** Lines of one folded-alerts note (a note holds at most 5,000 characters). */
const FOLDED_NOTE_MAX = 5_000;

/**
 * After a batch: the overflow incident counts what the batch folded into it (`alert_count`, which its
 * opening already counted one of) and lists them in a timeline note, `title (fingerprint)` a line.
 */
export async function recordFolded(context: AlertBatchContext): Promise<void> {
  const { overflow, folded } = context;
  if (!overflow || folded.length === 0) return;
  const added = folded.length - (overflow.opened ? 1 : 0);
  let status: Status;
  try {
    const { Attributes } = await sendWrite(() =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.incident(overflow.incidentId),
          UpdateExpression: 'SET last_alert_at = :now ADD alert_count :added',
          ConditionExpression: itemPresent,
          ExpressionAttributeValues: { ':now': clock.nowIso(), ':added': added },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    status = Attributes!.status as Status;
  } catch (error) {
    if (conditionFailure(error)) return;
    throw error;
  }
  const header = `${folded.length} alert${folded.length === 1 ? '' : 's'} past the rate of ${OPENS_PER_MINUTE} new incidents a minute, folded into this incident:`;
  const lines: string[] = [];
  let length = header.length;
  for (const [index, alert] of folded.entries()) {
    const line = `- ${alert.title} (${alert.dedupKey})`;
    const rest = `- … and ${folded.length - index} more`;
    if (length + 1 + line.length + 1 + rest.length > FOLDED_NOTE_MAX) {
      lines.push(rest);
      break;
    }
    lines.push(line);
    length += 1 + line.length;
  }
  const entry = timelineEntry({ kind: 'note', incident: { id: overflow.incidentId, status }, at: clock.nowIso(), actor: null, message: [header, ...lines].join('\n') });
  await db().send(new PutCommand({ TableName: tableName(), Item: entryRecord(entry), ConditionExpression: itemAbsent }));
}
