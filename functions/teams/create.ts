import * as z from '../../shared/platform/zod.js';
import { createTeamInput, TeamBody } from '../../shared/teams/model.js';
import { createTeam } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Create a team (the creator becomes its OWNER)',
    body: createTeamInput,
    status: 201,
    response: z.strictObject({ team: TeamBody }),
    errors: { 400: ['Team slug already taken'], 403: ['No account found. Please sign up first.'] },
    idempotent: true,
    failure: 'Failed to create team',
  },
  async ({ body, caller }) => ({ team: await createTeam(caller, body) }),
);
