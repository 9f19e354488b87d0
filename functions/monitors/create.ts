import * as z from '../../shared/platform/zod.js';
import { createMonitorInput, MonitorBody } from '../../shared/monitors/model.js';
import { createMonitor } from '../../shared/monitors/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Create a monitor, optionally shared with a team (OWNER, ADMIN or MEMBER there)',
    body: createMonitorInput,
    status: 201,
    response: z.strictObject({ monitor: MonitorBody }),
    errors: { 403: ['Not a team member', 'Not authorized'], 404: ['Escalation policy not found', 'Team not found'] },
    idempotent: true,
    failure: 'Failed to create monitor',
  },
  async ({ body, caller }) => ({ monitor: await createMonitor(caller, body) }),
);
