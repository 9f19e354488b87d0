import { TeamDetail, teamParams } from '../../shared/teams/model.js';
import { getTeam } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Get a team with its members, pending invites, the caller\'s role and what that role lets them do (permissions)',
    params: teamParams,
    response: TeamDetail,
    errors: { 403: ['Not a team member'], 404: ['Team not found'] },
    failure: 'Failed to fetch team',
  },
  async ({ params, caller }) => getTeam(caller, params.id),
);
