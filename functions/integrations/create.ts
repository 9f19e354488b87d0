import * as z from '../../shared/platform/zod.js';
import { CreatedIntegrationBody, createIntegrationInput } from '../../shared/integrations/model.js';
import { createIntegration } from '../../shared/integrations/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary:
      'Create an integration of a monitor: a key that monitoring tools send alerts with (Events API v2 `routing_key`, or an Alertmanager/Grafana webhook\'s bearer token); the key is in this response only',
    params: idParams,
    body: createIntegrationInput,
    status: 201,
    response: z.strictObject({ integration: CreatedIntegrationBody }),
    errors: { 403: ['Not authorized'], 404: ['Monitor not found'] },
    failure: 'Failed to create integration',
  },
  async ({ params, body, caller }) => ({ integration: await createIntegration(caller, params.id, body) }),
);
