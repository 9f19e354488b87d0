import * as z from 'zod';
import { createPolicyInput, PolicyBody } from '../../shared/escalation/model.js';
import { createPolicy } from '../../shared/escalation/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Create an escalation policy (1-10 steps, the first at delay 0, delays increasing)',
    body: createPolicyInput,
    status: 201,
    response: z.strictObject({ escalation_policy: PolicyBody }),
    failure: 'Failed to create escalation policy',
  },
  async ({ body, caller }) => ({ escalation_policy: await createPolicy(caller, body) }),
);
