import { listPolicies } from '../../shared/escalation/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute({ failure: 'Failed to fetch escalation policies' }, async ({ caller }) => ({
  escalation_policies: await listPolicies(caller),
}));
