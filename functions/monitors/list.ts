import * as z from 'zod';
import { listMonitorsQuery, MonitorBody } from '../../shared/monitors/model.js';
import { listMonitors } from '../../shared/monitors/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's monitors and those of the caller's teams (or of one team), newest first",
    query: listMonitorsQuery,
    response: z.strictObject({ monitors: z.array(MonitorBody) }),
    errors: { 403: ['Not a team member'], 404: ['Team not found'] },
    failure: 'Failed to fetch monitors',
  },
  async ({ query, caller }) => ({ monitors: await listMonitors(caller, query) }),
);
