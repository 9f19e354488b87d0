import { MessageBody } from '../../shared/platform/api/common.js';
import { integrationParams } from '../../shared/integrations/model.js';
import { deleteIntegration } from '../../shared/integrations/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Delete an integration: its key is refused from the next event on',
    params: integrationParams,
    response: MessageBody,
    errors: { 403: ['Not authorized'], 404: ['Monitor not found', 'Integration not found'] },
    failure: 'Failed to delete integration',
  },
  async ({ params, caller }) => {
    await deleteIntegration(caller, params.id, params.integrationId);
    return { message: 'Integration deleted' };
  },
);
