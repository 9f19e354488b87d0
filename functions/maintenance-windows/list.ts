import * as z from '../../shared/platform/zod.js';
import { listMonitorWindows, MaintenanceWindowBody, windowView } from '../../shared/monitors/maintenance.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List a monitor's maintenance windows and its team's: current and future ones by start, then those ended in the last 30 days, latest first",
    params: idParams,
    response: z.strictObject({ maintenance_windows: z.array(MaintenanceWindowBody) }),
    errors: { 404: ['Monitor not found'] },
    failure: 'Failed to fetch maintenance windows',
  },
  async ({ params, caller }) => ({ maintenance_windows: (await listMonitorWindows(caller, params.id)).map(windowView) }),
);
