import * as z from '../../shared/platform/zod.js';
import { createMonitorWindow, createWindowInput, WINDOW_LIMIT_TEXT, MaintenanceWindowBody, windowView } from '../../shared/monitors/maintenance.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary:
      "Create a maintenance window of a monitor (whoever may update it): inside it the monitor's incidents open and count as usual, but nothing pages and no subscriber is e-mailed until it ends",
    params: idParams,
    body: createWindowInput,
    status: 201,
    response: z.strictObject({ maintenance_window: MaintenanceWindowBody }),
    errors: { 400: [WINDOW_LIMIT_TEXT], 403: ['Not authorized'], 404: ['Monitor not found'] },
    idempotent: true,
    failure: 'Failed to create maintenance window',
  },
  async ({ params, body, caller }) => ({ maintenance_window: windowView(await createMonitorWindow(caller, params.id, body)) }),
);
