/**
 * Hooks through which state changes ask for notifications. Each returns the items to write in
 * the same transaction as the change (an outbox record), so a notification can never be lost
 * between the write and its sending.
 */
import type { TransactItem } from '../platform/db/ops.js';
import { outboxPut } from '../platform/events/outbox.js';
import type { Invite, Team } from './model.js';

export interface InviteCreated {
  invite: Invite;
  team: Team;
  invitedBy: { id: string; name: string; email: string };
}

export function inviteCreated({ invite, team, invitedBy }: InviteCreated): TransactItem[] {
  return [
    outboxPut(
      'team.invite_created',
      {
        invite: {
          id: invite.id,
          team_id: team.id,
          team_name: team.name,
          email: invite.email,
          role: invite.role,
          token: invite.token,
          expires_at: invite.expires_at,
        },
        invited_by: invitedBy,
      },
      invite.created_at,
    ),
  ];
}
