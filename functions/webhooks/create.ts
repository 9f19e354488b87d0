import * as z from '../../shared/platform/zod.js';
import { CreatedWebhookBody, createWebhookInput } from '../../shared/webhooks/model.js';
import { createWebhook, webhookLimitReached } from '../../shared/webhooks/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary:
      "Create an outgoing webhook for a monitor, a team's monitors (OWNER, ADMIN or MEMBER there) or all the caller's own monitors (at most 10 per monitor, 50 per team, 50 of one account's own); the response alone carries its URL in full and its secret",
    body: createWebhookInput,
    status: 201,
    response: z.strictObject({ webhook: CreatedWebhookBody }),
    errors: {
      400: (['monitor', 'team', 'owner'] as const).map((scope) => webhookLimitReached(scope).message),
      403: ['Not a team member', 'Not authorized'],
      404: ['Monitor not found', 'Team not found'],
    },
    idempotent: true,
    failure: 'Failed to create webhook',
  },
  async ({ body, caller }) => ({ webhook: await createWebhook(caller, body) }),
);
