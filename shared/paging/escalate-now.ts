/**
 * Paging, stage 4b — escalate now: a person paged for an incident sends it on to its next step at
 * once (an SMS reply `12e`) instead of waiting for that step's delay. The step is handed to the
 * `escalation-step` function through a one-time schedule due now (as the steps' own schedules are,
 * with their retries and dead-letter queue), marked `early` so it pages before its time; its own
 * schedule later finds it sent. An acknowledged or resolved incident has nothing left to escalate.
 */
import { env } from '../system.js';
import { clock } from '../platform/clock.js';
import { requireEnv } from '../platform/config.js';
import { scheduleOnce } from '../platform/scheduler.js';
import { getIncidentCollection, type IncidentCollection } from '../incidents/repository.js';
import { escalatableIncident, escalateTexts } from '../incidents/service.js';
import type { Caller } from '../platform/caller.js';
import { ConflictError } from '../platform/errors.js';
import type { EscalationStepInput } from './page.js';

export type EscalateOutcome = { outcome: 'escalating'; step_order: number } | { outcome: 'not_found' | 'closed' | 'no_more_steps' };

/** The name of a step's "now" schedule: one per step, however often a person asks. */
export const escalateNowScheduleName = (incidentId: string, stepOrder: number, run = 0) =>
  run === 0 ? `esc-now-${incidentId}-${stepOrder}` : `esc-now-${incidentId}-r${run}-${stepOrder}`;

/** A schedule is created a second ahead, so that it is never in the past when the Scheduler reads it. */
const LEAD_MS = 1_000;

export async function escalateNow(incidentId: string): Promise<EscalateOutcome> {
  const collection = await getIncidentCollection(incidentId);
  if (!collection) return { outcome: 'not_found' };
  const { incident } = collection;
  if (incident.acknowledged || incident.status === 'RESOLVED') return { outcome: 'closed' };
  const next = nextEscalationStep(collection);
  if (!next) return { outcome: 'no_more_steps' };
  await scheduleStepNow(incidentId, next);
  return { outcome: 'escalating', step_order: next.step_order };
}

/** The first step of the incident's policy not paged yet nor cancelled (undefined: none left). */
export const nextEscalationStep = (collection: Pick<IncidentCollection, 'escalationSteps'>) =>
  collection.escalationSteps.find((step) => !step.sent_at && !step.cancelled_at);

/**
 * Hands a step to escalation-step through its "now" schedule (one per step and run, however often a
 * person asks: a repeat finds it there). Also the API's `POST /api/incidents/{id}/escalate`. The step's
 * run (issue 45: a restarted escalation's steps carry theirs) goes with it, which the page checks.
 */
export async function scheduleStepNow(incidentId: string, step: { step_order: number; run?: number | undefined }): Promise<void> {
  const input: EscalationStepInput = { incident_id: incidentId, step_order: step.step_order, early: true, ...(step.run ? { run: step.run } : {}) };
  await scheduleOnce({
    name: escalateNowScheduleName(incidentId, step.step_order, step.run ?? 0),
    at: new Date(clock.now().getTime() + LEAD_MS).toISOString(),
    target: requireEnv(env.escalationStepArn),
    input,
    deadLetterArn: process.env[env.escalationDlqArn],
  });
}

/**
 * Escalates now through the API (issue 44, as an SMS reply `<n>e` does): the caller's right and the
 * incident's state are checked by `escalatableIncident` (incidents/service.ts); its next escalation step,
 * not paged yet, is handed to escalation-step through its "now" schedule, so it pages before its delay.
 * An incident whose steps are all paged (a manual incident has none) answers 409.
 */
export async function escalateIncident(caller: Caller, incidentId: string): Promise<{ step_order: number }> {
  const collection = await escalatableIncident(caller, incidentId);
  const next = nextEscalationStep(collection);
  if (!next) throw new ConflictError(escalateTexts.noMoreSteps);
  await scheduleStepNow(incidentId, next);
  return { step_order: next.step_order };
}
