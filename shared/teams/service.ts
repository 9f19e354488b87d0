import { randomBytes, randomUUID } from 'node:crypto';
import { accountItem, type Account } from '../accounts/model.js';
import { findAccountIdByEmail } from '../accounts/repository.js';
import { getAccount, identityOf } from '../accounts/service.js';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { quotaCharge, quotaExceeded, recipientQuotaCharge, recipientQuotaExceeded } from '../platform/quotas/daily.js';
import { keys } from '../platform/db/keys.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../platform/errors.js';
import { inviteCreated } from './hooks.js';
import { auditPut, type AuditSpec } from '../audit/entry.js';
import { linkTokenHash } from '../platform/emailed-link.js';
import { decodeCursor, encodeCursor, type PageRequest } from '../platform/api/pagination.js';
import { mergePage, readSource, type PageWindow } from '../platform/db/pagination.js';
import { countMetric } from '../platform/observability/metrics.js';
import * as repository from './repository.js';
import {
  INVITE_LIFETIME_MS,
  inviteView,
  inviteTokenHint,
  memberDetailView,
  memberView,
  permissionsOf,
  TEAM_RIGHTS,
  membershipItem,
  teamListView,
  teamView,
  type ChangeRoleInput,
  type CreateTeamInput,
  type Invite,
  type InviteInput,
  type Member,
  type Role,
  type Team,
  type UpdateTeamInput,
} from './model.js';

/** Who reads a pending invite's token in full: those who may invite (the others read a hint). */
const MANAGERS: readonly Role[] = TEAM_RIGHTS.invite;

const teamNotFound = () => new NotFoundError('Team not found');
const memberNotFound = () => new NotFoundError('Member not found');
const invalidInvite = () => new NotFoundError('Invalid or expired invite');
const teamFull = () => new BadRequestError('Team member limit reached');

/** Raised when a transaction fails on a condition that fresh ids make impossible. */
const unexpected = (what: string) => new Error(`Unexpected conflict: ${what}`);


/**
 * Reads the team and the caller's membership (plus `extra` keys) in one call, and checks that
 * the team exists (404) and that the caller holds one of `roles` (403 `denied`).
 */
async function authorize<const K extends Record<string, Record<string, string>>>(
  caller: Caller,
  teamId: string,
  roles: readonly Role[],
  denied: string,
  extra: K = {} as K,
) {
  const read = await repository.getByKeys({
    ...extra,
    team: keys.team(teamId),
    membership: keys.teamMembership(teamId, caller.userId),
    // The caller's name for the audit entry, in the same BatchGetItem (an access token may carry no `name`).
    account: keys.account(caller.userId),
  });
  const team = repository.parseTeam(read.team);
  if (!team) throw teamNotFound();
  const membership = repository.parseMembership(read.membership);
  if (!membership || !roles.includes(membership.role)) throw new ForbiddenError(denied);
  const actor: Caller = { ...caller, name: read.account ? accountItem.parse(read.account).name : caller.name };
  return { team, membership, read, actor, guard: { teamId, userId: caller.userId, roles } };
}

const fail = (outcome: string, errors: Record<string, () => Error>) => {
  if (outcome === 'ok') return;
  throw (errors[outcome] ?? (() => unexpected(outcome)))();
};

/** A page of the caller's teams with member count and the caller's role, newest membership first. */
export async function listTeams(caller: Caller, query: PageRequest) {
  const binding = { list: 'teams', callerId: caller.userId };
  const window: PageWindow = { limit: query.limit, order: 'desc', after: decodeCursor(query.cursor, binding) };
  const page = mergePage([await readSource(repository.membershipSource(caller.userId), window)], window);
  const memberships = page.items.map((item) => membershipItem.parse(item));
  const teams = new Map((await repository.getTeams(memberships.map((m) => m.team_id))).map((team) => [team.id, team]));
  const items = memberships.flatMap((membership) => {
    const team = teams.get(membership.team_id);
    return team ? [teamListView(team, membership.role)] : [];
  });
  return { items, next_cursor: page.next === undefined ? null : encodeCursor(page.next, binding) };
}

