import { memberParams } from '../../shared/teams/model.js';
import { removeMember } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute({ params: memberParams, failure: 'Failed to remove member' }, async ({ params, caller }) => {
  await removeMember(caller, params.id, params.memberId);
  return { message: 'Member removed' };
});
