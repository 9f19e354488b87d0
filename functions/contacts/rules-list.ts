import * as z from '../../shared/platform/zod.js';
import { NotificationRuleBody } from '../../shared/contacts/model.js';
import { listNotificationRules } from '../../shared/contacts/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's notification rules: high urgency first, then by delay (every account starts with its e-mail at 0 minutes for both)",
    response: z.strictObject({ notification_rules: z.array(NotificationRuleBody) }),
    failure: 'Failed to fetch notification rules',
  },
  async ({ caller }) => ({ notification_rules: await listNotificationRules(caller) }),
);
