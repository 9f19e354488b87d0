/**
 * Paging, stage 4 — page: an escalation step at send time (its schedule fired, or it was due at
 * once). Each step of an automatic incident is paged at most once, and only
 * while the incident is neither acknowledged nor resolved — checked in the same transaction
 * that marks the step sent and records the `incident.escalation_step` event.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../platform/zod.js';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { itemPresent, keys } from '../platform/db/keys.js';
import { conditionFailure, TransactionCancelled, transactWrite } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { countMetric } from '../platform/observability/metrics.js';
import { addResponders, getIncidentCollection, writeInstant } from '../incidents/repository.js';
import { MAX_INCIDENT_STEPS, type EscalationTarget, type UnstaffedSchedule } from '../escalation/model.js';
import { resolveTargets } from './targets.js';
import { pagedPeople, stepPageRecords, stepPages } from './step-page.js';

/** `early`: page the step now, before its time (a person escalated by SMS reply); its own schedule then finds it sent. */
export const escalationStepInput = z.strictObject({
  incident_id: z.uuid(),
  step_order: z.int().check(z.minimum(1), z.maximum(MAX_INCIDENT_STEPS)),
  early: z.optional(z.literal(true)),
  /** The escalation run the page is for (issue 45; absent: the first, 0): a step since written for another run is not paged. */
  run: z.optional(z.int().check(z.minimum(1))),
});
export type EscalationStepInput = z.output<typeof escalationStepInput>;

export type StepOutcome = 'sent' | 'already_sent' | 'cancelled' | 'not_due' | 'unknown_step' | 'other_run';

/** A step invoked before it is due (not by its schedule, which fires on time) waits for it. */
const EARLY_TOLERANCE_MS = 1_000;

/** Told of each schedule a sent page found nobody on call in (the caller logs it as an error). */
export type NobodyOnCallReport = (facts: { incident_id: string; step_order: number } & UnstaffedSchedule) => void;

export function sendEscalationStep(input: EscalationStepInput, report?: NobodyOnCallReport): Promise<StepOutcome> {
  return retryOnConflict(
    async () => {
      const outcome = await trySendStep(input, report);
      return outcome === 'changed' ? undefined : outcome;
    },
    (attempts) => `Escalation step ${input.step_order} of ${input.incident_id}: the incident kept changing; gave up after ${attempts} attempts`,
  );
}

/** One attempt; `changed` when the incident changed (other than being acknowledged or resolved) between the read and the write. */
async function trySendStep({ incident_id, step_order, early, run = 0 }: EscalationStepInput, report?: NobodyOnCallReport): Promise<StepOutcome | 'changed'> {
  const collection = await getIncidentCollection(incident_id);
  const step = collection?.escalationSteps.find((candidate) => candidate.step_order === step_order);
  if (!collection || !step) return 'unknown_step';
  // Restarted since (issue 45): this schedule's run is over; the new run's schedules page.
  if ((step.run ?? 0) !== run) return 'other_run';
  if (step.sent_at) return 'already_sent';
  if (step.cancelled_at) return 'cancelled';
  const now = clock.now();
  if (!early && step.due_at && Date.parse(step.due_at) - now.getTime() > EARLY_TOLERANCE_MS) return 'not_due';
  const { incident } = collection;
  if (incident.acknowledged || incident.status === 'RESOLVED') return cancel(incident_id, step_order, now.toISOString());
  // The page is a write of the incident too (its time orders the timeline; see `writeInstant`).
  const at = writeInstant(incident);
  // Targets are resolved at the page: whoever is on call now; the addresses de-duplicated.
  const resolved = step.targets ? await resolveTargets(step.targets as EscalationTarget[], at, step.team_id ?? null) : undefined;
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName(),
          Key: keys.escalationStep(incident_id, step_order),
          UpdateExpression: 'SET sent_at = :now',
          ConditionExpression: `${itemPresent} AND attribute_not_exists(sent_at) AND attribute_not_exists(cancelled_at) AND ${run === 0 ? '(attribute_not_exists(run) OR run = :run)' : 'run = :run'}`,
          ExpressionAttributeValues: { ':now': at, ':run': run },
        },
      },
      {
        // Unacknowledged, unresolved, and unchanged since it was read: the event's snapshot and the
        // timeline entry show it as it is (a change meanwhile other than those: read again).
        // The people it pages join the incident's responders (the list's `mine`, issue 44).
        Update: {
          TableName: tableName(),
          Key: keys.incident(incident_id),
          // Its pages (for reports) are appended, and the people it pages join its responders (`mine`), in the same write.
          ...addResponders(
            {
              UpdateExpression: 'SET #updated_at = :now, #pages = list_append(if_not_exists(#pages, :no_pages), :pages)',
              ExpressionAttributeNames: { '#status': 'status', '#updated_at': 'updated_at', '#pages': 'pages' },
              ExpressionAttributeValues: {
                ':false': false,
                ':was_status': incident.status,
                ':was_updated_at': incident.updated_at,
                ':now': at,
                ':no_pages': [],
                ':pages': stepPages(step, resolved, at),
              },
            },
            pagedPeople(resolved),
          ),
          ConditionExpression: 'acknowledged = :false AND #status = :was_status AND #updated_at = :was_updated_at',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      ...stepPageRecords(incident, step, resolved, at),
    ]);
    countMetric('EscalationStepSent', { step: String(step_order) });
    for (const unstaffed of resolved?.nobodyOnCall ?? []) {
      countMetric('ScheduleNobodyOnCall');
      report?.({ incident_id, step_order, ...unstaffed });
    }
    return 'sent';
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.reasons[0]?.code === 'ConditionalCheckFailed') return 'already_sent';
    const was = error.reasons[1];
    if (was?.code === 'ConditionalCheckFailed') {
      if (was.item && was.item.acknowledged === false && was.item.status !== 'RESOLVED') return 'changed';
      return cancel(incident_id, step_order, now.toISOString());
    }
    throw error;
  }
}

/** Records that the step will never be sent (acknowledged or resolved before it was due). */
async function cancel(incidentId: string, stepOrder: number, now: string): Promise<StepOutcome> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.escalationStep(incidentId, stepOrder),
        UpdateExpression: 'SET cancelled_at = :now',
        ConditionExpression: `${itemPresent} AND attribute_not_exists(sent_at)`,
        ExpressionAttributeValues: { ':now': now },
      }),
    );
    return 'cancelled';
  } catch (error) {
    if (conditionFailure(error)) return 'already_sent';
    throw error;
  }
}
