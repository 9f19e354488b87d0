/**
 * What a team role lets a member do with what is shared with the team (monitors, their
 * incidents and subscribers, escalation policies), and how the database enforces it.
 *
 * - Reads check the caller's membership and the team with one strongly consistent BatchGetItem,
 *   so a removal or a team deletion counts from the moment it answers.
 * - Writes never trust a read: every write through a team carries, in its own transaction, a
 *   ConditionCheck that the team exists and one that the caller's membership holds a role that
 *   allows it (`teamGuard`). A failed membership check returns the membership as it was, which
 *   tells a member whose role falls short (403) from an outsider (404, as for a missing item).
 * - The owner of a monitor or policy keeps every right on it, whatever their role in its team.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemPresent, keys, teamIndex, transitAttributePrefix } from '../platform/db/keys.js';
import { batchGet, conditionFailure, type Item, type TransactItem } from '../platform/db/ops.js';
import { ForbiddenError, NotFoundError } from '../platform/errors.js';
import { mergePage, readSource, type PageWindow, type Source, type SourceRead } from '../platform/db/pagination.js';
import { decodeCursor, pageView, type PageView } from '../platform/api/pagination.js';
import { membershipItem, ROLES, teamItem, type Role } from './model.js';
import { listMemberships } from './repository.js';

/** Any member may see what is shared with the team. */
export const READERS: readonly Role[] = ROLES;
/** May create incidents, update, acknowledge and resolve them, update monitors, manage subscribers. */
export const OPERATORS: readonly Role[] = ['OWNER', 'ADMIN', 'MEMBER'];
/** May also delete a team monitor or policy, or take it out of the team. */
export const MANAGERS: readonly Role[] = ['OWNER', 'ADMIN'];

/** Something an owner may share with one team: a monitor, an escalation policy (incidents follow their monitor). */
export interface Shareable {
  owner_id: string;
  team_id: string | null;
}

/** How the caller reaches a shared thing: as its owner, or through a role in its team. */
export type Access = { via: 'owner' } | { via: 'team'; teamId: string; role: Role };

export const allows = (access: Access | undefined, roles: readonly Role[]): boolean =>
  access !== undefined && (access.via === 'owner' || roles.includes(access.role));

/** The caller's role in the team, read consistently: undefined once removed or once the team is deleted. */
export async function roleIn(teamId: string, userId: string): Promise<Role | undefined> {
  return (await verifiedRoles([teamId], userId)).get(teamId)?.role;
}

/** The caller's access to `thing`: owner, a role in its team, or none (undefined). One read when it is shared. */
export async function accessTo(userId: string, thing: Shareable): Promise<Access | undefined> {
  if (thing.owner_id === userId) return { via: 'owner' };
  if (!thing.team_id) return undefined;
  const role = await roleIn(thing.team_id, userId);
  return role ? { via: 'team', teamId: thing.team_id, role } : undefined;
}

export interface VerifiedTeam {
  role: Role;
  /** Monitors moving into or out of the team whose incidents are being re-scoped. */
  transits: Map<string, Transit>;
}

/**
 * For each team, the caller's current role and the team's transits, from one strongly
 * consistent BatchGetItem of the team items and the caller's memberships. Teams that are gone,
 * or that the caller no longer belongs to, are absent.
 */
export async function verifiedRoles(teamIds: readonly string[], userId: string): Promise<Map<string, VerifiedTeam>> {
  const unique = [...new Set(teamIds)];
  if (unique.length === 0) return new Map();
  const found = await batchGet(unique.flatMap((teamId) => [keys.team(teamId), keys.teamMembership(teamId, userId)]));
  const at = (key: Record<string, string>) =>
    found.find((item) => item[attributes.pk] === key[attributes.pk] && item[attributes.sk] === key[attributes.sk]);
  const verified = new Map<string, VerifiedTeam>();
  for (const teamId of unique) {
    const team = at(keys.team(teamId));
    const membership = at(keys.teamMembership(teamId, userId));
    if (!team || !membership) continue;
    teamItem.parse(team);
    verified.set(teamId, { role: membershipItem.parse(membership).role, transits: transitsOf(team) });
  }
  return verified;
}

