/**
 * Paging, stage 4b — escalate now: a person paged for an incident sends it on to the next step at
 * once (an SMS reply `12e`), instead of waiting for that step's delay. The step is paged as its
 * schedule would page it (`page.ts`, marked sent in the same transaction, so the schedule finds it
 * sent later); an acknowledged or resolved incident has nothing left to escalate.
 */
import { MAX_INCIDENT_STEPS } from '../escalation/model.js';
import { getIncidentCollection } from '../incidents/repository.js';
import { sendEscalationStep, type NobodyOnCallReport } from './page.js';

export type EscalateOutcome = { outcome: 'escalated'; step_order: number } | { outcome: 'not_found' | 'closed' | 'no_more_steps' };

export async function escalateNow(incidentId: string, report?: NobodyOnCallReport): Promise<EscalateOutcome> {
  // Each round finds one more step sent (by its schedule meanwhile): at most as many rounds as steps.
  for (let round = 0; round <= MAX_INCIDENT_STEPS; round++) {
    const collection = await getIncidentCollection(incidentId);
    if (!collection) return { outcome: 'not_found' };
    const { incident } = collection;
    if (incident.acknowledged || incident.status === 'RESOLVED') return { outcome: 'closed' };
    const next = collection.escalationSteps.find((step) => !step.sent_at && !step.cancelled_at);
    if (!next) return { outcome: 'no_more_steps' };
    const sent = await sendEscalationStep({ incident_id: incidentId, step_order: next.step_order }, report, { early: true });
    if (sent === 'sent') return { outcome: 'escalated', step_order: next.step_order };
    if (sent === 'cancelled') return { outcome: 'closed' };
    if (sent !== 'already_sent') return { outcome: 'not_found' };
  }
  throw new Error(`Incident ${incidentId}: its steps kept being sent while escalating; gave up`);
}
