import * as z from '../../shared/platform/zod.js';
import { WebhookBody } from '../../shared/webhooks/model.js';
import { getWebhook } from '../../shared/webhooks/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Get a webhook (never its secret)',
    params: idParams,
    response: z.strictObject({ webhook: WebhookBody }),
    errors: { 404: ['Webhook not found'] },
    failure: 'Failed to fetch webhook',
  },
  async ({ params, caller }) => ({ webhook: await getWebhook(caller, params.id) }),
);
