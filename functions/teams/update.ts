import { teamParams, updateTeamInput } from '../../shared/teams/model.js';
import { updateTeam } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: teamParams, body: updateTeamInput, failure: 'Failed to update team' },
  async ({ params, body, caller }) => ({ team: await updateTeam(caller, params.id, body) }),
);
