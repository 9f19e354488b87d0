import * as z from '../../shared/platform/zod.js';
import { MonitorBody, updateMonitorInput } from '../../shared/monitors/model.js';
import { updateMonitor } from '../../shared/monitors/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { missedIncidentResolution } from '../../shared/heartbeats/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "Update a monitor's name, failure threshold or escalation policy, or share it with a team (team_id) or take it back (null)",
    params: idParams,
    body: updateMonitorInput,
    response: z.strictObject({ monitor: MonitorBody }),
    errors: {
      400: ['No updates provided'],
      403: ['Not authorized', 'Not a team member'],
      404: ['Monitor not found', 'Escalation policy not found', 'Team not found'],
    },
    failure: 'Failed to update monitor',
  },
  async ({ params, body, caller }) => ({ monitor: await updateMonitor(caller, params.id, body, missedIncidentResolution) }),
);
