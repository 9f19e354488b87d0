import { createTeamInput } from '../../shared/teams/model.js';
import { createTeam } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { body: createTeamInput, status: 201, failure: 'Failed to create team' },
  async ({ body, caller }) => ({ team: await createTeam(caller, body) }),
);
