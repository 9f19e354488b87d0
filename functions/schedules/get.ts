import * as z from '../../shared/platform/zod.js';
import { ScheduleBody } from '../../shared/schedules/model.js';
import { getSchedule } from '../../shared/schedules/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Get an on-call schedule',
    params: idParams,
    response: z.strictObject({ schedule: ScheduleBody }),
    errors: { 404: ['Schedule not found'] },
    failure: 'Failed to fetch schedule',
  },
  async ({ params, caller }) => ({ schedule: await getSchedule(caller, params.id) }),
);
