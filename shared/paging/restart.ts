/**
 * Paging, issue 45 — restart: an open automatic incident's escalation starts again from step 1, as a
 * new run. Its steps are written again (the run's number on each, due from the restart, none sent), in
 * the transaction that makes the change which restarts it, with the `escalation_restarted` entry and the
 * `incident.escalation_restarted` event, from which the escalation scheduler schedules (or pages at once)
 * each step of the run (`escalate.ts`). A schedule of an earlier run finds its step of another run and
 * does nothing (`page.ts`).
 *
 * What restarts it: an acknowledgement that timed out (`timeoutAcknowledgement`, here, §2); the end of
 * the maintenance that held its pages (`maintenance.ts`, §1).
 */
import * as z from '../platform/zod.js';
import { env } from '../system.js';
import { clock } from '../platform/clock.js';
import { requireEnv } from '../platform/config.js';
import { tableName } from '../platform/db/client.js';
import { itemPresent, keys } from '../platform/db/keys.js';
import { TransactionCancelled, transactWrite, updateExpression, type TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import type { EventDetail } from '../platform/events/model.js';
import { outboxPut } from '../platform/events/outbox.js';
import { countMetric } from '../platform/observability/metrics.js';
import { scheduleOnce } from '../platform/scheduler.js';
import type { EscalationStep, Incident } from '../incidents/model.js';
import { acknowledgedFilterKeys, getIncidentCollection, writeInstant } from '../incidents/repository.js';
import { incidentSnapshot } from '../incidents/snapshots.js';
import { timelinePut } from '../incidents/timeline.js';

export type RestartReason = 'acknowledgement_timed_out' | 'maintenance_ended';

/**
 * The items that restart `incident`'s escalation (as it will be after the change, `escalation_run`
 * already the new run) at `at`: each step again, the entry, the event. The caller's transaction
 * carries them beside its own condition on the incident (which settles every race).
 */
export function restartItems(incident: Incident, steps: readonly EscalationStep[], reason: RestartReason, at: string, ordinal = 1): TransactItem[] {
  const run = incident.escalation_run ?? 0;
  const again = steps.map(({ sent_at: _sent, cancelled_at: _cancelled, ...step }) => ({
    ...step,
    run,
    due_at: new Date(Date.parse(at) + step.delay_minutes * 60_000).toISOString(),
  }));
  return [
    ...again.map((step) => ({
      Put: {
        TableName: tableName(),
        Item: { ...keys.escalationStep(incident.id, step.step_order), type: 'escalation_step', incident_id: incident.id, ...step },
      },
    })),
    timelinePut({ kind: 'escalation_restarted', incident, at, actor: null, details: { reason, run }, ordinal }),
    outboxPut(
      'incident.escalation_restarted',
      {
        incident: incidentSnapshot(incident),
        reason,
        run,
        escalation: { policy_id: incident.escalation_policy_id, steps: again.map(({ step_order, delay_minutes, due_at }) => ({ step_order, delay_minutes, due_at })) },
      },
      at,
    ),
  ];
}

/** What an acknowledgement's timeout schedule invokes the escalation-step function with. */
export const ackTimeoutInput = z.strictObject({
  ack_timeout: z.strictObject({ incident_id: z.uuid(), acknowledgement_id: z.uuid() }),
});
export type AckTimeoutInput = z.output<typeof ackTimeoutInput>;

/** One schedule per acknowledgement (at most 64 characters): a repeat of the event finds it. */
export const ackTimeoutScheduleName = (incidentId: string, acknowledgementId: string) => `ackto-${incidentId}-${acknowledgementId.slice(0, 8)}`;

/**
 * `incident.acknowledged` of an automatic incident with a timeout: one one-time schedule at the
 * acknowledgement's time plus the timeout, for that acknowledgement (by its id).
 */
export async function scheduleAckTimeout(event: EventDetail<'incident.acknowledged'>): Promise<string> {
  if (!event.incident.automatic || event.incident.status === 'RESOLVED') return 'none';
  const collection = await getIncidentCollection(event.incident.id);
  const acknowledgement = collection?.acknowledgement;
  if (!collection?.incident.ack_timeout_minutes) return 'none';
  // Unacknowledged, resolved or acknowledged again since: nothing of this acknowledgement to time out.
  if (!collection.incident.acknowledged || collection.incident.status === 'RESOLVED' || acknowledgement?.acknowledged_at !== event.acknowledgement.acknowledged_at) {
    return 'superseded';
  }
  const input: AckTimeoutInput = { ack_timeout: { incident_id: event.incident.id, acknowledgement_id: acknowledgement.id } };
  const created = await scheduleOnce({
    name: ackTimeoutScheduleName(event.incident.id, acknowledgement.id),
    at: new Date(Date.parse(acknowledgement.acknowledged_at) + collection.incident.ack_timeout_minutes * 60_000).toISOString(),
    target: requireEnv(env.escalationStepArn),
    input,
    deadLetterArn: process.env[env.escalationDlqArn],
  });
  return created === 'created' ? 'scheduled' : 'already_scheduled';
}

export type AckTimeoutOutcome = 'timed_out' | 'not_found' | 'resolved' | 'superseded' | 'not_due';

/** A schedule fires on time; invoked before it (by hand), it waits. */
const EARLY_TOLERANCE_MS = 1_000;

/**
 * The acknowledgement's timeout: the incident becomes unacknowledged (its acknowledgement removed,
 * `acknowledgement_timed_out` on the timeline) and its escalation restarts from step 1, in one
 * transaction, on the condition that this very acknowledgement still stands (its id) and the incident
 * is unresolved: once per acknowledgement, and never after a resolve or over a later acknowledgement.
 */
export function timeoutAcknowledgement({ ack_timeout: { incident_id, acknowledgement_id } }: AckTimeoutInput): Promise<AckTimeoutOutcome> {
  return retryOnConflict<AckTimeoutOutcome>(async () => {
    const collection = await getIncidentCollection(incident_id);
    if (!collection) return 'not_found';
    const { incident, acknowledgement, escalationSteps } = collection;
    if (incident.status === 'RESOLVED') return 'resolved';
    if (!incident.acknowledged || acknowledgement?.id !== acknowledgement_id) return 'superseded';
    const minutes = incident.ack_timeout_minutes ?? 0;
    if (Date.parse(acknowledgement.acknowledged_at) + minutes * 60_000 - clock.now().getTime() > EARLY_TOLERANCE_MS) return 'not_due';
    const at = writeInstant(incident);
    const run = incident.escalation_run ?? 0;
    // Held by maintenance (issue 45 §1): unacknowledged now, paged when maintenance ends (its release restarts it).
    const restart = !incident.in_maintenance;
    const nextRun = restart ? run + 1 : run;
    const next: Incident = { ...incident, acknowledged: false, updated_at: at, escalation_run: nextRun };
    try {
      await transactWrite([
        {
          Delete: {
            TableName: tableName(),
            Key: keys.incidentAcknowledgement(incident_id),
            ConditionExpression: 'id = :acknowledgement',
            ExpressionAttributeValues: { ':acknowledgement': acknowledgement_id },
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: keys.incident(incident_id),
            ...updateExpression({
              set: { acknowledged: false, updated_at: at, escalation_run: nextRun, ...acknowledgedFilterKeys(incident, false) },
              condition: {
                expression: `${itemPresent} AND #acknowledged = :true AND #status = :was_status AND #updated_at < :now AND ${run === 0 ? '(attribute_not_exists(escalation_run) OR escalation_run = :run)' : 'escalation_run = :run'}`,
                names: { '#acknowledged': 'acknowledged', '#status': 'status', '#updated_at': 'updated_at' },
                values: { ':true': true, ':was_status': incident.status, ':now': at, ':run': run },
              },
            }),
          },
        },
        timelinePut({
          kind: 'acknowledgement_timed_out',
          incident: next,
          at,
          actor: null,
          details: { acknowledgement_id, acknowledged_at: acknowledgement.acknowledged_at, ack_timeout_minutes: minutes },
        }),
        ...(restart ? restartItems(next, escalationSteps, 'acknowledgement_timed_out', at) : []),
      ]);
    } catch (error) {
      if (error instanceof TransactionCancelled) return undefined;
      throw error;
    }
    countMetric('AcknowledgementTimedOut');
    return 'timed_out';
  }, (attempts) => `Incident ${incident_id}: could not time out its acknowledgement after ${attempts} attempts`);
}
