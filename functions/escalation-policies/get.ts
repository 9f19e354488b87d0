import * as z from '../../shared/platform/zod.js';
import { PolicyBody } from '../../shared/escalation/model.js';
import { getPolicy } from '../../shared/escalation/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Get an escalation policy',
    params: idParams,
    response: z.strictObject({ escalation_policy: PolicyBody }),
    errors: { 404: ['Escalation policy not found'] },
    failure: 'Failed to fetch escalation policy',
  },
  async ({ params, caller }) => ({ escalation_policy: await getPolicy(caller, params.id) }),
);
