import { createIncidentInput } from '../../shared/incidents/model.js';
import { createIncident } from '../../shared/incidents/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { body: createIncidentInput, status: 201, failure: 'Failed to create incident' },
  async ({ body, caller }) => ({ incident: await createIncident(caller, body) }),
);
