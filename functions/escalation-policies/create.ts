import * as z from '../../shared/platform/zod.js';
import { createPolicyInput, PolicyBody } from '../../shared/escalation/model.js';
import { createPolicy } from '../../shared/escalation/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Create an escalation policy (1-10 steps, the first at delay 0, delays increasing), optionally shared with a team',
    body: createPolicyInput,
    status: 201,
    response: z.strictObject({ escalation_policy: PolicyBody }),
    errors: { 403: ['Not a team member', 'Not authorized'], 404: ['Team not found'] },
    failure: 'Failed to create escalation policy',
  },
  async ({ body, caller }) => ({ escalation_policy: await createPolicy(caller, body) }),
);
