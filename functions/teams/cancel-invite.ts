import { MessageBody } from '../../shared/platform/api/common.js';
import { inviteParams } from '../../shared/teams/model.js';
import { cancelInvite } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Cancel a pending invite (OWNER or ADMIN)',
    params: inviteParams,
    response: MessageBody,
    errors: { 403: ['Not authorized'], 404: ['Team not found', 'Invalid or expired invite'] },
    failure: 'Failed to cancel invite',
  },
  async ({ params, caller }) => {
    await cancelInvite(caller, params.id, params.inviteId);
    return { message: 'Invite cancelled' };
  },
);
