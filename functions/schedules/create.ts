import * as z from '../../shared/platform/zod.js';
import { createScheduleInput, ScheduleBody } from '../../shared/schedules/model.js';
import { createSchedule } from '../../shared/schedules/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Create an on-call schedule (an IANA time zone, 1-10 layers of rotations), optionally shared with a team',
    body: createScheduleInput,
    status: 201,
    response: z.strictObject({ schedule: ScheduleBody }),
    errors: { 403: ['Not a team member', 'Not authorized'], 404: ['Team not found'] },
    failure: 'Failed to create schedule',
  },
  async ({ body, caller }) => ({ schedule: await createSchedule(caller, body) }),
);
