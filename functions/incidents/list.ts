import * as z from 'zod';
import { IncidentListItem, listIncidentsQuery } from '../../shared/incidents/model.js';
import { listIncidents } from '../../shared/incidents/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the incidents of the caller's monitors and of every team's monitors the caller can see, newest first",
    query: listIncidentsQuery,
    response: z.strictObject({ incidents: z.array(IncidentListItem) }),
    failure: 'Failed to fetch incidents',
  },
  async ({ query, caller }) => ({ incidents: await listIncidents(caller, query) }),
);
