import { getPolicy } from '../../shared/escalation/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, failure: 'Failed to fetch escalation policy' },
  async ({ params, caller }) => ({ escalation_policy: await getPolicy(caller, params.id) }),
);
