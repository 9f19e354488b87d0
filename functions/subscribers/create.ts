import { subscribeInput } from '../../shared/subscribers/model.js';
import { subscribe } from '../../shared/subscribers/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, body: subscribeInput, status: 201, failure: 'Failed to create subscriber' },
  async ({ params, body, caller }) => ({ subscriber: await subscribe(caller, params.id, body) }),
);
