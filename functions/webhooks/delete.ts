import { MessageBody } from '../../shared/platform/api/common.js';
import { deleteWebhook } from '../../shared/webhooks/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Delete a webhook; messages under way are dropped',
    params: idParams,
    response: MessageBody,
    errors: { 403: ['Not authorized'], 404: ['Webhook not found'] },
    failure: 'Failed to delete webhook',
  },
  async ({ params, caller }) => {
    await deleteWebhook(caller, params.id);
    return { message: 'Webhook deleted' };
  },
);
