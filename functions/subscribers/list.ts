import { listSubscribers } from '../../shared/subscribers/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute({ params: idParams, failure: 'Failed to fetch subscribers' }, async ({ params, caller }) => ({
  subscribers: await listSubscribers(caller, params.id),
}));
