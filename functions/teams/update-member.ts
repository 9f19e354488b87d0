import { changeRoleInput, memberParams } from '../../shared/teams/model.js';
import { changeMemberRole } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: memberParams, body: changeRoleInput, failure: 'Failed to update member' },
  async ({ params, body, caller }) => ({ member: await changeMemberRole(caller, params.id, params.memberId, body) }),
);