/** Claims the slug, writes the team and makes the creator its OWNER and first member. */
export async function createTeam(caller: Caller, input: CreateTeamInput) {
  const identity = identityOf(caller, await getAccount(caller.userId));
  const now = clock.nowIso();
  const team: Team = {
    id: randomUUID(),
    name: input.name,
    slug: input.slug,
    owner_id: caller.userId,
    member_count: 1,
    created_at: now,
    updated_at: now,
  };
  const owner: Member = {
    id: randomUUID(),
    team_id: team.id,
    user_id: caller.userId,
    name: identity.name,
    email: identity.email,
    role: 'OWNER',
    joined_at: now,
  };
  const outcome = await repository.createTeam(team, owner, membershipOf(owner), auditPut({ ...caller, name: identity.name }, {
    ...teamResource(team),
    action: 'team.created',
    changes: { name: { from: null, to: team.name }, slug: { from: null, to: team.slug } },
  }, now));
  fail(outcome, {
    slug_taken: () => new BadRequestError('Team slug already taken'),
    no_account: () => new ForbiddenError('No account found. Please sign up first.'),
  });
  return teamView(team);
}

const { membershipOf } = repository;

/** An entry about the team itself: in its log, and in its owner's. */
const teamResource = (team: Pick<Team, 'id' | 'name' | 'owner_id'>): Omit<AuditSpec, 'action'> => ({
  resource: { type: 'team', id: team.id, name: team.name },
  team_id: team.id,
  owner_id: team.owner_id,
});

/** An entry about a team's member or invitation: in the team's log only. */
const teamPart = (teamId: string, type: 'member' | 'invitation', id: string, name: string): Omit<AuditSpec, 'action'> => ({
  resource: { type, id, name },
  team_id: teamId,
  owner_id: null,
});

/** The team, its members (oldest first), its unexpired invites (newest first) and the caller's role. */
export async function getTeam(caller: Caller, teamId: string) {
  const collection = await repository.getTeamCollection(teamId, clock.nowIso());
  if (!collection) throw teamNotFound();
  const membership = collection.memberships.find((candidate) => candidate.user_id === caller.userId);
  if (!membership) throw new ForbiddenError('Not a team member');
  const members = [...collection.members].sort((a, b) => a.joined_at.localeCompare(b.joined_at) || a.id.localeCompare(b.id));
  const invites = [...collection.invites].sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
  return {
    team: teamView(collection.team),
    members: members.map(memberDetailView),
    // The contract's form, token included: the managers (who invite and cancel) read it; the others a hint.
    pendingInvites: invites.map((invite) =>
      inviteView(MANAGERS.includes(membership.role) ? invite : { ...invite, token: inviteTokenHint(invite.token) }),
    ),
    userRole: membership.role,
    permissions: permissionsOf(membership.role),
  };
}

export async function updateTeam(caller: Caller, teamId: string, input: UpdateTeamInput) {
  if (input.name === undefined) throw new BadRequestError('No updates provided');
  const { team, guard, actor } = await authorize(caller, teamId, TEAM_RIGHTS.rename, 'Not authorized');
  const now = clock.nowIso();
  const audit = auditPut(actor, { ...teamResource(team), action: 'team.updated', changes: { name: { from: team.name, to: input.name } } }, now);
  fail(await repository.renameTeam(guard, input.name, now, audit), {
    forbidden: () => new ForbiddenError('Not authorized'),
    not_found: teamNotFound,
  });
  return teamView({ ...team, name: input.name, updated_at: now });
}

/**
 * Deletes the team (gone at once: nobody sees anything through it from then on), has
 * `returnToOwners` give every shared monitor, policy and schedule back to its owner, then removes
 * every membership, invite and lookup item. The resources sit on floors above teams/, so the
 * returning is passed in by `team-deletion/service.ts`, which the handler calls.
 */
