import * as z from 'zod';
import { listPoliciesQuery, PolicyBody } from '../../shared/escalation/model.js';
import { listPolicies } from '../../shared/escalation/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's escalation policies and those shared with the caller's teams (or one team), newest first",
    query: listPoliciesQuery,
    response: z.strictObject({ escalation_policies: z.array(PolicyBody) }),
    errors: { 403: ['Not a team member'], 404: ['Team not found'] },
    failure: 'Failed to fetch escalation policies',
  },
  async ({ query, caller }) => ({ escalation_policies: await listPolicies(caller, query) }),
);
