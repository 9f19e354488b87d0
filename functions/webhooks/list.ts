import * as z from '../../shared/platform/zod.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { listWebhooksQuery, WebhookBody } from '../../shared/webhooks/model.js';
import { listWebhooks } from '../../shared/webhooks/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's own and monitor webhooks and those of the caller's teams (or of one team), newest first",
    query: listWebhooksQuery,
    response: z.strictObject({ webhooks: z.array(WebhookBody), next_cursor: NextCursor }),
    errors: { 403: ['Not a team member'], 404: ['Team not found'] },
    failure: 'Failed to fetch webhooks',
    paged: true,
  },
  async ({ query, caller }) => {
    const page = await listWebhooks(caller, query);
    return { webhooks: page.items, next_cursor: page.next_cursor };
  },
);
