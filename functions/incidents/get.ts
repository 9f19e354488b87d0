import * as z from '../../shared/platform/zod.js';
import { IncidentDetail } from '../../shared/incidents/model.js';
import { getIncident } from '../../shared/incidents/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Get an incident with its acknowledgement and escalation steps',
    params: idParams,
    response: z.strictObject({ incident: IncidentDetail }),
    errors: { 404: ['Incident not found'] },
    failure: 'Failed to fetch incident',
  },
  async ({ params, caller }) => ({ incident: await getIncident(caller, params.id) }),
);
