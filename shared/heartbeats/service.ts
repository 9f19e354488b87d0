/**
 * Heartbeats (issue 30 §4), the dead man's switch: a monitor with `heartbeat` settings expects a ping
 * (`POST /heartbeats/{key}`, the key one of its integration keys) at least every `interval_seconds`,
 * with `grace_seconds` of slack. Its state is an item of its own, `MONITOR#<id>` / `HEARTBEAT` (the
 * incident-opening transaction already writes the monitor item, and a transaction takes one action
 * per item): the period, the last ping and the deadline in epoch seconds. While armed it is in the
 * sparse `heartbeat-due` index (`HEARTBEAT#<first hex digit of the monitor id>`, by deadline), which
 * the sweep queries every minute; a missed heartbeat is a signal of the paging flow (`../paging/`):
 * it opens an automatic incident as a failed check does (claimed by `HEARTBEAT_INCIDENT`), leaves
 * the index and remembers the incident; the next ping re-arms it and resolves the incident as
 * recovered; turning the heartbeat off, or deleting the monitor, resolves it with a note
 * (`missedIncidentResolution`, which the monitor handlers pass to the monitor's change).
 */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { itemPresent, keys } from '../platform/db/keys.js';
import { conditionFailure } from '../platform/db/ops.js';
import { resolveAutomaticIncident } from '../paging/resolve.js';
import { raise } from '../paging/signal.js';
import type { TransactItem } from '../platform/db/ops.js';
import * as incidents from '../incidents/repository.js';
import { applyChanges, statusEvents } from '../incidents/changes.js';
import { changeEntries, entryPut, timelineEntry, timelinePut, type Actor } from '../incidents/timeline.js';
import { epochSeconds, HEARTBEAT_INDEX, heartbeatNotFound, SHARDS } from '../monitors/heartbeats.js';
import { integrationKeyItem } from '../integrations/model.js';
import { integrationKeyHash, isIntegrationKeyShaped, KEY_RATE_MESSAGE } from '../integrations/keys.js';
import { TooManyRequestsError } from '../platform/errors.js';
import { countInMinute, type KeyRate } from '../integrations/key-rate.js';

/**
 * Pings a key may make a minute (issue 46 §4): counted in fixed one-minute windows in the key's lookup
 * item, apart from its events' count (`ingest.ts`), so that one noisy client meets its key's limit, a
 * 429 with `Retry-After`, and never the route's shared throttling (docs/deployment.md). A heartbeat
 * expects a ping a minute at most; 60 leave room for many hosts sharing one URL.
 */
export const PINGS_PER_MINUTE = 60;

/** A key's pings, counted in its lookup item (`../integrations/key-rate.ts`); a ping usually starts its key's minute. */
const PING_RATE: KeyRate = { window: 'hb_rate_window', count: 'hb_rate_count', max: PINGS_PER_MINUTE, first: 'start' };

/**
 * Admits one ping of a key: its monitor, counted against PINGS_PER_MINUTE in the key's lookup item. A
 * ping that starts the key's minute (the common case: a heartbeat pings every minute or less often) is
 * one UpdateItem; a further one in the same minute two; a refused one, or an unknown key, one (and
 * an unknown key writes nothing).
 */
async function admitPing(key: string): Promise<string> {
  const counted = await countInMinute(integrationKeyHash(key), PING_RATE, (attempts) => `The key's ping window kept changing; gave up after ${attempts} attempts`);
  if (counted.ok) return integrationKeyItem.parse(counted.item).monitor_id;
  if (counted.reason === 'unknown') throw heartbeatNotFound();
  throw new TooManyRequestsError(KEY_RATE_MESSAGE, counted.retryAfterSeconds);
}

/**
 * One ping of `key`: admitted (`admitPing`: unknown or revoked, 404; past its rate, 429) and one
 * UpdateItem of the heartbeat item, which moves the deadline a period on and puts it back in the index
 * (no heartbeat on the key's monitor: 404). After a miss, the incident it remembered is resolved as recovered.
 */
