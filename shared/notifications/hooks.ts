/**
 * Hooks through which state changes ask for notifications. Each returns the extra items to
 * write in the same transaction as the change, so a notification can never be lost between
 * the write and its sending. Until the notifications issue adds the outbox, they write nothing
 * and nothing is sent.
 */
import type { TransactItem } from '../teams/repository.js';
import type { Invite, Team } from '../teams/model.js';

export interface InviteCreated {
  invite: Invite;
  team: Team;
  invitedBy: { id: string; name: string; email: string };
}

export function inviteCreated(_event: InviteCreated): TransactItem[] {
  return [];
}
