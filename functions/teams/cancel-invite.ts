import { inviteParams } from '../../shared/teams/model.js';
import { cancelInvite } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute({ params: inviteParams, failure: 'Failed to cancel invite' }, async ({ params, caller }) => {
  await cancelInvite(caller, params.id, params.inviteId);
  return { message: 'Invite cancelled' };
});