export async function pingHeartbeat(key: string): Promise<void> {
  if (!isIntegrationKeyShaped(key)) throw heartbeatNotFound();
  const monitorId = await admitPing(key);
  let before: Record<string, unknown> | undefined;
  try {
    ({ Attributes: before } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.monitorHeartbeat(monitorId),
        UpdateExpression: 'SET last_ping_at = :now, hb_deadline = :epoch + period_seconds, hb_due_pk = hb_shard REMOVE missed_incident_id',
        ConditionExpression: itemPresent,
        ExpressionAttributeValues: { ':now': clock.nowIso(), ':epoch': epochSeconds() },
        ReturnValues: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (conditionFailure(error)) throw heartbeatNotFound();
    throw error;
  }
  const missed = before?.missed_incident_id;
  if (typeof missed === 'string') await resolveAutomaticIncident(missed, keys.monitorHeartbeatIncident);
}

/**
 * Time a sweep keeps in hand when it stops (issue 46 §4): a miss under way (its incident, a page due at
 * once) finishes well within it, so the invocation ends before its timeout, never in its dead-letter queue.
 */
export const SWEEP_RESERVE_MS = 10_000;
/** Misses a sweep handles at once. */
const SWEEP_CONCURRENCY = 8;

/** How much time a sweep has: the invocation's remaining time (Lambda's context), or a test's. */
export interface SweepBudget {
  remainingMs(): number;
}

export interface SweepResult {
  handled: number;
  /** Stopped with time running out: what is still due is the next run's (a minute later), found in the index again. */
  more: boolean;
}

/**
 * The sweep (every minute): every armed heartbeat whose deadline has passed, shard by shard, opens its
 * incident, several at once. With a `budget`, it stops while SWEEP_RESERVE_MS remain and leaves the
 * rest to the next run: a miss handled has left the due index, so no run handles it again, and a mass
 * miss (an outage) is worked through run after run rather than timed out every minute. Each run starts
 * at another shard (by the minute), so no shard waits behind a full one.
 */
export async function sweepHeartbeats(budget?: SweepBudget): Promise<SweepResult> {
  const now = epochSeconds();
  const outOfTime = () => budget !== undefined && budget.remainingMs() < SWEEP_RESERVE_MS;
  const first = Math.floor(now / 60) % SHARDS.length;
  let handled = 0;
  for (const shard of SHARDS.slice(first) + SHARDS.slice(0, first)) {
    let start: Record<string, unknown> | undefined;
    do {
      // (The time is looked at before each miss: a Query of the index takes milliseconds.)
      const page = await db().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: HEARTBEAT_INDEX,
          KeyConditionExpression: 'hb_due_pk = :shard AND hb_deadline <= :now',
          ExpressionAttributeValues: { ':shard': `HEARTBEAT#${shard}`, ':now': now },
          ExclusiveStartKey: start,
        }),
      );
      const items = page.Items ?? [];
      let next = 0;
      let stopped = false;
      await Promise.all(
        Array.from({ length: Math.min(SWEEP_CONCURRENCY, items.length) }, async () => {
          while (next < items.length) {
            if (outOfTime()) {
              stopped = true;
              return;
            }
            const item = items[next++]!;
            await missHeartbeat(String(item.monitor_id), Number(item.hb_deadline));
            handled++;
          }
        }),
      );
      if (stopped) return { handled, more: true };
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return { handled, more: false };
}

/**
 * A heartbeat past `deadline`: opens "<monitor> missed its heartbeat" (or finds it open) through the
 * paging flow's one entry (`raise`), then takes the heartbeat out of the index remembering the
 * incident, on the condition that no ping moved the deadline meanwhile; if one did, the incident is
 * resolved at once (the ping came).
 */
async function missHeartbeat(monitorId: string, deadline: number): Promise<void> {
  const raised = await raise({
    monitorId,
    claim: { key: keys.monitorHeartbeatIncident(monitorId), type: 'heartbeat_incident_marker' },
    what: 'its missed heartbeat',
    incident: (monitor) => ({
      title: `${monitor.name} missed its heartbeat`.slice(0, 200),
      severity: 'HIGH',
      message: monitor.heartbeat
        ? `No ping within ${monitor.heartbeat.interval_seconds} s (plus ${monitor.heartbeat.grace_seconds} s of grace) of the last one`
        : null,
    }),
  });
  if (raised.outcome === 'monitor_gone') return; // Deleted: its collection (the heartbeat item with it) is being purged.
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.monitorHeartbeat(monitorId),
        UpdateExpression: 'SET missed_incident_id = :incident REMOVE hb_due_pk',
        ConditionExpression: 'hb_deadline = :deadline AND attribute_exists(hb_due_pk)',
        ExpressionAttributeValues: { ':incident': raised.incident_id, ':deadline': deadline },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (error) {
    const failed = conditionFailure(error);
    if (!failed) throw error;
    // Another sweep (an overlapping or retried invocation) recorded this very miss first: it stands.
    if (failed.item?.hb_deadline === deadline && failed.item?.missed_incident_id === raised.incident_id) return;
    // A ping moved the deadline (or the heartbeat was turned off) after the read: nothing is missing.
    await resolveAutomaticIncident(raised.incident_id, keys.monitorHeartbeatIncident);
  }
}

/** Why a missed-heartbeat incident is resolved with its heartbeat: the note on its timeline says so. */
export const HEARTBEAT_GONE_NOTES = {
  off: 'The heartbeat was turned off, so no ping is expected any more: resolved automatically.',
  monitor_deleted: 'The monitor was deleted with its heartbeat, so no ping is expected any more: resolved automatically.',
} as const;

/**
 * What resolves the monitor's open missed-heartbeat incident in the transaction that turns its
 * heartbeat off (`heartbeat: null`) or deletes the monitor: the incident's change on the condition
 * that it is as read (failing: `changed`, the caller reads again), its claim released, a note by
 * `actor` saying why, the `resolved` entry and the `incident.resolved` event carrying the note.
 * Nothing when no such incident is open. Reads the claim, then the incident it names.
 */
export async function missedIncidentResolution(monitorId: string, actor: Exclude<Actor, null>, why: keyof typeof HEARTBEAT_GONE_NOTES): Promise<TransactItem[]> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.monitorHeartbeatIncident(monitorId), ConsistentRead: true }));
  const incidentId = typeof Item?.incident_id === 'string' ? Item.incident_id : undefined;
  const current = incidentId ? await incidents.getIncident(incidentId) : undefined;
  if (!current || current.status === 'RESOLVED') return [];
  const now = incidents.writeInstant(current);
  const next = applyChanges(current, { status: 'RESOLVED' }, now);
  const note = timelineEntry({ kind: 'note', incident: next, at: now, actor, message: HEARTBEAT_GONE_NOTES[why] });
  return [
    incidents.incidentChangeUpdate(current, next),
    {
      Delete: {
        TableName: tableName(),
        Key: keys.monitorHeartbeatIncident(monitorId),
        ConditionExpression: 'incident_id = :incident',
        ExpressionAttributeValues: { ':incident': current.id },
      },
    },
    ...statusEvents(current, next, now, note),
    entryPut(note),
    ...changeEntries(current, next, actor, now, 1).map(timelinePut),
  ];
}