export async function deleteTeam(caller: Caller, teamId: string, returnToOwners: (shared: repository.Shared) => Promise<void>) {
  const { team, guard, actor } = await authorize(caller, teamId, TEAM_RIGHTS.delete, 'Only owner can delete team');
  fail(await repository.deleteTeamRecord(guard, team, auditPut(actor, { ...teamResource(team), action: 'team.deleted' })), {
    forbidden: () => new ForbiddenError('Only owner can delete team'),
    not_found: teamNotFound,
  });
  await repository.purgeTeamItems(teamId, returnToOwners);
}

/** A new invite token (256 random bits, base64url) and its SHA-256, which is all the table keeps of it. */
function newInviteToken() {
  const token = randomBytes(32).toString('base64url');
  return { token, token_hash: linkTokenHash(token) };
}

/**
 * A new invite with a 256-bit URL-safe token, valid 7 days; its e-mail is requested in the same
 * write. The inviter's name for that e-mail comes from the token's claims (no extra read).
 */
export async function inviteMember(caller: Caller, teamId: string, input: InviteInput) {
  const { team, guard, read, actor } = await authorize(caller, teamId, TEAM_RIGHTS.invite, 'Not authorized to invite', {
    invitee: keys.accountEmail(input.email),
  });
  const now = clock.now();
  const invite: Invite = {
    id: randomUUID(),
    team_id: teamId,
    email: input.email,
    role: input.role,
    ...newInviteToken(),
    invited_by: caller.userId,
    expires_at: new Date(now.getTime() + INVITE_LIFETIME_MS).toISOString(),
    created_at: now.toISOString(),
  };
  const inviteeUserId = typeof read.invitee?.user_id === 'string' ? read.invitee.user_id : undefined;
  const invitedBy = { id: caller.userId, ...identityOf(caller, undefined) };
  const hookItems = inviteCreated({ invite, team, invitedBy });
  // The invite e-mail is counted against the inviter's daily quota and the invitee address's, in the invite's own transaction.
  const quota = quotaCharge(caller.userId, 'invites', now);
  const recipientQuota = recipientQuotaCharge(invite.email, 'invites', now);
  // The token never appears in the entry.
  const audit = auditPut(actor, {
    ...teamPart(teamId, 'invitation', invite.id, invite.email),
    action: 'invitation.created',
    changes: { email: { from: null, to: invite.email }, role: { from: null, to: invite.role } },
  }, now.toISOString());
  let outcome = await repository.insertInvite(guard, invite, inviteeUserId, now.toISOString(), hookItems, quota, recipientQuota, audit);
  // Full: free the seats of expired invites, if any, and try once more.
  if (outcome === 'full' && (await repository.reclaimExpiredInvites(teamId, now.toISOString())) > 0) {
    outcome = await repository.insertInvite(guard, invite, inviteeUserId, now.toISOString(), hookItems, quota, recipientQuota, audit);
  }
  fail(outcome, {
    full: teamFull,
    not_found: teamNotFound,
    forbidden: () => new ForbiddenError('Not authorized to invite'),
    member: () => new BadRequestError('User is already a team member'),
    pending: () => new BadRequestError('Invite already sent to this email'),
    quota: () => quotaExceeded('invites', now),
    recipient_quota: () => recipientQuotaExceeded('invites', now),
  });
  countMetric('InviteCreated', { role: invite.role });
  return inviteView(invite);
}

export async function cancelInvite(caller: Caller, teamId: string, inviteId: string) {
  const now = clock.nowIso();
  const { guard, read, actor } = await authorize(caller, teamId, TEAM_RIGHTS.cancel_invites, 'Not authorized', {
    invite: keys.teamInvite(teamId, inviteId),
  });
  const invite = repository.parseInvite(read.invite, now);
  if (!invite) throw invalidInvite();
  const audit = auditPut(actor, { ...teamPart(teamId, 'invitation', invite.id, invite.email), action: 'invitation.revoked', changes: { role: { from: invite.role, to: null } } }, now);
  fail(await repository.deleteInvite(guard, invite, now, audit), {
    forbidden: () => new ForbiddenError('Not authorized'),
    gone: invalidInvite,
  });
}

