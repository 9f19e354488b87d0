import { MessageBody } from '../../shared/platform/api/common.js';
import { subscriberParams } from '../../shared/subscribers/model.js';
import { removeSubscriber } from '../../shared/subscribers/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Remove a subscriber',
    params: subscriberParams,
    response: MessageBody,
    errors: { 403: ['Not authorized'], 404: ['Monitor not found', 'Subscriber not found'] },
    failure: 'Failed to delete subscriber',
  },
  async ({ params, caller }) => {
    await removeSubscriber(caller, params.id, params.subscriberId);
    return { message: 'Subscriber removed' };
  },
);
