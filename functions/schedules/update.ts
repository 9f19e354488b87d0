import * as z from '../../shared/platform/zod.js';
import { ScheduleBody, updateScheduleInput } from '../../shared/schedules/model.js';
import { SCHEDULE_IN_USE, updateSchedule } from '../../shared/schedules/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Rename a schedule, change its time zone or layers, or share it with a team (team_id) or take it back (null)',
    params: idParams,
    body: updateScheduleInput,
    response: z.strictObject({ schedule: ScheduleBody }),
    errors: {
      400: ['No updates provided'],
      403: ['Not authorized', 'Not a team member'],
      404: ['Schedule not found', 'Team not found'],
      409: [SCHEDULE_IN_USE],
    },
    failure: 'Failed to update schedule',
  },
  async ({ params, body, caller }) => ({ schedule: await updateSchedule(caller, params.id, body) }),
);
