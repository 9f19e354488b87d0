import * as z from '../../shared/platform/zod.js';
import { subscribeInput, SubscriberBody } from '../../shared/subscribers/model.js';
import { subscribe } from '../../shared/subscribers/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { quotaMessage, recipientQuotaMessage } from '../../shared/platform/quotas/daily.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary:
      "Subscribe an e-mail address to a monitor's incident notifications: the subscription is `pending` and the address is e-mailed one confirmation link; it is notified once it confirms",
    params: idParams,
    body: subscribeInput,
    status: 201,
    response: z.strictObject({ subscriber: SubscriberBody }),
    errors: { 400: ['Already subscribed'], 403: ['Not authorized'], 404: ['Monitor not found'], 429: [quotaMessage('subscriptions'), recipientQuotaMessage('confirmations')] },
    failure: 'Failed to create subscriber',
  },
  async ({ params, body, caller }) => ({ subscriber: await subscribe(caller, params.id, body) }),
);
