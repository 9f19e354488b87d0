import { randomUUID } from 'node:crypto';
import type { Caller } from '../caller.js';
import { clock } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { identityOf } from '../accounts/service.js';
import { requireOwnedMonitor } from '../monitors/service.js';
import { outboxPut } from '../events/outbox.js';
import { incidentSnapshot } from '../events/snapshots.js';
import { countMetric } from '../observability/metrics.js';
import * as repository from './repository.js';
import {
  incidentDetailView,
  incidentListView,
  incidentView,
  type AcknowledgeIncidentInput,
  type CreateIncidentInput,
  type Incident,
  type IncidentDetailView,
  type IncidentListView,
  type IncidentView,
  type ListIncidentsQuery,
  type UpdateIncidentInput,
} from './model.js';

export const incidentNotFound = () => new NotFoundError('Incident not found');

/** Incidents of the caller's monitors, newest first, optionally of one severity. */
export async function listIncidents(caller: Caller, query: ListIncidentsQuery): Promise<IncidentListView[]> {
  return (await repository.listIncidents(caller.userId, query.severity)).map(incidentListView);
}

export async function getIncident(caller: Caller, incidentId: string): Promise<IncidentDetailView> {
  const collection = await repository.getIncidentCollection(incidentId);
  if (!collection || collection.incident.owner_id !== caller.userId) throw incidentNotFound();
  return incidentDetailView(collection.incident, collection.acknowledgement, collection.escalationSteps);
}

/** A manual incident on one of the caller's monitors. Manual incidents never escalate. */
export async function createIncident(caller: Caller, input: CreateIncidentInput): Promise<IncidentView> {
  const monitor = await requireOwnedMonitor(caller, input.monitorId);
  const now = clock.nowIso();
  const incident: Incident = {
    id: randomUUID(),
    monitor_id: monitor.id,
    monitor_name: monitor.name,
    owner_id: monitor.owner_id,
    title: input.title,
    message: input.message ?? null,
    status: 'INVESTIGATING',
    severity: input.severity,
    acknowledged: false,
    automatic: false,
    started_at: now,
    resolved_at: null,
    escalation_policy_id: null,
    created_at: now,
    updated_at: now,
  };
  await repository.insertIncident(incident, [
    outboxPut('incident.created', { incident: incidentSnapshot(incident), escalation: null }, now),
  ]);
  countMetric('IncidentCreated', { kind: 'manual' });
  return incidentView(incident);
}

/** The incident after `changes`: RESOLVED sets `resolved_at` (keeping an earlier one), other statuses clear it. */
export function applyChanges(current: Incident, changes: UpdateIncidentInput, now: string): Incident {
  const status = changes.status ?? current.status;
  return {
    ...current,
    title: changes.title ?? current.title,
    severity: changes.severity ?? current.severity,
    status,
    resolved_at: status === 'RESOLVED' ? (current.resolved_at ?? now) : null,
    updated_at: now,
  };
}

/** The notification a status change asks for: resolved, changed, or none. */
export function statusEvents(current: Incident, next: Incident, now: string) {
  if (next.status === current.status) return [];
  const payload = { incident: incidentSnapshot(next), previous_status: current.status };
  return [
    next.status === 'RESOLVED' ? outboxPut('incident.resolved', payload, now) : outboxPut('incident.status_changed', payload, now),
  ];
}

const MAX_CHANGE_ATTEMPTS = 5;

/**
 * Changes an incident and records the status-change event in the same transaction. Optimistic:
 * read, then write on the condition that nothing changed since; retried if something did.
 */
async function changeIncident(caller: Caller, incidentId: string, changes: UpdateIncidentInput): Promise<Incident> {
  for (let attempt = 1; attempt <= MAX_CHANGE_ATTEMPTS; attempt++) {
    const current = await repository.getIncident(incidentId);
    if (!current || current.owner_id !== caller.userId) throw incidentNotFound();
    const now = clock.nowIso();
    const next = applyChanges(current, changes, now);
    if (await repository.writeIncidentChange(current, next, statusEvents(current, next, now))) {
      if (next.status === 'RESOLVED' && current.status !== 'RESOLVED') countMetric('IncidentResolved');
      return next;
    }
  }
  throw new Error(`Incident ${incidentId} kept changing; gave up after ${MAX_CHANGE_ATTEMPTS} attempts`);
}

export async function updateIncident(
  caller: Caller,
  incidentId: string,
  changes: UpdateIncidentInput,
): Promise<IncidentView> {
  if (Object.values(changes).every((value) => value === undefined)) {
    throw new BadRequestError('No updates provided');
  }
  if (changes.status === undefined) {
    // No status change, nothing to notify: one conditional UpdateItem.
    const { status: _none, ...others } = changes;
    const incident = await repository.updateIncident(caller.userId, incidentId, others, clock.nowIso());
    if (!incident) throw incidentNotFound();
    return incidentView(incident);
  }
  return incidentView(await changeIncident(caller, incidentId, changes));
}

/** DELETE resolves: status RESOLVED, `resolved_at` now (an earlier resolution time is kept). */
export async function resolveIncident(caller: Caller, incidentId: string): Promise<void> {
  await changeIncident(caller, incidentId, { status: 'RESOLVED' });
}

/**
 * Acknowledges the incident once. The acknowledgement names the user from their account
 * record (falling back to the token's claims for users without one).
 */
export async function acknowledgeIncident(
  caller: Caller,
  incidentId: string,
  input: AcknowledgeIncidentInput,
): Promise<IncidentView> {
  const { account, incident } = await repository.getAccountAndIncident(caller.userId, incidentId);
  if (!incident || incident.owner_id !== caller.userId) throw incidentNotFound();
  if (incident.acknowledged) throw new BadRequestError('Incident already acknowledged');
  const now = clock.nowIso();
  const { name: userName, email: userEmail } = identityOf(caller, account);
  const outcome = await repository.acknowledgeIncident(
    caller.userId,
    {
      id: randomUUID(),
      incident_id: incident.id,
      user_id: caller.userId,
      user_name: userName,
      user_email: userEmail,
      method: input.method,
      acknowledged_at: now,
    },
    now,
    [
      outboxPut(
        'incident.acknowledged',
        {
          incident: incidentSnapshot({ ...incident, acknowledged: true }),
          acknowledgement: { user_id: caller.userId, user_name: userName, method: input.method, acknowledged_at: now },
        },
        now,
      ),
    ],
  );
  if (outcome === 'not_found') throw incidentNotFound();
  if (outcome === 'already_acknowledged') throw new BadRequestError('Incident already acknowledged');
  countMetric('IncidentAcknowledged', { method: input.method });
  return incidentView({ ...incident, acknowledged: true, updated_at: now });
}
