import * as z from '../../shared/platform/zod.js';
import { acknowledgeIncidentInput, IncidentBody } from '../../shared/incidents/model.js';
import { acknowledgeIncident } from '../../shared/incidents/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Acknowledge an incident (stops further escalation)',
    params: idParams,
    body: acknowledgeIncidentInput,
    response: z.strictObject({ incident: IncidentBody }),
    errors: { 400: ['Incident already acknowledged'], 403: ['Not authorized'], 404: ['Incident not found'] },
    failure: 'Failed to update incident',
  },
  async ({ params, body, caller }) => ({ incident: await acknowledgeIncident(caller, params.id, body) }),
);
