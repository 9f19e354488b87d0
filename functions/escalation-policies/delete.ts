import { MessageBody } from '../../shared/platform/api/common.js';
import { deletePolicy } from '../../shared/escalation/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Delete an escalation policy no monitor uses (its owner, or an OWNER or ADMIN of its team)',
    params: idParams,
    response: MessageBody,
    errors: { 400: ['Escalation policy in use'], 403: ['Not authorized'], 404: ['Escalation policy not found'] },
    failure: 'Failed to delete escalation policy',
  },
  async ({ params, caller }) => {
    await deletePolicy(caller, params.id);
    return { message: 'Escalation policy deleted' };
  },
);
