/**
 * Automatic incidents: opened by a signal (a failed monitor check, an alert from a monitoring tool)
 * rather than a person, and resolved by one (recovery, the tool's resolve). Both signals go through
 * these two functions, so an alert pages, e-mails subscribers and writes the timeline exactly as a
 * failed check does: the same items, the same outbox events, in one transaction.
 *
 * What keeps an automatic incident from being opened twice is the caller's `claim`: an item written
 * in the opening transaction on the condition that it is absent (or points at a resolved incident),
 * and released in the resolving one — the monitor's open-incident marker for checks, one dedup item
 * per (monitor, dedup key) for alerts.
 */
import { randomUUID } from 'node:crypto';
import { clock } from '../platform/clock.js';
import { tableName } from '../platform/db/client.js';
import { itemAbsent, keys, type Key } from '../platform/db/keys.js';
import type { TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { getPolicy } from '../escalation/repository.js';
import { incidentSteps, resolvedAtPage } from '../escalation/model.js';
import { outboxPut } from '../platform/events/outbox.js';
import { incidentSnapshot } from '../platform/events/snapshots.js';
import { countMetric } from '../platform/observability/metrics.js';
import type { Monitor } from '../monitors/model.js';
import { countIncident } from '../monitors/repository.js';
import type { Incident, Severity } from './model.js';
import * as incidents from './repository.js';
import { applyChanges, statusEvents } from './service.js';
import { changeEntries, createdEntry, pagedEntry, timelinePut, type TimelineDetails } from './timeline.js';

/**
 * The claim on `key` for a new incident, a Put on the condition that no claim is there, or that it
 * still names the incident it was read naming (`stale`: since resolved by a person).
 */
export const claimPut = (key: Key, type: string, stale: string | undefined, fields: Record<string, unknown> = {}) => (incidentId: string): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...key, type, incident_id: incidentId, ...fields },
    ConditionExpression: stale ? `${itemAbsent} OR incident_id = :stale` : itemAbsent,
    ExpressionAttributeValues: stale ? { ':stale': stale } : undefined,
  },
});

export interface AutomaticIncidentSpec {
  monitor: Monitor;
  title: string;
  severity: Severity;
  message: string | null;
  /** The item that makes this the only open incident of its signal, for the incident's id (its condition fails: `claim_taken`). */
  claim: (incidentId: string) => TransactItem;
  /** Fields of the incident item beyond the common ones (an alert's count, dedup key and integration). */
  fields?: Partial<Incident>;
  /** Added to the `created` timeline entry's details (the integration an alert came from). */
  createdDetails?: TimelineDetails;
}

/**
 * Writes the incident, its escalation steps (a step due at once paged in this very transaction,
 * marked sent, with its event and timeline entry), the claim, the monitor's incident count (on the
 * condition that the monitor is still in the scope read), the `incident.created` event and the
 * `created` entry in one transaction. Answers the incident, or nothing if the claim was taken first
 * or the monitor moved (the caller reads again).
 */
