/**
 * `escalation-step`: the schedules' target; pages one step unless acknowledged or resolved, or (issue 45
 * §2) times out an acknowledgement, or (§1) releases an incident held by maintenance at its end.
 */
import { escalationStepInput, sendEscalationStep } from '../../shared/paging/page.js';
import { ackTimeoutInput, timeoutAcknowledgement } from '../../shared/paging/restart.js';
import { maintenanceReleaseInput, releaseHeld } from '../../shared/paging/maintenance.js';
import { nobodyOnCall, workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'escalation-step',
  async (event: unknown) => {
    const timeout = ackTimeoutInput.safeParse(event);
    if (timeout.success) return { outcome: await timeoutAcknowledgement(timeout.data) };
    const release = maintenanceReleaseInput.safeParse(event);
    if (release.success) return { outcome: await releaseHeld(release.data.maintenance_release.incident_id) };
    return { outcome: await sendEscalationStep(escalationStepInput.parse(event), nobodyOnCall) };
  },
  (result) => result.outcome,
);
