/**
 * Paging, stage 1 — a signal: something outside says a monitor is failing (a check past its
 * threshold, an alert from a monitoring tool, a missed heartbeat). Every signal comes in through
 * `raise`: it opens the monitor's automatic incident for that signal (`open.ts`), or finds the one
 * already open and lets the signal add to it (an alert counts itself on it). Which incident is
 * "that signal's" is settled by its claim, one item per (monitor, signal), written in the opening
 * transaction on the condition that it is absent or names a resolved incident; so retries and
 * concurrent signals open one incident, and a resolved one is never reopened. A claim lost to a
 * concurrent signal is read again (`retryOnConflict`).
 */
import { tableName } from '../platform/db/client.js';
import { itemAbsent, keys, type Key } from '../platform/db/keys.js';
import { getByKeys, type TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import * as incidents from '../incidents/repository.js';
import { monitorItem, type Monitor } from '../monitors/model.js';
import { openAutomaticIncident, type AutomaticIncidentSpec } from './open.js';

export interface Signal {
  monitorId: string;
  /** The signal's claim: the item at `key`, of `type`, with `fields` beside the incident's id. */
  claim: { key: Key; type: string; fields?: Record<string, unknown> };
  /** What could not be settled when the attempts run out (`Monitor <id>: could not settle <what> after 5 attempts`). */
  what: string;
  /** The incident to open, for the monitor as read. */
  incident: (monitor: Monitor) => Omit<AutomaticIncidentSpec, 'monitor' | 'claim'>;
  /**
   * What the signal does to the open incident its claim names; false when that incident turns out
   * resolved (the claim is stale: open a new one). By default it only looks: open unless RESOLVED.
   */
  addTo?: (incidentId: string) => Promise<boolean>;
}

/** The monitor and the incident its signal's claim names, as read together (one BatchGetItem). */
export interface SignalRead {
  monitor: Monitor | undefined;
  claimed: string | undefined;
  /** The claim item as read (an alert's records the alert state it was last applied in). */
  claim?: Record<string, unknown>;
}

export type RaiseOutcome = { outcome: 'opened' | 'already_open'; incident_id: string } | { outcome: 'monitor_gone' };

export async function readSignal(monitorId: string, claimKey: Key): Promise<SignalRead> {
  const read = await getByKeys({ monitor: keys.monitor(monitorId), claim: claimKey });
  return {
    monitor: read.monitor ? monitorItem.parse(read.monitor) : undefined,
    claimed: typeof read.claim?.incident_id === 'string' ? read.claim.incident_id : undefined,
    claim: read.claim,
  };
}

const stillOpen = async (incidentId: string) => {
  const current = await incidents.getIncident(incidentId);
  return Boolean(current && current.status !== 'RESOLVED');
};

/**
 * The claim on `key` for a new incident: a Put on the condition that no claim is there, or that it
 * still names the incident it was read naming (`stale`: since resolved).
 */
const claimPut = (key: Key, type: string, stale: string | undefined, fields: Record<string, unknown> = {}) => (incidentId: string): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...key, type, incident_id: incidentId, ...fields },
    ConditionExpression: stale ? `${itemAbsent} OR incident_id = :stale` : itemAbsent,
    ExpressionAttributeValues: stale ? { ':stale': stale } : undefined,
  },
});

/**
 * Takes one signal: opens its incident, or adds to the open one. `first`: the signal's read when the
 * caller already made it (a check reads the monitor for its threshold); later attempts read again.
 */
export function raise(signal: Signal, first?: SignalRead): Promise<RaiseOutcome> {
  let read = first;
  return retryOnConflict<RaiseOutcome>(async () => {
    const { monitor, claimed } = read ?? (await readSignal(signal.monitorId, signal.claim.key));
    read = undefined;
    if (!monitor) return { outcome: 'monitor_gone' };
    if (claimed && (await (signal.addTo ?? stillOpen)(claimed))) return { outcome: 'already_open', incident_id: claimed };
    const opened = await openAutomaticIncident({
      monitor,
      ...signal.incident(monitor),
      claim: claimPut(signal.claim.key, signal.claim.type, claimed, signal.claim.fields),
    });
    if (opened) return { outcome: 'opened', incident_id: opened.id };
    // Another signal claimed it first (look at what it opened), or the monitor moved to another team
    // or was deleted meanwhile (read it again).
    return undefined;
  }, (attempts) => `Monitor ${signal.monitorId}: could not settle ${signal.what} after ${attempts} attempts`);
}
