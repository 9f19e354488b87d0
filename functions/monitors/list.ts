import * as z from '../../shared/platform/zod.js';
import { listMonitorsQuery, MonitorBody } from '../../shared/monitors/model.js';
import { listMonitors } from '../../shared/monitors/service.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's monitors and those of the caller's teams (or of one team), newest first",
    query: listMonitorsQuery,
    response: z.strictObject({ monitors: z.array(MonitorBody), next_cursor: NextCursor }),
    errors: { 403: ['Not a team member'], 404: ['Team not found'] },
    failure: 'Failed to fetch monitors',
    paged: true,
  },
  async ({ query, caller }) => {
    const page = await listMonitors(caller, query);
    return { monitors: page.items, next_cursor: page.next_cursor };
  },
);
