import * as z from '../../shared/platform/zod.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { listDeliveries } from '../../shared/webhooks/deliveries.js';
import { DeliveryBody, listDeliveriesQuery } from '../../shared/webhooks/model.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "A webhook's deliveries of the last 30 days, newest first, each with every attempt (time, status, duration, error, the first 1 KB of the response)",
    params: idParams,
    query: listDeliveriesQuery,
    response: z.strictObject({ deliveries: z.array(DeliveryBody), next_cursor: NextCursor }),
    errors: { 404: ['Webhook not found'] },
    failure: 'Failed to fetch deliveries',
    paged: true,
  },
  async ({ params, query, caller }) => {
    const page = await listDeliveries(caller, params.id, query);
    return { deliveries: page.items, next_cursor: page.next_cursor };
  },
);
