import { resolveIncident } from '../../shared/incidents/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, failure: 'Failed to update incident' },
  async ({ params, caller }) => {
    await resolveIncident(caller, params.id);
    return { message: 'Incident resolved' };
  },
);
