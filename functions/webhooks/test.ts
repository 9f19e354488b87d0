import * as z from '../../shared/platform/zod.js';
import { testWebhook } from '../../shared/webhooks/deliveries.js';
import { DeliveryBody } from '../../shared/webhooks/model.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Send a `ping` message to the webhook now; answers the delivery with its outcome (a failed ping is still a 200)',
    params: idParams,
    response: z.strictObject({ delivery: DeliveryBody }),
    errors: { 403: ['Not authorized'], 404: ['Webhook not found'] },
    failure: 'Failed to test webhook',
  },
  async ({ params, caller }) => ({ delivery: await testWebhook(caller, params.id) }),
);
