import * as z from '../../shared/platform/zod.js';
import { PolicyBody, updatePolicyInput } from '../../shared/escalation/model.js';
import { updatePolicy } from '../../shared/escalation/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "Rename an escalation policy, replace its steps (for incidents opened from then on), or share it with a team (team_id) or take it back (null)",
    params: idParams,
    body: updatePolicyInput,
    response: z.strictObject({ escalation_policy: PolicyBody }),
    errors: {
      400: ['No updates provided', 'Escalation policy in use'],
      403: ['Not authorized', 'Not a team member'],
      404: ['Escalation policy not found', 'Team not found'],
    },
    failure: 'Failed to update escalation policy',
  },
  async ({ params, body, caller }) => ({ escalation_policy: await updatePolicy(caller, params.id, body) }),
);
