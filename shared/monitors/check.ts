/**
 * Monitor checks from the monitoring system: failures beyond the threshold open ONE automatic
 * incident per monitor; recovery resolves it. The "open automatic incident" marker is a single
 * item per monitor, claimed with a conditional write, so retries and parallel checks cannot open
 * a second incident. A marker whose incident was resolved (by PUT, DELETE or recovery) is stale:
 * the next failure replaces it with a new incident, and the resolved one is never reopened.
 */
import { randomUUID } from 'node:crypto';
import * as z from '../zod.js';
import { Text } from '../api/common.js';
import { clock } from '../clock.js';
import { tableName } from '../db/client.js';
import { itemAbsent, keys } from '../db/keys.js';
import { getByKeys, type TransactItem } from '../db/ops.js';
import { getPolicy } from '../escalation/repository.js';
import { incidentSteps, resolvedAtPage } from '../escalation/model.js';
import { outboxPut } from '../events/outbox.js';
import { incidentSnapshot } from '../events/snapshots.js';
import { NotFoundError } from '../errors.js';
import { countMetric } from '../observability/metrics.js';
import type { Incident } from '../incidents/model.js';
import * as incidents from '../incidents/repository.js';
import { applyChanges, statusEvents } from '../incidents/service.js';
import { changeEntries, createdEntry, pagedEntry, timelinePut } from '../incidents/timeline.js';
import { monitorItem } from './model.js';
import { countIncident } from './repository.js';

export const monitorCheckInput = z.strictObject({
  monitorId: z.uuid(),
  status: z.enum(['down', 'up']),
  consecutiveFailures: z.int().check(z.minimum(0)),
  checkedAt: z.iso.datetime({ offset: true }),
  message: z.optional(Text({ max: 10_000, multiline: true })),
});
export type MonitorCheckInput = z.output<typeof monitorCheckInput>;

export type CheckOutcome =
  | 'below_threshold'
  | 'incident_opened'
  | 'incident_already_open'
  | 'incident_resolved'
  | 'no_open_incident';

export interface CheckResult {
  ok: true;
  outcome: CheckOutcome;
  incident_id?: string;
}

const openIncidentMarker = z.object({ incident_id: z.string() });

const MAX_ATTEMPTS = 5;

export async function processMonitorCheck(input: MonitorCheckInput): Promise<CheckResult> {
  const read = await getByKeys({ monitor: keys.monitor(input.monitorId), marker: keys.monitorOpenIncident(input.monitorId) });
  if (!read.monitor) throw new NotFoundError('Monitor not found');
  let monitor = monitorItem.parse(read.monitor);
  let marker = read.marker ? openIncidentMarker.parse(read.marker) : undefined;

  if (input.status === 'up') return recover(marker?.incident_id);
  if (input.consecutiveFailures <= monitor.failure_threshold) return { ok: true, outcome: 'below_threshold' };

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = marker && (await incidents.getIncident(marker.incident_id));
    if (current && current.status !== 'RESOLVED') {
      return { ok: true, outcome: 'incident_already_open', incident_id: current.id };
    }
    const opened = await openIncident(monitor, input, marker?.incident_id);
    if (opened.incidentId) return { ok: true, outcome: 'incident_opened', incident_id: opened.incidentId };
    // Another check claimed the marker first (look at what it opened), or the monitor moved to
    // another team or was deleted meanwhile (read it again).
    const again = await getByKeys({ monitor: keys.monitor(input.monitorId), marker: keys.monitorOpenIncident(input.monitorId) });
    if (!again.monitor) throw new NotFoundError('Monitor not found');
    monitor = monitorItem.parse(again.monitor);
    marker = again.marker ? openIncidentMarker.parse(again.marker) : undefined;
  }
  throw new Error(`Monitor ${input.monitorId}: could not settle the open incident after ${MAX_ATTEMPTS} attempts`);
}

/**
 * Writes the incident, its escalation steps, the marker (claimed only if absent or still
 * pointing at `staleIncidentId`), the monitor's incident count (on the condition that the
 * monitor is still in the scope read) and the `incident.created` event in one transaction.
 * Returns the new incident's id, or nothing if another check claimed the marker first or the
 * monitor moved.
 */
