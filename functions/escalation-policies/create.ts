import { createPolicyInput } from '../../shared/escalation/model.js';
import { createPolicy } from '../../shared/escalation/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { body: createPolicyInput, status: 201, failure: 'Failed to create escalation policy' },
  async ({ body, caller }) => ({ escalation_policy: await createPolicy(caller, body) }),
);
