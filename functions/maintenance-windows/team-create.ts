import * as z from '../../shared/platform/zod.js';
import { createTeamWindow, createWindowInput, WINDOW_LIMIT_TEXT, MaintenanceWindowBody, windowView } from '../../shared/monitors/maintenance.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "Create a maintenance window of a team (its OWNER, ADMIN, MEMBER), covering every monitor shared with the team while it lasts",
    params: idParams,
    body: createWindowInput,
    status: 201,
    response: z.strictObject({ maintenance_window: MaintenanceWindowBody }),
    errors: { 400: [WINDOW_LIMIT_TEXT], 403: ['Not authorized'], 404: ['Team not found'] },
    idempotent: true,
    failure: 'Failed to create maintenance window',
  },
  async ({ params, body, caller }) => ({ maintenance_window: windowView(await createTeamWindow(caller, params.id, body)) }),
);
