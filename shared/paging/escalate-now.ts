/**
 * Paging, stage 4b — escalate now: a person paged for an incident sends it on to the next step at
 * once (an SMS reply `12e`), instead of waiting for that step's delay. The step is paged as its
 * schedule would page it (`page.ts`, marked sent in the same transaction, so the schedule finds it
 * sent later); an acknowledged or resolved incident has nothing left to escalate.
 */
import { getIncidentCollection } from '../incidents/repository.js';
import { sendEscalationStep, type NobodyOnCallReport } from './page.js';

export type EscalateOutcome = { outcome: 'escalated'; step_order: number } | { outcome: 'not_found' | 'closed' | 'no_more_steps' };

export async function escalateNow(incidentId: string, report?: NobodyOnCallReport): Promise<EscalateOutcome> {
  for (;;) {
    const collection = await getIncidentCollection(incidentId);
    if (!collection) return { outcome: 'not_found' };
    const { incident } = collection;
    if (incident.acknowledged || incident.status === 'RESOLVED') return { outcome: 'closed' };
    const next = collection.escalationSteps
      .filter((step) => !step.sent_at && !step.cancelled_at)
      .sort((a, b) => a.step_order - b.step_order)[0];
    if (!next) return { outcome: 'no_more_steps' };
    const sent = await sendEscalationStep({ incident_id: incidentId, step_order: next.step_order }, report, { early: true });
    if (sent === 'sent') return { outcome: 'escalated', step_order: next.step_order };
    if (sent === 'cancelled') return { outcome: 'closed' };
    // Sent by its schedule meanwhile (or gone): the next one, read again.
    if (sent === 'unknown_step') return { outcome: 'not_found' };
  }
}