async function openIncident(
  monitor: z.output<typeof monitorItem>,
  input: MonitorCheckInput,
  staleIncidentId: string | undefined,
): Promise<{ incidentId?: string }> {
  const now = clock.nowIso();
  const policy = monitor.escalation_policy_id ? await getPolicy(monitor.escalation_policy_id) : undefined;
  const incident: Incident = {
    id: randomUUID(),
    monitor_id: monitor.id,
    monitor_name: monitor.name,
    owner_id: monitor.owner_id,
    title: `${monitor.name} is down`.slice(0, 200),
    message: input.message ?? null,
    status: 'INVESTIGATING',
    severity: 'HIGH',
    acknowledged: false,
    automatic: true,
    started_at: now,
    resolved_at: null,
    escalation_policy_id: policy ? policy.id : null,
    team_id: monitor.team_id,
    team_seq: monitor.team_seq,
    created_at: now,
    updated_at: now,
  };
  const steps = (policy ? incidentSteps(policy) : []).map((step) => ({
    ...step,
    due_at: new Date(Date.parse(now) + step.delay_minutes * 60_000).toISOString(),
  }));
  const marker: TransactItem = {
    Put: {
      TableName: tableName(),
      Item: { ...keys.monitorOpenIncident(monitor.id), type: 'open_incident_marker', incident_id: incident.id },
      ConditionExpression: staleIncidentId ? `${itemAbsent} OR incident_id = :stale` : itemAbsent,
      ExpressionAttributeValues: staleIncidentId ? { ':stale': staleIncidentId } : undefined,
    },
  };
  // A step due at once (delay 0) is paged in this very transaction — marked sent, with its event —
  // rather than through the scheduler after the incident's own event (one pass, not two).
  // (A step with schedule or person targets is resolved at its page, by the escalation scheduler at once.)
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
  const { outcome } = await incidents.insertIncident(incident, [
    ['marker_taken', marker],
    ['moved', countIncident(monitor)],
    ...stepItems.map((item) => ['conflict', item] as const),
    ['conflict', created],
    ...pages.map((item) => ['conflict', item] as const),
    // The timeline: opened by the check (with its message), then each step paged at once.
    ['conflict', timelinePut(createdEntry(incident, null))],
    ...pagedNow.map((step, index) => ['conflict', timelinePut(pagedEntry(incident, step, now, index + 1))] as const),
  ]);
  if (outcome === 'ok') {
    countMetric('IncidentCreated', { kind: 'automatic' });
    for (const step of pagedNow) countMetric('EscalationStepSent', { step: String(step.step_order) });
    return { incidentId: incident.id };
  }
  if (outcome === 'conflict') throw new Error(`Unexpected conflict opening incident ${incident.id}`);
  return {};
}

/** Resolves the monitor's open automatic incident and releases the marker, with the `incident.resolved` event. */
async function recover(incidentId: string | undefined): Promise<CheckResult> {
  if (!incidentId) return { ok: true, outcome: 'no_open_incident' };
  const releaseMarker = (monitorId: string): TransactItem => ({
    Delete: {
      TableName: tableName(),
      Key: keys.monitorOpenIncident(monitorId),
      ConditionExpression: 'incident_id = :incident',
      ExpressionAttributeValues: { ':incident': incidentId },
    },
  });
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await incidents.getIncident(incidentId);
    if (!current || current.status === 'RESOLVED') {
      // Already resolved by hand: manual resolution wins; only the stale marker goes.
      if (current) await incidents.releaseMarker(releaseMarker(current.monitor_id));
      return { ok: true, outcome: 'no_open_incident', incident_id: current?.id };
    }
    const now = incidents.writeInstant(current);
    const next = applyChanges(current, { status: 'RESOLVED' }, now);
    const { outcome } = await incidents.writeIncidentChange(current, next, [
      releaseMarker(current.monitor_id),
      ...statusEvents(current, next, now),
      ...changeEntries(current, next, null, now).map(timelinePut),
    ]);
    if (outcome === 'ok') {
      countMetric('IncidentResolved');
      return { ok: true, outcome: 'incident_resolved', incident_id: current.id };
    }
  }
  throw new Error(`Incident ${incidentId}: could not resolve after ${MAX_ATTEMPTS} attempts`);
}
