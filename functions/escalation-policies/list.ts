import * as z from '../../shared/platform/zod.js';
import { listPoliciesQuery, PolicyBody } from '../../shared/escalation/model.js';
import { listPolicies } from '../../shared/escalation/service.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's escalation policies and those shared with the caller's teams (or one team), newest first",
    query: listPoliciesQuery,
    response: z.strictObject({ escalation_policies: z.array(PolicyBody), next_cursor: NextCursor }),
    errors: { 403: ['Not a team member'], 404: ['Team not found'] },
    failure: 'Failed to fetch escalation policies',
    paged: true,
  },
  async ({ query, caller }) => {
    const page = await listPolicies(caller, query);
    return { escalation_policies: page.items, next_cursor: page.next_cursor };
  },
);
