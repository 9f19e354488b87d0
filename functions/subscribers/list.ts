import * as z from 'zod';
import { SubscriberBody } from '../../shared/subscribers/model.js';
import { listSubscribers } from '../../shared/subscribers/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List a monitor's subscribers",
    params: idParams,
    response: z.strictObject({ subscribers: z.array(SubscriberBody) }),
    errors: { 404: ['Monitor not found'] },
    failure: 'Failed to fetch subscribers',
  },
  async ({ params, caller }) => ({ subscribers: await listSubscribers(caller, params.id) }),
);
