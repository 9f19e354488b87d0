import { endMonitorWindow, windowParams } from '../../shared/monitors/maintenance.js';
import { MessageBody } from '../../shared/platform/api/common.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary:
      "End a maintenance window now (the monitor's: whoever may update the monitor; its team's: the team's OWNER, ADMIN, MEMBER); incidents it held that are still open and unacknowledged page at once",
    params: windowParams,
    response: MessageBody,
    errors: { 403: ['Not authorized'], 404: ['Monitor not found', 'Maintenance window not found'] },
    failure: 'Failed to end maintenance window',
  },
  async ({ params, caller }) => {
    await endMonitorWindow(caller, params.id, params.windowId);
    return { message: 'Maintenance window ended' };
  },
);
