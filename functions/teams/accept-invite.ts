import { MessageBody } from '../../shared/platform/api/common.js';
import { tokenParams } from '../../shared/teams/model.js';
import { acceptInvite } from '../../shared/teams/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Accept an invite (the caller\'s e-mail must be the invited one)',
    params: tokenParams,
    response: MessageBody,
    errors: {
      400: ['No account found with this email. Please sign up first.', 'Already a team member', 'Team member limit reached'],
      403: ['Invite was sent to a different email address'],
      404: ['Invalid or expired invite'],
    },
    failure: 'Failed to accept invite',
  },
  async ({ params, caller }) => {
    await acceptInvite(caller, params.token);
    return { message: 'Successfully joined team' };
  },
);
