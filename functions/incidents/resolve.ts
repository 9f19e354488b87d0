import { MessageBody } from '../../shared/platform/api/common.js';
import { resolveIncident } from '../../shared/incidents/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Resolve an incident (status RESOLVED, resolved_at now)',
    params: idParams,
    response: MessageBody,
    errors: { 403: ['Not authorized'], 404: ['Incident not found'] },
    failure: 'Failed to update incident',
  },
  async ({ params, caller }) => {
    await resolveIncident(caller, params.id);
    return { message: 'Incident resolved' };
  },
);
