import * as z from '../../shared/platform/zod.js';
import { createNotificationRuleInput, NotificationRuleBody } from '../../shared/contacts/model.js';
import { CONTACT_METHOD_NOT_FOUND, createNotificationRule, NOTIFICATION_RULE_EXISTS, NOTIFICATION_RULE_LIMIT_TEXT } from '../../shared/contacts/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Add a notification rule: notify one of your contact methods this many minutes after a page of this urgency (it fires only while the method is verified and enabled)',
    body: createNotificationRuleInput,
    status: 201,
    response: z.strictObject({ notification_rule: NotificationRuleBody }),
    errors: { 400: [NOTIFICATION_RULE_LIMIT_TEXT], 404: [CONTACT_METHOD_NOT_FOUND], 409: [NOTIFICATION_RULE_EXISTS] },
    failure: 'Failed to create notification rule',
  },
  async ({ body, caller }) => ({ notification_rule: await createNotificationRule(caller, body) }),
);
