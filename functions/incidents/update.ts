import { updateIncidentInput } from '../../shared/incidents/model.js';
import { updateIncident } from '../../shared/incidents/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, body: updateIncidentInput, failure: 'Failed to update incident' },
  async ({ params, body, caller }) => ({ incident: await updateIncident(caller, params.id, body) }),
);
