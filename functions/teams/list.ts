import { listTeams } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute({ failure: 'Failed to fetch teams' }, async ({ caller }) => ({
  teams: await listTeams(caller),
}));
