/**
 * Teams in the single table. Every invariant is a condition of the write that could break it:
 * slug and pending-invite uniqueness, single-use tokens, one membership per user, the caller's
 * role at the moment of the write, `member_count` changed with the membership.
 */
import { tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys, ownerIndex, teamItemSk, type Key } from '../platform/db/keys.js';
import { batchGet, getByKeys, purgeCollection, queryCollection, queryOwnerIndex, transactNamed, transactOutcome, type Item, type TransactItem } from '../platform/db/ops.js';
import {
  inviteItem,
  inviteTokenItem,
  memberItem,
  membershipItem,
  teamItem,
  inviteLookupKey,
  type Invite,
  type InviteToken,
  type StoredInvite,
  type Member,
  type Membership,
  type Role,
  type Team,
} from './model.js';
import type { Source } from '../platform/db/pagination.js';
import { LINK_TOKEN_PATTERN, linkTokenHash } from '../platform/emailed-link.js';

export type { TransactItem };
export { getByKeys };

/** Epoch seconds for the table's TTL attribute. */
export const ttlOf = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

const unexpired = (item: { expires_at: string }, now: string) => item.expires_at > now;

export interface TeamCollection {
  team: Team;
  members: Member[];
  memberships: Membership[];
  /** Unexpired invites only. */
  invites: StoredInvite[];
}

/** The team with all its members and pending invites: one Query of its item collection. */
export async function getTeamCollection(teamId: string, now: string): Promise<TeamCollection | undefined> {
  const items = await queryCollection(keys.teamPartition(teamId));
  let team: Team | undefined;
  const members: Member[] = [];
  const memberships: Membership[] = [];
  const invites: StoredInvite[] = [];
  for (const item of items) {
    const sk = String(item[attributes.sk]);
    if (sk === teamItemSk.team) team = teamItem.parse(item);
    else if (sk.startsWith(teamItemSk.memberPrefix)) members.push(memberItem.parse(item));
    else if (sk.startsWith(teamItemSk.membershipPrefix)) memberships.push(membershipItem.parse(item));
    else if (sk.startsWith(teamItemSk.invitePrefix)) {
      const invite = inviteItem.parse(item);
      if (unexpired(invite, now)) invites.push(invite);
    }
  }
  return team && { team, members, memberships, invites };
}

export const parseTeam = (item: Item | undefined) => (item ? teamItem.parse(item) : undefined);
export const parseMember = (item: Item | undefined) => (item ? memberItem.parse(item) : undefined);
export const parseMembership = (item: Item | undefined) => (item ? membershipItem.parse(item) : undefined);
export const parseInvite = (item: Item | undefined, now: string) => {
  const invite = item ? inviteItem.parse(item) : undefined;
  return invite && unexpired(invite, now) ? invite : undefined;
};
export const parseInviteToken = (item: Item | undefined, now: string) => {
  const token = item ? inviteTokenItem.parse(item) : undefined;
  return token && unexpired(token, now) ? token : undefined;
};

/**
 * The keys where an invite token's lookup may be: by the token's SHA-256, and — only for what a token
 * written before hashing looks like (256 bits, base64url) — by the token itself.
 */
export const inviteLookupKeys = (token: string) => {
  const hash = linkTokenHash(token);
  return {
    hashed: { key: hash, item: keys.inviteToken(hash) },
    clear: LINK_TOKEN_PATTERN.test(token) ? { key: token, item: keys.inviteToken(token) } : undefined,
  };
};

/**
 * The unexpired invite a token accepts, from its lookups as read (`inviteLookupKeys`), and what keys the
 * lookup found: the one keyed by the token's hash, or one written before hashing (keyed by the token and
 * holding it; such invites accept until they expire, within 7 days) — never a hash passed as a token.
 */
export function parseInviteLookup(
  token: string,
  read: { hashed: Item | undefined; clear: Item | undefined },
  now: string,
): { invite: InviteToken; lookupKey: string } | undefined {
  const { hashed, clear } = inviteLookupKeys(token);
  const byHash = parseInviteToken(read.hashed, now);
  if (byHash && byHash.token === undefined) return { invite: byHash, lookupKey: hashed.key };
  const byToken = clear && parseInviteToken(read.clear, now);
  return byToken && byToken.token === token ? { invite: byToken, lookupKey: clear.key } : undefined;
}

