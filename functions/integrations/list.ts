import * as z from '../../shared/platform/zod.js';
import { IntegrationBody } from '../../shared/integrations/model.js';
import { listIntegrations } from '../../shared/integrations/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List a monitor's integrations, oldest first (never their keys)",
    params: idParams,
    response: z.strictObject({ integrations: z.array(IntegrationBody) }),
    errors: { 404: ['Monitor not found'] },
    failure: 'Failed to fetch integrations',
  },
  async ({ params, caller }) => ({ integrations: await listIntegrations(caller, params.id) }),
);
