import * as z from 'zod';
import { TeamListItem } from '../../shared/teams/model.js';
import { listTeams } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'List the teams the caller belongs to',
    response: z.strictObject({ teams: z.array(TeamListItem) }),
    failure: 'Failed to fetch teams',
  },
  async ({ caller }) => ({ teams: await listTeams(caller) }),
);