/** Where a page of the user's memberships is read (newest first): their partition of the owner index. */
export const membershipSource = (userId: string): Source => ({
  index: ownerIndex,
  partition: ownerIndex.partition(userId),
  prefix: ownerIndex.membershipPrefix,
});

/** The user's memberships, newest first: one Query on the owner index. */
export async function listMemberships(userId: string): Promise<Membership[]> {
  const items = await queryOwnerIndex(userId, ownerIndex.membershipPrefix);
  return items.map((item) => membershipItem.parse(item));
}

export async function getTeams(teamIds: string[]): Promise<Team[]> {
  if (teamIds.length === 0) return [];
  return (await batchGet(teamIds.map(keys.team))).map((item) => teamItem.parse(item));
}

// ---------------------------------------------------------------------------------------------
// Transaction items

const put = (item: Item, condition = itemAbsent, values?: Item): TransactItem => ({
  Put: { TableName: tableName(), Item: item, ConditionExpression: condition, ExpressionAttributeValues: values },
});

// Items as the table holds them (the writes below put these; test fixtures seed them the same way).

/** The team's item; `seat_count` is its members plus pending invites. */
export const teamRecord = (team: Team, seats = team.member_count): Item => ({ ...keys.team(team.id), type: 'team', ...team, seat_count: seats });

/** The claim that keeps a slug unique. */
export const slugRecord = (team: Pick<Team, 'id' | 'slug'>): Item => ({ ...keys.teamSlug(team.slug), type: 'team_slug', team_id: team.id });

export const memberRecord = (member: Member): Item => ({ ...keys.teamMember(member.team_id, member.id), type: 'team_member', ...member });

export const membershipRecord = (membership: Membership): Item => ({
  ...keys.teamMembership(membership.team_id, membership.user_id),
  ...ownerIndex.membership(membership.user_id, membership.joined_at, membership.team_id),
  type: 'team_membership',
  ...membership,
});

/** A member's membership: the same role and join time, addressed by user. */
export const membershipOf = (member: Member): Membership => ({
  member_id: member.id,
  team_id: member.team_id,
  user_id: member.user_id,
  role: member.role,
  joined_at: member.joined_at,
});

const memberPut = (member: Member) => put(memberRecord(member));

const membershipPut = (membership: Membership) => put(membershipRecord(membership));


/**
 * A team holds at most this many members plus pending invites (`seat_count`), which keeps the
 * team detail (every member and invite) far below DynamoDB's 1 MB and Lambda's 6 MB.
 */
export const TEAM_SEAT_LIMIT = 1000;

/** Members joining (+1) or leaving (-1): `member_count`, and the seat a member holds (an accepted invite's seat passes to the member). */
const countChange = (teamId: string, delta: 1 | -1): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.team(teamId),
    UpdateExpression: delta > 0 ? 'ADD member_count :delta' : 'ADD member_count :delta SET seat_count = if_not_exists(seat_count, member_count) + :delta',
    ConditionExpression: delta > 0 ? `${itemPresent} AND member_count < :max` : itemPresent,
    ExpressionAttributeValues: { ':delta': delta, ...(delta > 0 ? { ':max': TEAM_SEAT_LIMIT } : {}) },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  },
});

/** A pending invite takes a seat, if one is free (absent `seat_count`: counted from `member_count`). */
const takeSeat = (teamId: string): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.team(teamId),
    UpdateExpression: 'SET seat_count = if_not_exists(seat_count, member_count) + :one',
    ConditionExpression: `${itemPresent} AND (seat_count < :max OR (attribute_not_exists(seat_count) AND member_count < :max))`,
    ExpressionAttributeValues: { ':one': 1, ':max': TEAM_SEAT_LIMIT },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  },
});

/** Seats freed: cancelled or reclaimed (expired) invites. */
const freeSeats = (teamId: string, count: number): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.team(teamId),
    UpdateExpression: 'SET seat_count = if_not_exists(seat_count, member_count) - :count',
    ConditionExpression: itemPresent,
    ExpressionAttributeValues: { ':count': count },
  },
});