/**
 * Joins the team the token invites to. Checks, in order: the token (404), an account for the
 * invited e-mail (400), that it is the caller's (403, the invite stays pending), membership (400).
 */
export async function acceptInvite(caller: Caller, token: string) {
  const now = clock.nowIso();
  // Looked up by its hash, and (an invite stored before hashing) by the token itself, in one BatchGetItem.
  const lookups = repository.inviteLookupKeys(token);
  const read = await repository.getByKeys({
    hashed: lookups.hashed.item,
    ...(lookups.clear && { clear: lookups.clear.item }),
    account: keys.account(caller.userId),
  });
  const found = repository.parseInviteLookup(token, { hashed: read.hashed, clear: read.clear }, now);
  if (!found) throw invalidInvite();
  const { invite, lookupKey } = found;
  const account: Account | undefined = read.account ? accountItem.parse(read.account) : undefined;
  if (!account || account.email.toLowerCase() !== invite.email.toLowerCase()) {
    if (!(await findAccountIdByEmail(invite.email))) {
      throw new BadRequestError('No account found with this email. Please sign up first.');
    }
    throw new ForbiddenError('Invite was sent to a different email address');
  }
  const member: Member = {
    id: randomUUID(),
    team_id: invite.team_id,
    user_id: caller.userId,
    name: account.name,
    email: account.email,
    role: invite.role,
    joined_at: now,
  };
  // Two entries: the invitation used, and the member it added.
  const actor: Caller = { ...caller, name: account.name };
  const audit = [
    auditPut(actor, { ...teamPart(invite.team_id, 'invitation', invite.invite_id, invite.email), action: 'invitation.accepted', changes: { member_id: { from: null, to: member.id } } }, now),
    auditPut(actor, { ...teamPart(invite.team_id, 'member', member.id, member.name), action: 'member.added', changes: { role: { from: null, to: member.role } } }, now),
  ];
  fail(await repository.acceptInvite(invite, lookupKey, member, membershipOf(member), now, audit), {
    full: teamFull,
    invalid: invalidInvite,
    member: () => new BadRequestError('Already a team member'),
  });
  countMetric('InviteAccepted', { role: invite.role });
}

export async function removeMember(caller: Caller, teamId: string, memberId: string) {
  const { guard, read, actor } = await authorize(caller, teamId, TEAM_RIGHTS.remove_members, 'Not authorized', {
    target: keys.teamMember(teamId, memberId),
  });
  const target = repository.parseMember(read.target);
  if (!target) throw memberNotFound();
  if (target.role === 'OWNER') throw new BadRequestError('Cannot remove owner');
  const now = clock.nowIso();
  const audit = auditPut(actor, { ...teamPart(teamId, 'member', target.id, target.name), action: 'member.removed', changes: { role: { from: target.role, to: null } } }, now);
  fail(await repository.removeMember(guard, target, now, audit), {
    forbidden: () => new ForbiddenError('Not authorized'),
    gone: memberNotFound,
  });
  return target;
}

export async function changeMemberRole(caller: Caller, teamId: string, memberId: string, input: ChangeRoleInput) {
  const { guard, read, actor } = await authorize(caller, teamId, TEAM_RIGHTS.change_roles, 'Only owner can change roles', {
    target: keys.teamMember(teamId, memberId),
  });
  const target = repository.parseMember(read.target);
  if (!target) throw memberNotFound();
  if (target.role === 'OWNER') throw new BadRequestError('Cannot change owner role');
  const audit = auditPut(actor, { ...teamPart(teamId, 'member', target.id, target.name), action: 'member.role_changed', changes: { role: { from: target.role, to: input.role } } });
  fail(await repository.changeRole(guard, target, input.role, audit), {
    forbidden: () => new ForbiddenError('Only owner can change roles'),
    gone: memberNotFound,
  });
  return memberView({ ...target, role: input.role });
}
