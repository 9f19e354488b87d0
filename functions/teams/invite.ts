import { inviteInput, teamParams } from '../../shared/teams/model.js';
import { inviteMember } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: teamParams, body: inviteInput, status: 201, failure: 'Failed to create invite' },
  async ({ params, body, caller }) => ({ invite: await inviteMember(caller, params.id, body) }),
);
