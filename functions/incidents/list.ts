import * as z from '../../shared/platform/zod.js';
import { IncidentListItem, listIncidentsQuery } from '../../shared/incidents/model.js';
import { listIncidents } from '../../shared/incidents/service.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the incidents of the caller's monitors and of every team's monitors the caller can see, newest first",
    query: listIncidentsQuery,
    response: z.strictObject({ incidents: z.array(IncidentListItem), next_cursor: NextCursor }),
    errors: { 403: ['Not a team member'], 404: ['Team not found'] },
    failure: 'Failed to fetch incidents',
    paged: true,
  },
  async ({ query, caller }) => {
    const page = await listIncidents(caller, query);
    return { incidents: page.items, next_cursor: page.next_cursor };
  },
);
