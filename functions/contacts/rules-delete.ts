import { MessageBody } from '../../shared/platform/api/common.js';
import { idParams } from '../../shared/platform/validation.js';
import { deleteNotificationRule, NOTIFICATION_RULE_NOT_FOUND } from '../../shared/contacts/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Delete a notification rule',
    params: idParams,
    response: MessageBody,
    errors: { 404: [NOTIFICATION_RULE_NOT_FOUND] },
    failure: 'Failed to delete notification rule',
  },
  async ({ params, caller }) => {
    await deleteNotificationRule(caller, params.id);
    return { message: 'Notification rule deleted' };
  },
);
