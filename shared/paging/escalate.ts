/**
 * Paging, stage 3 — escalate: turns a new automatic incident's escalation plan (its
 * `incident.created` event) into one one-time EventBridge Scheduler schedule per step
 * (deterministic names, deleted after they fire), each invoking the escalation-step function
 * (`page.ts`). Steps already due are paged at once.
 */
import { env } from '../system.js';
import { clock } from '../platform/clock.js';
import { requireEnv } from '../platform/config.js';
import type { EventDetail } from '../platform/events/model.js';
import { scheduleOnce } from '../platform/scheduler.js';
import { sendEscalationStep, type NobodyOnCallReport } from './page.js';

/** Steps due within this window are sent now rather than scheduled. */
const SEND_NOW_WINDOW_MS = 30_000;

/** A step's schedule, per run (issue 45: a restarted escalation's steps have schedules of their own). */
export const scheduleName = (incidentId: string, stepOrder: number, run = 0) => (run === 0 ? `esc-${incidentId}-${stepOrder}` : `esc-${incidentId}-r${run}-${stepOrder}`);

/** A new incident's escalation plan, or a restarted one's (`incident.escalation_restarted`, its run). */
export async function scheduleEscalation(event: EventDetail<'incident.created'> | EventDetail<'incident.escalation_restarted'>, report?: NobodyOnCallReport) {
  const outcomes: { step_order: number; outcome: string }[] = [];
  if (!event.escalation) return outcomes;
  const run = 'run' in event ? event.run : 0;
  for (const step of event.escalation.steps) {
    const input = { incident_id: event.incident.id, step_order: step.step_order, ...(run ? { run } : {}) };
    if (Date.parse(step.due_at) - clock.now().getTime() <= SEND_NOW_WINDOW_MS) {
      outcomes.push({ step_order: step.step_order, outcome: await sendEscalationStep(input, report) });
      continue;
    }
    // A redelivered event finds the schedule there already.
    const created = await scheduleOnce({
      name: scheduleName(event.incident.id, step.step_order, run),
      at: step.due_at,
      target: requireEnv(env.escalationStepArn),
      input,
      deadLetterArn: process.env[env.escalationDlqArn],
    });
    outcomes.push({ step_order: step.step_order, outcome: created === 'created' ? 'scheduled' : 'already_scheduled' });
  }
  return outcomes;
}
