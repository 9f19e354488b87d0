import { teamParams } from '../../shared/teams/model.js';
import { deleteTeam } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute({ params: teamParams, failure: 'Failed to delete team' }, async ({ params, caller }) => {
  await deleteTeam(caller, params.id);
  return { message: 'Team deleted' };
});