/** `?team_id=` on a list: the team must exist (404 Team not found) and the caller belong to it (403 Not a team member). */
export async function requireTeamMember(teamId: string, userId: string): Promise<VerifiedTeam> {
  const found = await batchGet([keys.team(teamId), keys.teamMembership(teamId, userId)]);
  const team = found.find((item) => item[attributes.sk] === keys.team(teamId)[attributes.sk]);
  const membership = found.find((item) => item !== team);
  if (!team) throw new NotFoundError('Team not found');
  if (!membership) throw new ForbiddenError('Not a team member');
  return { role: membershipItem.parse(membership).role, transits: transitsOf(team) };
}

export interface TeamScopeRead<T> {
  teamId: string;
  team: VerifiedTeam;
  items: T;
}

/**
 * What the caller sees in every scope: their own (`readOwn`) and each team they belong to
 * (`readTeam`). Round trip 1: the own read and the caller's memberships (owner index), in
 * parallel. Round trip 2: every team's read, in parallel with one consistent BatchGetItem of the
 * teams and memberships, which drops the teams the caller was removed from (or that were
 * deleted) since the index was written. With `onlyTeam`, just that team, in one round trip.
 */
export async function readScopes<T>(
  userId: string,
  readOwn: () => Promise<T>,
  readTeam: (teamId: string) => Promise<T>,
  onlyTeam?: string,
): Promise<{ own: T | undefined; teams: TeamScopeRead<T>[] }> {
  if (onlyTeam) {
    const [team, items] = await Promise.all([requireTeamMember(onlyTeam, userId), readTeam(onlyTeam)]);
    return { own: undefined, teams: [{ teamId: onlyTeam, team, items }] };
  }
  const [own, memberships] = await Promise.all([readOwn(), listMemberships(userId)]);
  const teamIds = memberships.map((membership) => membership.team_id);
  if (teamIds.length === 0) return { own, teams: [] };
  const [verified, ...reads] = await Promise.all([verifiedRoles(teamIds, userId), ...teamIds.map(readTeam)]);
  const teams = teamIds.flatMap((teamId, index) => {
    const team = verified.get(teamId);
    return team ? [{ teamId, team, items: reads[index] as T }] : [];
  });
  return { own, teams };
}

/**
 * A page of a list over the caller's scopes — their own items and each team's, or one team's
 * (`team_id`) — newest first, under one cursor bound to the list, the caller and the filters.
 */
export async function pageOfScopes<T, V>(
  list: string,
  userId: string,
  query: { limit: number; cursor?: string; team_id?: string },
  sources: { owner: (ownerId: string) => Source; team: (teamId: string) => Source },
  parse: (item: Item) => T,
  view: (item: T) => V,
): Promise<PageView<V>> {
  const { limit, cursor, ...filters } = query;
  const binding = { list, callerId: userId, filters };
  const window: PageWindow = { limit, order: 'desc', after: decodeCursor(cursor, binding) };
  const page = mergePage(await readScopePages(userId, sources.owner(userId), sources.team, window, query.team_id), window);
  return pageView({ items: page.items.map(parse), next: page.next }, binding, view);
}

/**
 * One page's reads of a list over the caller's scopes (`readScopes`): the own source and each
 * team's, from the same position. A team's entries are kept only while the item still names the
 * team (the team index follows a move a moment later).
 */
async function readScopePages(
  userId: string,
  own: Source,
  team: (teamId: string) => Source,
  window: PageWindow,
  onlyTeam?: string,
): Promise<SourceRead[]> {
  const scopes = await readScopes(userId, () => readSource(own, window), (teamId) => readSource(team(teamId), window), onlyTeam);
  return [
    ...(scopes.own ? [scopes.own] : []),
    // (A monitor's webhook, listed in its monitor's team, names that team as `monitor_team_id`.)
    ...scopes.teams.map(({ teamId, items: read }) => ({ ...read, items: read.items.filter((item) => (item.monitor_team_id ?? item.team_id) === teamId) })),
  ];
}

