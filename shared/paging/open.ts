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
import { getByKeys } from '../platform/db/ops.js';
import { incidentSteps, onCallAtPage, policyItem, type Policy } from '../escalation/model.js';
import { coverage, heldKey, monitorSpans, teamMaintenanceKey } from '../monitors/maintenance.js';
import { outboxPut } from '../platform/events/outbox.js';
import { incidentSnapshot } from '../incidents/snapshots.js';
import { countMetric } from '../platform/observability/metrics.js';
import type { Monitor } from '../monitors/model.js';
import { countIncident } from '../monitors/repository.js';
import { urgencyAtOpen, type Incident, type Severity } from '../incidents/model.js';
import * as incidents from '../incidents/repository.js';
import { createdEntry, timelinePut, type TimelineDetails } from '../incidents/timeline.js';
import { recipientsOf, resolvePeople } from './recipients.js';
import { pagedPeople, stepPageRecords, stepPages } from './step-page.js';

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
  // The policy and the team's maintenance summary in one BatchGetItem (the monitor's own is on its item).
  const wanted: Record<string, Record<string, string>> = {
    ...(monitor.escalation_policy_id ? { policy: keys.escalationPolicy(monitor.escalation_policy_id) } : {}),
    ...(monitor.team_id ? { maintenance: teamMaintenanceKey(monitor.team_id) } : {}),
  };
  const read = Object.keys(wanted).length > 0 ? await getByKeys(wanted) : {};
  const policy = read.policy ? (policyItem.parse(read.policy) as Policy) : undefined;
  // Inside a maintenance window (issue 45 §1): opened and counted as usual, but nothing pages and no
  // subscriber is e-mailed; its release at the window's end (`maintenance.ts`) starts paging then.
  const held = coverage(monitorSpans(monitor, read.maintenance), now);
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
    ...(monitor.ack_timeout_minutes ? { ack_timeout_minutes: monitor.ack_timeout_minutes } : {}),
    ...(held ? { in_maintenance: true, maintenance_window_id: held.window_id, held_until: held.until, ...(monitor.team_id ? { held_team_id: monitor.team_id } : {}) } : {}),
    ...spec.fields,
  };
  const steps = (policy ? incidentSteps(policy) : []).map((step) => ({
    ...step,
    due_at: new Date(Date.parse(now) + step.delay_minutes * 60_000).toISOString(),
  }));
  // A step due at once (delay 0) is paged in this very transaction — marked sent, with its event — its
  // people and addresses resolved now (one BatchGetItem for the people of all such steps), unless it
  // targets a schedule: whoever is on call is found at the page, by the escalation scheduler at once.
  const pagedNow = held ? [] : steps.filter((step) => step.delay_minutes === 0 && !onCallAtPage(step));
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
  // The pages it sends as it opens, kept on it for reports (issue 45 §4).
  const sent = pagedNow.flatMap((step) => stepPages(step, resolvedNow(step), now));
  if (sent.length > 0) incident.pages = sent;
  const pages = pagedNow.map((step, index) => stepPageRecords(incident, step, resolvedNow(step), now, index + 1));
  const created = outboxPut(
    'incident.created',
    {
      incident: incidentSnapshot(incident),
      escalation: policy
        ? { policy_id: policy.id, steps: steps.map(({ step_order, delay_minutes, due_at }) => ({ step_order, delay_minutes, due_at })) }
        : null,
      ...(held ? { maintenance: { window_id: held.window_id, until: held.until } } : {}),
    },
    now,
  );
  // Held: its markers (what ending the window early finds) and the entry naming the window.
  const holding: TransactItem[] = held
    ? [
        { Put: { TableName: tableName(), Item: { ...heldKey({ kind: 'monitor', id: monitor.id }, incident.id), type: 'maintenance_held', incident_id: incident.id } } },
        ...(monitor.team_id
          ? [{ Put: { TableName: tableName(), Item: { ...heldKey({ kind: 'team', id: monitor.team_id }, incident.id), type: 'maintenance_held', incident_id: incident.id } } }]
          : []),
        timelinePut({ kind: 'paging_held', incident, at: now, actor: null, details: { maintenance_window_id: held.window_id, until: held.until }, ordinal: 1 }),
      ]
    : [];
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
    ...holding.map((item) => ['conflict', item] as const),
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
