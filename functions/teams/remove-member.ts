import * as z from '../../shared/platform/zod.js';
import { described } from '../../shared/platform/api/common.js';
import { memberParams } from '../../shared/teams/model.js';
import { removeMember } from '../../shared/teams/service.js';
import { LeftBehindBody, reviewLeaver } from '../../shared/webhooks/leaver.js';
import { httpRoute } from '../lib/http.js';

const MemberRemovedBody = described(z.strictObject({ message: z.string(), left_behind: z.optional(LeftBehindBody) }), {
  id: 'MemberRemoved',
  description:
    "With `left_behind` when the member had created something for the team: the team's webhooks they created are disabled (`creator_lost_access`); the integrations they created on its monitors keep working, named for review.",
  example: { message: 'Member removed' },
});

export const handler = httpRoute(
  {
    summary: 'Remove a member (OWNER or ADMIN; never the owner)',
    params: memberParams,
    response: MemberRemovedBody,
    errors: { 400: ['Cannot remove owner'], 403: ['Not authorized'], 404: ['Team not found', 'Member not found'] },
    failure: 'Failed to remove member',
  },
  async ({ params, caller }) => {
    const removed = await removeMember(caller, params.id, params.memberId);
    const leftBehind = await reviewLeaver(params.id, removed.user_id);
    return { message: 'Member removed', ...(leftBehind ? { left_behind: leftBehind } : {}) };
  },
);
