/** `escalation-step`: the schedules' target; pages one step unless acknowledged or resolved. */
import { escalationStepInput, sendEscalationStep } from '../../shared/paging/page.js';
import { nobodyOnCall, workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'escalation-step',
  async (event: unknown) => ({ outcome: await sendEscalationStep(escalationStepInput.parse(event), nobodyOnCall) }),
  (result) => result.outcome,
);

