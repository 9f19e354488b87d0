import { subscriberParams } from '../../shared/subscribers/model.js';
import { removeSubscriber } from '../../shared/subscribers/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: subscriberParams, failure: 'Failed to delete subscriber' },
  async ({ params, caller }) => {
    await removeSubscriber(caller, params.id, params.subscriberId);
    return { message: 'Subscriber removed' };
  },
);
