import { teamParams } from '../../shared/teams/model.js';
import { getTeam } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute({ params: teamParams, failure: 'Failed to fetch team' }, async ({ params, caller }) =>
  getTeam(caller, params.id),
);
