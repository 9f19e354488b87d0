/**
 * "Owned by a user or shared with a team": the one protocol of every resource its owner may share
 * with one team: a monitor, an escalation policy, a schedule, a webhook (its creator's, shared with the
 * team it covers or its monitor's team; it never moves by itself, only with its monitor), and the next
 * resources.
 *
 * - Update and move: the caller is its owner, or reaches it through a role in its team (anyone else:
 *   404, as if it did not exist). Moving it takes OWNER or ADMIN in the team it leaves and OWNER,
 *   ADMIN or MEMBER in the team it joins; changing it in place takes OWNER, ADMIN or MEMBER. The
 *   guards go in the write's own transaction (`teams/access.ts`), and their outcomes are refused the
 *   same way everywhere (`updateRefusal`).
 * - Delete: its owner, or an OWNER or ADMIN of its team (`deleteGuard`).
 * - A write refused after its guards passed finds the item as it was: `unmoved` tells a refusal of the
 *   item as read (in use) from an item moved or deleted meanwhile (read it again).
 */
import type { TransactItem } from '../platform/db/ops.js';
import { ForbiddenError } from '../platform/errors.js';
import { accessRefusal, MANAGERS, OPERATORS, shareRefusal, teamGuard, type GuardOutcome, type Shareable } from './access.js';
import type { Role } from './model.js';

type Guard = readonly (readonly [GuardOutcome, TransactItem])[];

/** How the caller stands to an update of `current` that may move it to `teamId` (undefined: it stays). */
export interface UpdateAccess {
  owner: boolean;
  moving: boolean;
  /** The team it is in after the update (null: its owner's alone). */
  teamId: string | null;
  /** The roles the caller needs in the team it is in, or none (its owner, acting as such). */
  through: readonly Role[] | undefined;
  /** The guard of the team it is in (`from_*` outcomes), and of the team it joins. */
  from: Guard;
  to: Guard;
}

/**
 * The caller's access to an update of `current`; `notFound()` for a caller who is not its owner when
 * it is shared with nobody. `ownerThroughTeam`: its owner acts through the team too while it is
 * shared, except to take it out (a policy or schedule pages the team's people); otherwise the owner
 * needs no role (a monitor).
 */
export function updateAccess(
  callerId: string,
  current: Shareable,
  teamId: string | null | undefined,
  notFound: () => Error,
  { ownerThroughTeam }: { ownerThroughTeam: boolean },
): UpdateAccess {
  const owner = current.owner_id === callerId;
  if (!owner && !current.team_id) throw notFound();
  const moving = teamId !== undefined && teamId !== current.team_id;
  const next = moving ? teamId : current.team_id;
  const viaTeam = Boolean(current.team_id) && (ownerThroughTeam ? !(owner && moving) : !owner);
  const through = viaTeam ? (moving ? MANAGERS : OPERATORS) : undefined;
  return {
    owner,
    moving,
    teamId: next,
    through,
    from: through ? teamGuard(current.team_id!, callerId, through) : [],
    to: moving && next ? teamGuard(next, callerId, OPERATORS) : [],
  };
}

/**
 * The error of an update refused by a guard, or undefined for any other outcome: by the team it is in
 * (`from_gone`, `from_role`: 403 to its owner, else 403 to a member short of the role and `notFound()`
 * to anyone else), or by the team it was to join (`team_gone` 404 Team not found, `team_role` 403).
 */
export function updateRefusal(outcome: string, item: Record<string, unknown> | undefined, access: Pick<UpdateAccess, 'owner'>, notFound: () => Error): Error | undefined {
  if (outcome === 'from_gone' || outcome === 'from_role') {
    if (access.owner) return new ForbiddenError('Not authorized');
    return accessRefusal(outcome === 'from_gone' ? 'team_gone' : 'team_role', item, notFound);
  }
  if (outcome === 'team_gone' || outcome === 'team_role') return shareRefusal(outcome, item);
  return undefined;
}

/** The delete's guard: none for its owner, OWNER or ADMIN in its team for anyone else; `notFound()` when it is shared with nobody. */
export function deleteGuard(callerId: string, current: Shareable, notFound: () => Error): { owner: boolean; through: readonly Role[] | undefined; guard: Guard } {
  const owner = current.owner_id === callerId;
  if (!owner && !current.team_id) throw notFound();
  return { owner, through: owner ? undefined : MANAGERS, guard: owner ? [] : teamGuard(current.team_id!, callerId, MANAGERS) };
}

/** Whether a refused write's item (as it was then) is where it was read: the same owner, the same team. */
export const unmoved = (item: Record<string, unknown> | undefined, current: Shareable): item is Record<string, unknown> =>
  item !== undefined && item.owner_id === current.owner_id && (item.team_id ?? null) === current.team_id;
