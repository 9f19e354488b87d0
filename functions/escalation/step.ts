/** `escalation-step`: the schedules' target; pages one step unless acknowledged or resolved. */
import { escalationStepInput, sendEscalationStep } from '../../shared/escalation/steps.js';

export const handler = async (event: unknown) => ({ outcome: await sendEscalationStep(escalationStepInput.parse(event)) });
