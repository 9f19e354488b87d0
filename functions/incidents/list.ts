import { listIncidentsQuery } from '../../shared/incidents/model.js';
import { listIncidents } from '../../shared/incidents/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { query: listIncidentsQuery, failure: 'Failed to fetch incidents' },
  async ({ query, caller }) => ({ incidents: await listIncidents(caller, query) }),
);