const roleCondition = (roles: readonly Role[]) => ({
  ConditionExpression: `${itemPresent} AND #role IN (${roles.map((_, index) => `:role${index}`).join(', ')})`,
  ExpressionAttributeNames: { '#role': 'role' },
  ExpressionAttributeValues: Object.fromEntries(roles.map((role, index) => [`:role${index}`, role])),
});

/** The caller, as a member of the team with one of `roles`, at the moment of the write. */
export interface RoleGuard {
  teamId: string;
  userId: string;
  roles: readonly Role[];
}

const guardCheck = (guard: RoleGuard): TransactItem => ({
  ConditionCheck: { TableName: tableName(), Key: keys.teamMembership(guard.teamId, guard.userId), ...roleCondition(guard.roles) },
});

// ---------------------------------------------------------------------------------------------
// Writes

/** Slug claim, team and the creator's OWNER membership, all or nothing. */
export async function createTeam(team: Team, owner: Member, ownership: Membership, audit: TransactItem) {
  return transactNamed([
    // The owner is a user of the service (an external issuer's user may not be provisioned yet).
    ['no_account', { ConditionCheck: { TableName: tableName(), Key: keys.account(owner.user_id), ConditionExpression: itemPresent } }],
    ['slug_taken', put(slugRecord(team))],
    ['conflict', put(teamRecord(team))],
    ['conflict', memberPut(owner)],
    ['conflict', membershipPut(ownership)],
    ['conflict', audit],
  ]);
}

export async function renameTeam(guard: RoleGuard, name: string, now: string, audit: TransactItem) {
  return transactNamed([
    ['forbidden', guardCheck(guard)],
    [
      'not_found',
      {
        Update: {
          TableName: tableName(),
          Key: keys.team(guard.teamId),
          UpdateExpression: 'SET #name = :name, updated_at = :now',
          ConditionExpression: itemPresent,
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':name': name, ':now': now },
        },
      },
    ],
    ['not_found', audit],
  ]);
}

/**
 * Writes the invite, its token lookup and the (team, e-mail) pending claim — the claim may
 * replace only an expired one — on the conditions that the team exists, the caller may invite
 * and the invitee (if they have an account) is not a member. `extra` carries the hook's items.
 */
export async function insertInvite(
  guard: RoleGuard,
  invite: Invite,
  inviteeUserId: string | undefined,
  now: string,
  extra: TransactItem[],
  quota: TransactItem | undefined,
  recipientQuota: TransactItem | undefined,
  audit: TransactItem,
) {
  const ttl = ttlOf(invite.expires_at);
  const tokenItem: InviteToken = {
    invite_id: invite.id,
    team_id: invite.team_id,
    email: invite.email,
    role: invite.role,
    expires_at: invite.expires_at,
  };
  const notMember: TransactItem[] = inviteeUserId
    ? [{ ConditionCheck: { TableName: tableName(), Key: keys.teamMembership(guard.teamId, inviteeUserId), ConditionExpression: itemAbsent } }]
    : [];
  const { outcome, item } = await transactOutcome<'seat' | 'forbidden' | 'member' | 'pending' | 'quota' | 'recipient_quota' | 'conflict'>([
    ['seat', takeSeat(guard.teamId)],
    ['forbidden', guardCheck(guard)],
    ...notMember.map((item) => ['member', item] as const),
    ...(quota ? [['quota', quota] as const] : []),
    [
      'pending',
      put(
        {
          ...keys.teamPendingInvite(invite.team_id, invite.email),
          type: 'team_pending_invite',
          invite_id: invite.id,
          expires_at: invite.expires_at,
          [attributes.ttl]: ttl,
        },
        `${itemAbsent} OR expires_at <= :now`,
        { ':now': now },
      ),
    ],
    // What the address got today from every account (after `pending`: a repeated invite says so first).
    ...(recipientQuota ? [['recipient_quota', recipientQuota] as const] : []),
    // No TTL on the invite itself: its seat is freed when it is cancelled, accepted or reclaimed.
    // The invite keeps its token (the team form lists it to the managers); its lookup is keyed by the
    // token's SHA-256 and holds no token.
    ['conflict', put({ ...keys.teamInvite(invite.team_id, invite.id), type: 'team_invite', ...invite })],
    ['conflict', put({ ...keys.inviteToken(invite.token_hash), type: 'invite_token', ...tokenItem, [attributes.ttl]: ttl })],
    ...extra.map((item) => ['conflict', item] as const),
    ['conflict', audit],
  ]);
  if (outcome !== 'seat') return outcome;
  return item ? 'full' : 'not_found';
}

