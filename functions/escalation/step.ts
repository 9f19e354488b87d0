/**
 * `escalation-step`: the schedules' target; pages one step unless acknowledged or resolved, or (issue 45
 * §2) times out an acknowledgement.
 */
import { escalationStepInput, sendEscalationStep } from '../../shared/paging/page.js';
import { ackTimeoutInput, timeoutAcknowledgement } from '../../shared/paging/restart.js';
import { nobodyOnCall, workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'escalation-step',
  async (event: unknown) => {
    const timeout = ackTimeoutInput.safeParse(event);
    if (timeout.success) return { outcome: await timeoutAcknowledgement(timeout.data) };
    return { outcome: await sendEscalationStep(escalationStepInput.parse(event), nobodyOnCall) };
  },
  (result) => result.outcome,
);