// ---------------------------------------------------------------------------------------------
// Write-time guards

/** ConditionCheck: the team exists. */
export const teamPresent = (teamId: string): TransactItem => ({
  ConditionCheck: { TableName: tableName(), Key: keys.team(teamId), ConditionExpression: itemPresent },
});

/** ConditionCheck: the user is a member of the team with one of `roles`; the membership is returned when not. */
export const memberWithRole = (teamId: string, userId: string, roles: readonly Role[]): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: keys.teamMembership(teamId, userId),
    ConditionExpression: `${itemPresent} AND #role IN (${roles.map((_, index) => `:role${index}`).join(', ')})`,
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: Object.fromEntries(roles.map((role, index) => [`:role${index}`, role])),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  },
});

/** The outcomes a team guard can add to a write: the team is gone, the caller is no member, or their role falls short. */
export type GuardOutcome = 'team_gone' | 'team_role';

/** The guard of a write through a team: the team exists and the caller holds one of `roles` there. */
export const teamGuard = (teamId: string, userId: string, roles: readonly Role[]) =>
  [
    ['team_gone', teamPresent(teamId)],
    ['team_role', memberWithRole(teamId, userId, roles)],
  ] as const satisfies readonly (readonly [GuardOutcome, TransactItem])[];

/** A failed check of one person a write names: `person:<userId>`. */
export type PersonOutcome = `person:${string}`;

/**
 * ConditionChecks that each person may be named in something shared with `teamId` (a member of it)
 * or of its owner alone (an account): a schedule's layers, an override, a policy's user targets. `except` is a person a guard of the same transaction already checks (the
 * caller, on a team), since a transaction touches an item once.
 */
export function personChecks(teamId: string | null, people: readonly string[], except?: string): (readonly [PersonOutcome, TransactItem])[] {
  return people
    .filter((userId) => userId !== except)
    .map((userId) => [
      `person:${userId}` as PersonOutcome,
      { ConditionCheck: { TableName: tableName(), Key: teamId ? keys.teamMembership(teamId, userId) : keys.account(userId), ConditionExpression: itemPresent } },
    ] as const);
}

/**
 * Who may be named in a thing of its owner alone (a personal schedule's layers and overrides, a personal
 * policy's user targets; issue 41, 5): the owner, or someone who shares a team with them — never any
 * account whose id is known. For each other person, a team both belong to, found from the owner's
 * memberships (owner index) and one consistent BatchGetItem of both sides' memberships in those teams;
 * the write carries a ConditionCheck of each membership it relies on, so a removal before the write
 * refuses it. `stranger`: the first person who shares no team with the owner (or has no account: the
 * two are told apart by nothing), to refuse before writing.
 */
export async function colleagueChecks(
  ownerId: string,
  people: readonly string[],
): Promise<{ checks: (readonly [PersonOutcome, TransactItem])[]; stranger?: PersonOutcome }> {
  const others = [...new Set(people.filter((userId) => userId !== ownerId))];
  if (others.length === 0) return { checks: [] };
  const teamIds = (await listMemberships(ownerId)).map((membership) => membership.team_id);
  const found = teamIds.length ? await batchGet(teamIds.flatMap((teamId) => [ownerId, ...others].map((userId) => keys.teamMembership(teamId, userId)))) : [];
  const member = new Set(found.map((item) => `${String(item.team_id)}#${String(item.user_id)}`));
  const ownerTeams = teamIds.filter((teamId) => member.has(`${teamId}#${ownerId}`));
  const stranger = others.find((userId) => !ownerTeams.some((teamId) => member.has(`${teamId}#${userId}`)));
  if (stranger) return { checks: [], stranger: `person:${stranger}` };
  // Few teams, few checks of the owner: each time the team shared with most of those left (greedy cover).
  const checks: (readonly [PersonOutcome, TransactItem])[] = [];
  const check = (outcome: PersonOutcome, key: Record<string, string>) =>
    checks.push([outcome, { ConditionCheck: { TableName: tableName(), Key: key, ConditionExpression: itemPresent } }] as const);
  let left = others;
  while (left.length > 0) {
    const teamId = ownerTeams
      .map((candidate) => ({ candidate, covered: left.filter((userId) => member.has(`${candidate}#${userId}`)).length }))
      .reduce((best, next) => (next.covered > best.covered ? next : best)).candidate;
    const covered = left.filter((userId) => member.has(`${teamId}#${userId}`));
    check(`person:${covered[0]!}`, keys.teamMembership(teamId, ownerId));
    for (const userId of covered) check(`person:${userId}`, keys.teamMembership(teamId, userId));
    left = left.filter((userId) => !covered.includes(userId));
  }
  return { checks };
}

