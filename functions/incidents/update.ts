import * as z from '../../shared/platform/zod.js';
import { IncidentBody, updateIncidentInput } from '../../shared/incidents/model.js';
import { updateIncident } from '../../shared/incidents/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Update the status, severity or title of an incident (RESOLVED sets resolved_at)',
    params: idParams,
    body: updateIncidentInput,
    response: z.strictObject({ incident: IncidentBody }),
    errors: { 400: ['No updates provided'], 403: ['Not authorized'], 404: ['Incident not found'] },
    failure: 'Failed to update incident',
  },
  async ({ params, body, caller }) => ({ incident: await updateIncident(caller, params.id, body) }),
);