/** `lookupKey`: what keys the invite's token lookup (`inviteLookupKey`). */
const deleteInviteItems = (invite: { id: string; team_id: string; email: string; lookupKey: string }, now: string) => {
  const byThisInvite = {
    ConditionExpression: `${itemPresent} AND invite_id = :invite AND expires_at > :now`,
    ExpressionAttributeValues: { ':invite': invite.id, ':now': now },
  };
  return {
    token: { Delete: { TableName: tableName(), Key: keys.inviteToken(invite.lookupKey), ...byThisInvite } },
    invite: {
      Delete: { TableName: tableName(), Key: keys.teamInvite(invite.team_id, invite.id), ConditionExpression: itemPresent },
    },
    pending: { Delete: { TableName: tableName(), Key: keys.teamPendingInvite(invite.team_id, invite.email), ...byThisInvite } },
  } satisfies Record<string, TransactItem>;
};

/** Cancels a pending (unexpired) invite: invite, token and pending claim go together, and its seat is freed. */
export async function deleteInvite(guard: RoleGuard, invite: StoredInvite, now: string, audit: TransactItem) {
  const items = deleteInviteItems({ ...invite, lookupKey: inviteLookupKey(invite) }, now);
  return transactNamed([
    ['forbidden', guardCheck(guard)],
    ['gone', items.token],
    ['gone', items.invite],
    ['gone', items.pending],
    ['gone', freeSeats(invite.team_id, 1)],
    ['gone', audit],
  ]);
}

/**
 * Frees the seats of expired invites (DynamoDB's TTL deletes them late, and their seats with them
 * never): each invite and its token lookup go only while the invite is still expired, with the count.
 * Answers how many seats were freed.
 */
export async function reclaimExpiredInvites(teamId: string, now: string): Promise<number> {
  const expired = (await queryCollection(keys.teamPartition(teamId), undefined, teamItemSk.invitePrefix))
    .map((item) => inviteItem.parse(item))
    .filter((invite) => !unexpired(invite, now));
  let freed = 0;
  for (let start = 0; start < expired.length; start += 25) {
    const chunk = expired.slice(start, start + 25);
    const stillExpired = { ConditionExpression: `${itemPresent} AND expires_at <= :now`, ExpressionAttributeValues: { ':now': now } };
    const outcome = await transactNamed([
      ...chunk.flatMap((invite) => [
        ['changed', { Delete: { TableName: tableName(), Key: keys.teamInvite(teamId, invite.id), ...stillExpired } }] as const,
        ['changed', { Delete: { TableName: tableName(), Key: keys.inviteToken(inviteLookupKey(invite)) } }] as const,
        // Its pending claim stays: an expired claim never blocks a new invite, and its TTL removes it.
      ]),
      ['changed', freeSeats(teamId, chunk.length)],
    ]);
    if (outcome === 'ok') freed += chunk.length;
  }
  return freed;
}

/**
 * Accepting, all or nothing: the single-use token is consumed (only while unexpired), the
 * membership created (only if the user is not a member), the invite removed, the count bumped.
 */
export async function acceptInvite(token: InviteToken, lookupKey: string, member: Member, membership: Membership, now: string, audit: TransactItem[]) {
  const items = deleteInviteItems({ id: token.invite_id, team_id: token.team_id, email: token.email, lookupKey }, now);
  const { outcome, item } = await transactOutcome([
    ['invalid', items.token],
    ['member', membershipPut(membership)],
    ['count', countChange(token.team_id, 1)],
    ['invalid', items.invite],
    ['invalid', items.pending],
    ['conflict', memberPut(member)],
    ...audit.map((item) => ['conflict', item] as const),
  ]);
  if (outcome !== 'count') return outcome;
  return item ? 'full' : 'invalid';
}

