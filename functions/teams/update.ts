import * as z from '../../shared/platform/zod.js';
import { TeamBody, teamParams, updateTeamInput } from '../../shared/teams/model.js';
import { updateTeam } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "Rename a team (OWNER or ADMIN); the slug never changes",
    params: teamParams,
    body: updateTeamInput,
    response: z.strictObject({ team: TeamBody }),
    errors: { 400: ['No updates provided'], 403: ['Not authorized'], 404: ['Team not found'] },
    failure: 'Failed to update team',
  },
  async ({ params, body, caller }) => ({ team: await updateTeam(caller, params.id, body) }),
);
