import * as z from '../../shared/platform/zod.js';
import { updateWebhookInput, WebhookBody } from '../../shared/webhooks/model.js';
import { updateWebhook } from '../../shared/webhooks/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "Update a webhook's URL, events, format or description; every update (an empty body too) enables it again",
    params: idParams,
    body: updateWebhookInput,
    response: z.strictObject({ webhook: WebhookBody }),
    errors: { 403: ['Not authorized'], 404: ['Webhook not found'] },
    failure: 'Failed to update webhook',
  },
  async ({ params, body, caller }) => ({ webhook: await updateWebhook(caller, params.id, body) }),
);
