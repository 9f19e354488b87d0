import * as z from 'zod';
import { PolicyBody } from '../../shared/escalation/model.js';
import { listPolicies } from '../../shared/escalation/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's escalation policies, newest first",
    response: z.strictObject({ escalation_policies: z.array(PolicyBody) }),
    failure: 'Failed to fetch escalation policies',
  },
  async ({ caller }) => ({ escalation_policies: await listPolicies(caller) }),
);
