import * as z from '../../shared/platform/zod.js';
import { InviteBody, inviteInput, teamParams } from '../../shared/teams/model.js';
import { inviteMember } from '../../shared/teams/service.js';
import { quotaMessage, recipientQuotaMessage } from '../../shared/platform/quotas/daily.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Invite someone by e-mail (OWNER or ADMIN); the invite e-mail carries the token',
    params: teamParams,
    body: inviteInput,
    status: 201,
    response: z.strictObject({ invite: InviteBody }),
    errors: {
      400: ['User is already a team member', 'Invite already sent to this email', 'Team member limit reached'],
      403: ['Not authorized to invite'],
      404: ['Team not found'],
      429: [quotaMessage('invites'), recipientQuotaMessage('invites')],
    },
    idempotent: true,
    failure: 'Failed to create invite',
  },
  async ({ params, body, caller }) => ({ invite: await inviteMember(caller, params.id, body) }),
);
