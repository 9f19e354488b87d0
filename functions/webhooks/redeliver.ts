import * as z from '../../shared/platform/zod.js';
import { LOST_ACCESS_TEXT, redeliver } from '../../shared/webhooks/deliveries.js';
import { DeliveryBody, deliveryParams } from '../../shared/webhooks/model.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Send a finished delivery again now (same webhook-id and body, signed now); answers the delivery with the new attempt',
    params: deliveryParams,
    response: z.strictObject({ delivery: DeliveryBody }),
    errors: { 403: ['Not authorized'], 404: ['Webhook not found', 'Delivery not found'], 409: ['Delivery is still pending', LOST_ACCESS_TEXT] },
    failure: 'Failed to redeliver',
  },
  async ({ params, caller }) => ({ delivery: await redeliver(caller, params.id, params.deliveryId) }),
);
