import * as z from '../../shared/platform/zod.js';
import { createIncidentInput, IncidentBody } from '../../shared/incidents/model.js';
import { createIncident } from '../../shared/incidents/service.js';
import { quotaMessage } from '../../shared/platform/quotas/daily.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Create an incident manually (subscribers are notified)',
    body: createIncidentInput,
    status: 201,
    response: z.strictObject({ incident: IncidentBody }),
    errors: { 403: ['Not authorized'], 404: ['Monitor not found'], 429: [quotaMessage('incidents')] },
    idempotent: true,
    failure: 'Failed to create incident',
  },
  async ({ body, caller }) => ({ incident: await createIncident(caller, body) }),
);
