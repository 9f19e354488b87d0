import { MessageBody } from '../../shared/platform/api/common.js';
import { memberParams } from '../../shared/teams/model.js';
import { removeMember } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Remove a member (OWNER or ADMIN; never the owner)',
    params: memberParams,
    response: MessageBody,
    errors: { 400: ['Cannot remove owner'], 403: ['Not authorized'], 404: ['Team not found', 'Member not found'] },
    failure: 'Failed to remove member',
  },
  async ({ params, caller }) => {
    await removeMember(caller, params.id, params.memberId);
    return { message: 'Member removed' };
  },
);
