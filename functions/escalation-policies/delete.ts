import { deletePolicy } from '../../shared/escalation/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, failure: 'Failed to delete escalation policy' },
  async ({ params, caller }) => {
    await deletePolicy(caller, params.id);
    return { message: 'Escalation policy deleted' };
  },
);
