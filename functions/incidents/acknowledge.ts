import { acknowledgeIncidentInput } from '../../shared/incidents/model.js';
import { acknowledgeIncident } from '../../shared/incidents/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, body: acknowledgeIncidentInput, failure: 'Failed to update incident' },
  async ({ params, body, caller }) => ({ incident: await acknowledgeIncident(caller, params.id, body) }),
);
