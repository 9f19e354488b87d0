import { tokenParams } from '../../shared/teams/model.js';
import { acceptInvite } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute({ params: tokenParams, failure: 'Failed to accept invite' }, async ({ params, caller }) => {
  await acceptInvite(caller, params.token);
  return { message: 'Successfully joined team' };
});
