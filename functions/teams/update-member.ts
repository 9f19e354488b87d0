import * as z from '../../shared/platform/zod.js';
import { changeRoleInput, MemberBody, memberParams } from '../../shared/teams/model.js';
import { changeMemberRole } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "Change a member's role (OWNER; OWNER is never assignable)",
    params: memberParams,
    body: changeRoleInput,
    response: z.strictObject({ member: MemberBody }),
    errors: { 400: ['Cannot change owner role'], 403: ['Only owner can change roles'], 404: ['Team not found', 'Member not found'] },
    failure: 'Failed to update member',
  },
  async ({ params, body, caller }) => ({ member: await changeMemberRole(caller, params.id, params.memberId, body) }),
);
