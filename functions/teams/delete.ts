import { MessageBody } from '../../shared/platform/api/common.js';
import { teamParams } from '../../shared/teams/model.js';
import { deleteTeam } from '../../shared/team-deletion/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Delete a team with its memberships and invites (OWNER)',
    params: teamParams,
    response: MessageBody,
    errors: { 403: ['Only owner can delete team'], 404: ['Team not found'] },
    failure: 'Failed to delete team',
  },
  async ({ params, caller }) => {
    await deleteTeam(caller, params.id);
    return { message: 'Team deleted' };
  },
);
