import * as z from '../../shared/platform/zod.js';
import { listSchedulesQuery, ScheduleBody } from '../../shared/schedules/model.js';
import { listSchedules } from '../../shared/schedules/service.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's schedules and those shared with the caller's teams (or one team), newest first",
    query: listSchedulesQuery,
    response: z.strictObject({ schedules: z.array(ScheduleBody), next_cursor: NextCursor }),
    errors: { 403: ['Not a team member'], 404: ['Team not found'] },
    failure: 'Failed to fetch schedules',
    paged: true,
  },
  async ({ query, caller }) => {
    const page = await listSchedules(caller, query);
    return { schedules: page.items, next_cursor: page.next_cursor };
  },
);