export async function openAutomaticIncident(spec: AutomaticIncidentSpec): Promise<Incident | undefined> {
  const { monitor } = spec;
  const now = clock.nowIso();
  const policy = monitor.escalation_policy_id ? await getPolicy(monitor.escalation_policy_id) : undefined;
  const incident: Incident = {
    id: randomUUID(),
    monitor_id: monitor.id,
    monitor_name: monitor.name,
    owner_id: monitor.owner_id,
    title: spec.title,
    message: spec.message,
    status: 'INVESTIGATING',
    severity: spec.severity,
    acknowledged: false,
    automatic: true,
    started_at: now,
    resolved_at: null,
    escalation_policy_id: policy ? policy.id : null,
    team_id: monitor.team_id,
    team_seq: monitor.team_seq,
    created_at: now,
    updated_at: now,
    ...spec.fields,
  };
  const steps = (policy ? incidentSteps(policy) : []).map((step) => ({
    ...step,
    due_at: new Date(Date.parse(now) + step.delay_minutes * 60_000).toISOString(),
  }));
  // A step due at once (delay 0) is paged in this very transaction — marked sent, with its event —
  // unless it has schedule or person targets: those are resolved at the page, by the escalation
  // scheduler at once.
  const pagedNow = steps.filter((step) => step.delay_minutes === 0 && !resolvedAtPage(step));
  const stepItems: TransactItem[] = steps.map((step) => ({
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.escalationStep(incident.id, step.step_order),
        type: 'escalation_step',
        incident_id: incident.id,
        ...step,
        ...(pagedNow.includes(step) ? { sent_at: now } : {}),
      },
    },
  }));
  const pages = pagedNow.map((step) =>
    outboxPut(
      'incident.escalation_step',
      { incident: incidentSnapshot(incident), step: { step_order: step.step_order, delay_minutes: step.delay_minutes, emails: step.emails } },
      now,
    ),
  );
  const created = outboxPut(
    'incident.created',
    {
      incident: incidentSnapshot(incident),
      escalation: policy
        ? { policy_id: policy.id, steps: steps.map(({ step_order, delay_minutes, due_at }) => ({ step_order, delay_minutes, due_at })) }
        : null,
    },
    now,
  );
  const entry = createdEntry(incident, null);
  const { outcome } = await incidents.insertIncident(incident, [
    ['claim_taken', spec.claim(incident.id)],
    ['moved', countIncident(monitor)],
    ...stepItems.map((item) => ['conflict', item] as const),
    ['conflict', created],
    ...pages.map((item) => ['conflict', item] as const),
    // The timeline: opened by the signal (with its message), then each step paged at once.
    ['conflict', timelinePut({ ...entry, details: { ...entry.details, ...spec.createdDetails } })],
    ...pagedNow.map((step, index) => ['conflict', timelinePut(pagedEntry(incident, step, now, index + 1))] as const),
  ]);
  if (outcome === 'ok') {
    countMetric('IncidentCreated', { kind: 'automatic' });
    for (const step of pagedNow) countMetric('EscalationStepSent', { step: String(step.step_order) });
    return incident;
  }
  if (outcome === 'conflict') throw new Error(`Unexpected conflict opening incident ${incident.id}`);
  return undefined;
}

/**
 * Resolves an automatic incident and releases its claim (the item at `claimKey(monitorId)`, deleted on
 * the condition that it still names the incident), with the `incident.resolved` event and the
 * `resolved` entry (`resolvedDetails` added to it: by whom). Already resolved (by a person): only the
 * stale claim goes; `false`.
 */
export async function resolveAutomaticIncident(
  incidentId: string,
  claimKey: (monitorId: string) => Key,
  resolvedDetails: TimelineDetails = {},
): Promise<boolean> {
  const release = (monitorId: string): TransactItem => ({
    Delete: {
      TableName: tableName(),
      Key: claimKey(monitorId),
      ConditionExpression: 'incident_id = :incident',
      ExpressionAttributeValues: { ':incident': incidentId },
    },
  });
  return retryOnConflict(async () => {
    const current = await incidents.getIncident(incidentId);
    if (!current || current.status === 'RESOLVED') {
      // Already resolved by hand: manual resolution wins; only the stale claim goes.
      if (current) await incidents.releaseMarker(release(current.monitor_id));
      return false;
    }
    const now = incidents.writeInstant(current);
    const next = applyChanges(current, { status: 'RESOLVED' }, now);
    const { outcome } = await incidents.writeIncidentChange(current, next, [
      release(current.monitor_id),
      ...statusEvents(current, next, now),
      ...changeEntries(current, next, null, now).map((spec) => timelinePut({ ...spec, details: { ...spec.details, ...resolvedDetails } })),
    ]);
    if (outcome === 'ok') {
      countMetric('IncidentResolved');
      return true;
    }
    return undefined;
  }, (attempts) => `Incident ${incidentId}: could not resolve after ${attempts} attempts`);
}