/**
 * Removes a non-owner member while the caller may, recording when (`FORMER#<userId>`, the last removal).
 * When callers remove themselves, the role condition sits on their own membership's delete (one action
 * per item in a transaction).
 */
export async function removeMember(guard: RoleGuard, target: Member, now: string, audit: TransactItem) {
  const self = target.user_id === guard.userId;
  const notOwner = {
    ConditionExpression: `${itemPresent} AND #role <> :owner`,
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':owner': 'OWNER' },
  };
  return transactNamed<'forbidden' | 'gone'>([
    ...(self ? [] : [['forbidden', guardCheck(guard)] as const]),
    ['gone', { Delete: { TableName: tableName(), Key: keys.teamMember(target.team_id, target.id), ...notOwner } }],
    [
      self ? 'forbidden' : 'gone',
      {
        Delete: {
          TableName: tableName(),
          Key: keys.teamMembership(target.team_id, target.user_id),
          ...(self ? roleCondition(guard.roles) : { ConditionExpression: itemPresent }),
        },
      },
    ],
    ['gone', countChange(target.team_id, -1)],
    // When they left: the team's schedules keep their turns before it and drop them from it on.
    [
      'gone',
      { Put: { TableName: tableName(), Item: { ...keys.teamFormerMember(target.team_id, target.user_id), type: 'team_former_member', user_id: target.user_id, removed_at: now } } },
    ],
    ['gone', audit],
  ]);
}

/** Gives a non-owner member another role (member and membership items together). */
export async function changeRole(guard: RoleGuard, target: Member, role: Role, audit: TransactItem) {
  const setRole = (key: Key, condition: string) => ({
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #role = :role',
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ':role': role, ...(condition.includes(':owner') ? { ':owner': 'OWNER' } : {}) },
    },
  });
  return transactNamed([
    ['forbidden', guardCheck(guard)],
    ['gone', setRole(keys.teamMember(target.team_id, target.id), `${itemPresent} AND #role <> :owner`)],
    ['gone', setRole(keys.teamMembership(target.team_id, target.user_id), itemPresent)],
    ['gone', audit],
  ]);
}

/** Removes the team and its slug claim first, so the team is gone before its items are swept. */
export async function deleteTeamRecord(guard: RoleGuard, team: Team, audit: TransactItem) {
  return transactNamed([
    ['forbidden', guardCheck(guard)],
    ['not_found', { Delete: { TableName: tableName(), Key: keys.team(team.id), ConditionExpression: itemPresent } }],
    [
      'not_found',
      {
        Delete: {
          TableName: tableName(),
          Key: keys.teamSlug(team.slug),
          ConditionExpression: 'team_id = :team',
          ExpressionAttributeValues: { ':team': team.id },
        },
      },
    ],
    ['not_found', audit],
  ]);
}

/** What a team shares: the monitors, policies and schedules its links name. */
export interface Shared {
  monitorIds: string[];
  policyIds: string[];
  scheduleIds: string[];
}

/** An invite's lookup: keyed by its token's hash, or (written before hashing, without one) by the token. */
const inviteLookups = {
  token_hash: keys.inviteToken,
  token: (token: string, item: Item) => (item.token_hash === undefined ? keys.inviteToken(token) : undefined),
};

/**
 * Deletes every remaining item of a deleted team, and the token lookups of its invites; first,
 * `release` gives back what the team's links name (read in the same consistent Query).
 */
export const purgeTeamItems = (teamId: string, release: (shared: Shared) => Promise<void>) =>
  purgeCollection(keys.teamPartition(teamId), inviteLookups, {
    attributes: ['monitor_id', 'policy_id', 'schedule_id'],
    before: (items) => {
      const links = items.filter((item) => String(item[attributes.sk]).startsWith(teamItemSk.sharedPrefix));
      const ids = (attribute: string) => links.flatMap((link) => (typeof link[attribute] === 'string' ? [link[attribute] as string] : []));
      return release({ monitorIds: ids('monitor_id'), policyIds: ids('policy_id'), scheduleIds: ids('schedule_id') });
    },
  });
