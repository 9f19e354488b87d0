/**
 * Paging, stage 2 — open: the automatic incident a signal opens (`signal.ts` decides when), with its
 * escalation plan, in one transaction. Every signal goes through `openAutomaticIncident`, so an alert
 * or a missed heartbeat pages, e-mails subscribers and writes the timeline exactly as a failed check
 * does: the same items, the same outbox events.
 *
 * What keeps an automatic incident from being opened twice is the signal's `claim`: an item written
 * in the opening transaction on the condition that it is absent (or points at a resolved incident),
 * and released in the resolving one (`resolve.ts`) — the monitor's open-incident marker for checks,
 * one dedup item per (monitor, dedup key) for alerts, the heartbeat's incident marker.
 */
import { randomUUID } from 'node:crypto';
import { clock } from '../platform/clock.js';
import { tableName } from '../platform/db/client.js';
import { keys } from '../platform/db/keys.js';
import type { TransactItem } from '../platform/db/ops.js';
import { getPolicy } from '../escalation/repository.js';
import { incidentSteps, onCallAtPage } from '../escalation/model.js';
import { outboxPut } from '../platform/events/outbox.js';
import { incidentSnapshot } from '../incidents/snapshots.js';
import { countMetric } from '../platform/observability/metrics.js';
import type { Monitor } from '../monitors/model.js';
import { countIncident } from '../monitors/repository.js';
import { urgencyAtOpen, type Incident, type Severity } from '../incidents/model.js';
import * as incidents from '../incidents/repository.js';
import { createdEntry, timelinePut, type TimelineDetails } from '../incidents/timeline.js';
import { recipientsOf, resolvePeople } from './recipients.js';
import { pagedPeople, stepPageRecords } from './step-page.js';

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
    urgency: urgencyAtOpen(monitor, spec.severity),
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
  // A step due at once (delay 0) is paged in this very transaction — marked sent, with its event — its
  // people and addresses resolved now (one BatchGetItem for the people of all such steps), unless it
  // targets a schedule: whoever is on call is found at the page, by the escalation scheduler at once.
  const pagedNow = steps.filter((step) => step.delay_minutes === 0 && !onCallAtPage(step));
  const targeted = pagedNow.flatMap((step) => step.targets ?? []);
  const people = targeted.some((target) => target.type === 'user') ? await resolvePeople(targeted, policy?.team_id ?? null) : new Map();
  const resolvedNow = (step: (typeof steps)[number]) => (step.targets ? recipientsOf(step.targets, people, unreachable) : undefined);
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
  const pages = pagedNow.map((step, index) => stepPageRecords(incident, step, resolvedNow(step), now, index + 1));
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
    // Each step paged at once: its event and its timeline entry.
    ...pages.flat().map((item) => ['conflict', item] as const),
    // The timeline: opened by the signal (with its message); the pages' entries follow it.
    ['conflict', timelinePut({ ...entry, details: { ...entry.details, ...spec.createdDetails } })],
  ], [...new Set(pagedNow.flatMap((step) => pagedPeople(resolvedNow(step))))]);
  if (outcome === 'ok') {
    countMetric('IncidentCreated', { kind: 'automatic' });
    for (const step of pagedNow) countMetric('EscalationStepSent', { step: String(step.step_order) });
    return incident;
  }
  if (outcome === 'conflict') throw new Error(`Unexpected conflict opening incident ${incident.id}`);
  return undefined;
}

/** A step paged at once has no schedule target (`onCallAtPage`): nobody to find on call. */
const unreachable = (scheduleId: string): never => {
  throw new Error(`Schedule ${scheduleId} is resolved at the page, not when the incident opens`);
};
