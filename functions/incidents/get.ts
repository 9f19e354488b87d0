import { getIncident } from '../../shared/incidents/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, failure: 'Failed to fetch incident' },
  async ({ params, caller }) => ({ incident: await getIncident(caller, params.id) }),
);