/**
 * Gives a shared item (a policy, a schedule) of a deleted team back to its owner: `team_id` and its team
 * index entry removed; one moved meanwhile is left alone.
 */
export async function returnToOwner(key: Record<string, string>, teamId: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'REMOVE team_id, #gpk, #gsk',
        ConditionExpression: `${itemPresent} AND team_id = :team`,
        ExpressionAttributeNames: { '#gpk': teamIndex.pk, '#gsk': teamIndex.sk },
        ExpressionAttributeValues: { ':team': teamId },
      }),
    );
  } catch (error) {
    if (!conditionFailure(error)) throw error;
  }
}

/**
 * For a write about a shared thing (a monitor's incident or subscriber, a schedule's override): the
 * guard actions the write's transaction must carry. None for the owner; through the thing's team,
 * that the team exists and the caller holds one of `roles` there. A thing the caller cannot reach at
 * all is `hidden()` (404, as if it did not exist).
 */
export function writeGuard(userId: string, thing: Shareable | undefined, roles: readonly Role[], hidden: () => Error) {
  if (!thing) throw hidden();
  if (thing.owner_id === userId) return [];
  if (!thing.team_id) throw hidden();
  return teamGuard(thing.team_id, userId, roles) as readonly (readonly [GuardOutcome, TransactItem])[];
}

/**
 * What a failed guard means to the caller: `denied` (a member whose role falls short: 403) or
 * `hidden` (no member, or the team is gone: 404, exactly as if the thing did not exist).
 */
export function guardFailure(outcome: GuardOutcome, membership: Item | undefined): 'denied' | 'hidden' {
  return outcome === 'team_role' && membership !== undefined ? 'denied' : 'hidden';
}

/** The error of a refused share into a team (the caller names the team, so it is not hidden). */
export function shareRefusal(outcome: GuardOutcome, membership: Item | undefined): Error {
  if (outcome === 'team_gone') return new NotFoundError('Team not found');
  return membership ? new ForbiddenError('Not authorized') : new ForbiddenError('Not a team member');
}

/** The error of a refused write through the thing's own team: 403 for a member short of role, else `hidden()`. */
export function accessRefusal(outcome: GuardOutcome, membership: Item | undefined, hidden: () => Error): Error {
  return guardFailure(outcome, membership) === 'denied' ? new ForbiddenError('Not authorized') : hidden();
}

// ---------------------------------------------------------------------------------------------
// Transits: a monitor moving between scopes while its incidents are re-scoped

/**
 * Recorded on the team item of both the team a monitor leaves and the team it joins, in the
 * same transaction as the move, and removed by the incident rescoper once every incident of the
 * monitor carries its new scope. While it is there, lists ignore the monitor's entries in the
 * team index and read the joining team's share of its incidents from the monitor index instead.
 */
export interface Transit {
  monitor_id: string;
  /** The monitor's `team_seq` after the move. */
  seq: number;
  /** Where the monitor went (null: back to its owner alone). */
  to_team_id: string | null;
}

export function transitsOf(team: Item): Map<string, Transit> {
  const transits = new Map<string, Transit>();
  for (const [name, value] of Object.entries(team)) {
    if (!name.startsWith(transitAttributePrefix) || typeof value !== 'object' || value === null) continue;
    const transit = value as Transit;
    transits.set(transit.monitor_id, { monitor_id: transit.monitor_id, seq: Number(transit.seq), to_team_id: transit.to_team_id ?? null });
  }
  return transits;
}

