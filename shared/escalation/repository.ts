import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { itemAbsent, itemPresent, keys, ownerIndex, teamIndex } from '../platform/db/keys.js';
import { transactOutcome, updateExpression, type TransactItem } from '../platform/db/ops.js';
import type { Source } from '../platform/db/pagination.js';
import { personChecks, returnToOwner, teamGuard, type GuardOutcome, type PersonOutcome } from '../teams/access.js';
import type { Role } from '../teams/model.js';
import { policyItem, targetIds, type Policy } from './model.js';

/** The outcome of a schedule target that is gone, or not the policy's to target: `schedule:<id>`. */
export type ScheduleOutcome = `schedule:${string}`;

type Named = readonly [string, TransactItem];

/**
 * What a policy's targets add to its write (`before`: the policy as it was, for a change; absent for a
 * new one): for each schedule it starts targeting, one more use counted on the schedule, on the condition
 * that the policy's scope may use it (the owner's alone, or the policy's team), and the reference item that
 * names the policy in a refused deletion; one fewer for each it stops targeting; a scope check for each kept
 * one when the policy moves, and its reference rewritten (the policy's name). Each user target is checked
 * like a schedule's people (`except`: the caller, checked by a guard).
 */
export function targetItems(next: Policy | undefined, before: Policy | undefined, except?: string, colleagues: readonly Named[] = []): Named[] {
  const now = new Set(next ? targetIds(next.steps).schedules : []);
  const was = new Set(before ? targetIds(before.steps).schedules : []);
  const scope = next && { ownerId: next.owner_id, teamId: next.team_id };
  const moving = next && before && next.team_id !== before.team_id;
  const items: Named[] = [];
  for (const scheduleId of now) {
    const reference = { Put: { TableName: tableName(), Item: { ...keys.scheduleTargetedBy(scheduleId, next!.id), type: 'schedule_target', policy_id: next!.id, policy_name: next!.name } } };
    if (!was.has(scheduleId)) items.push([`schedule:${scheduleId}`, scheduleUse(scheduleId, scope!, 1)]);
    else if (moving) items.push([`schedule:${scheduleId}`, scheduleFits(scheduleId, scope!)]);
    items.push(['conflict', reference]);
  }
  for (const scheduleId of was) {
    if (now.has(scheduleId)) continue;
    items.push(['conflict', scheduleUse(scheduleId, scope ?? { ownerId: before!.owner_id, teamId: before!.team_id }, -1)]);
    items.push(['conflict', { Delete: { TableName: tableName(), Key: keys.scheduleTargetedBy(scheduleId, before!.id) } }]);
  }
  if (next && peopleChange(next, before)) {
    // Of its owner alone: the memberships through which each other person shares a team with the owner (`colleagueChecks`).
    items.push(...(next.team_id ? personChecks(next.team_id, targetIds(next.steps).users, except) : colleagues));
  }
  return items;
}

/** Whether a write of `next` (over `before`, for a change) checks its user targets: new, moved, or other users. */
export const peopleChange = (next: Policy, before: Policy | undefined) =>
  !before || next.team_id !== before.team_id || targetIds(next.steps).users.join() !== targetIds(before.steps).users.join();

/** Marks a stored policy that targets schedules, so the one-call delete of an unshared policy leaves it to the transaction that releases them. */
const targetsSchedules = (policy: Policy) => targetIds(policy.steps).schedules.length > 0;

const policyAttributes = (policy: Policy) => ({
  ...keys.escalationPolicy(policy.id),
  ...ownerIndex.policy(policy.owner_id, policy.created_at, policy.id),
  ...(policy.team_id ? teamIndex.policy(policy.team_id, policy.created_at, policy.id) : {}),
  type: 'escalation_policy',
  ...policy,
  team_id: policy.team_id ?? undefined,
  ...(targetsSchedules(policy) ? { targets_schedules: true } : {}),
});

/**
 * Writes the policy. Shared with a team, in one transaction with the team guard (the caller is
 * a member with one of `roles`) and the team's link to it (what deleting the team gives back).
 */
export async function insertPolicy(policy: Policy, roles: readonly Role[], colleagues: readonly Named[], audit: TransactItem) {
  const targets = targetItems(policy, undefined, policy.team_id ? policy.owner_id : undefined, colleagues);
  // Always a transaction (one call, as the single Put was): the audit entry goes with the policy.
  const result = await transactOutcome<string>([
    ['conflict', audit],
    ...(policy.team_id ? teamGuard(policy.team_id, policy.owner_id, roles) : []),
    ...targets,
    ['conflict', { Put: { TableName: tableName(), Item: policyAttributes(policy), ConditionExpression: itemAbsent } }],
    ...(policy.team_id
      ? [['conflict', { Put: { TableName: tableName(), Item: { ...keys.teamSharedPolicy(policy.team_id, policy.id), type: 'team_shared_policy', policy_id: policy.id } } }] as const]
      : []),
  ]);
  if (result.outcome === 'conflict') throw new Error(`Unexpected conflict writing policy ${policy.id}`);
  return result as { outcome: 'ok' | GuardOutcome | ScheduleOutcome | PersonOutcome; item?: Record<string, unknown> };
}

export async function getPolicy(policyId: string): Promise<Policy | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.escalationPolicy(policyId), ConsistentRead: true }),
  );
  return Item ? (policyItem.parse(Item) as Policy) : undefined;
}

/** Where a list page of policies is read: the owner's, or a team's, partition of its index. */
export const policySources = {
  owner: (ownerId: string): Source => ({ index: ownerIndex, partition: ownerIndex.partition(ownerId), prefix: ownerIndex.policyPrefix }),
  team: (teamId: string): Source => ({ index: teamIndex, partition: teamIndex.partition(teamId), prefix: teamIndex.policyPrefix }),
};

/**
 * Changes name and steps and (with `next.team_id`) the team, on the condition that the policy
 * is still shared as read and, when it moves, no monitor uses it; with the caller's guards on
 * the team it is in (`from`) and the team it joins (`to`), and the teams' links.
 */
export async function updatePolicy(
  current: Policy,
  next: Policy,
  guards: { from: readonly (readonly [GuardOutcome, TransactItem])[]; to: readonly (readonly [GuardOutcome, TransactItem])[] },
  callerId: string,
  colleagues: readonly Named[],
  audit: TransactItem,
) {
  const moving = next.team_id !== current.team_id;
  const sameTeam = current.team_id ? 'team_id = :was_team' : 'attribute_not_exists(team_id)';
  const unused = moving ? ' AND (attribute_not_exists(monitor_count) OR monitor_count = :zero)' : '';
  // The steps as read (their targets' counts are changed from them): a version, changed by every write.
  const asRead = current.version === undefined ? ' AND attribute_not_exists(version)' : ' AND version = :was_version';
  const teamKeys = next.team_id ? teamIndex.policy(next.team_id, next.created_at, next.id) : undefined;
  // The caller's membership of the team the policy ends in is already checked by a guard.
  const guarded = next.team_id && (guards.to.length > 0 || (guards.from.length > 0 && !moving)) ? callerId : undefined;
  const targets = targetItems(next, current, guarded, colleagues);
  const result = await transactOutcome<string>([
    ['conflict', audit],
    ...guards.from.map(([name, item]) => [name === 'team_gone' ? 'from_gone' : 'from_role', item] as const),
    ...guards.to,
    ...targets,
    [
      'refused',
      {
        Update: {
          TableName: tableName(),
          Key: keys.escalationPolicy(current.id),
          ...updateExpression({
            set: {
              name: next.name,
              steps: next.steps,
              version: (current.version ?? 0) + 1,
              ...(next.repeat ? { repeat: next.repeat } : {}),
              ...(targetsSchedules(next) ? { targets_schedules: true } : {}),
              ...(moving && teamKeys ? { team_id: next.team_id, ...teamKeys } : {}),
            },
            remove: [
              ...(moving && !teamKeys ? ['team_id', teamIndex.pk, teamIndex.sk] : []),
              ...(next.repeat ? [] : ['repeat']),
              ...(targetsSchedules(next) ? [] : ['targets_schedules']),
            ],
            condition: {
              expression: `${itemPresent} AND ${sameTeam}${unused}${asRead}`,
              values: {
                ...(current.team_id ? { ':was_team': current.team_id } : {}),
                ...(moving ? { ':zero': 0 } : {}),
                ...(current.version === undefined ? {} : { ':was_version': current.version }),
              },
            },
          }),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ],
    ...(moving && current.team_id
      ? [['refused', { Delete: { TableName: tableName(), Key: keys.teamSharedPolicy(current.team_id, current.id) } }] as const]
      : []),
    ...(moving && next.team_id
      ? [['refused', { Put: { TableName: tableName(), Item: { ...keys.teamSharedPolicy(next.team_id, next.id), type: 'team_shared_policy', policy_id: next.id } } }] as const]
      : []),
  ]);
  return result as { outcome: 'ok' | GuardOutcome | ScheduleOutcome | PersonOutcome | 'from_gone' | 'from_role' | 'refused' | 'conflict'; item?: Record<string, unknown> };
}

/**
 * Deletes the policy unless a monitor uses it, on the condition that it is still shared as read;
 * through a team, with the guard. A failed delete answers the policy as it was (gone, moved, or
 * in use: the caller tells which).
 */
export async function deletePolicy(current: Policy, guard: readonly (readonly [GuardOutcome, TransactItem])[], audit: TransactItem) {
  const sameTeam = current.team_id ? 'team_id = :team' : 'attribute_not_exists(team_id)';
  const asRead = current.version === undefined ? ' AND attribute_not_exists(version)' : ' AND version = :was_version';
  return transactOutcome<GuardOutcome | 'refused' | 'conflict'>([
    ['conflict', audit],
    ...guard,
    ...(targetItems(undefined, current) as (readonly ['conflict', TransactItem])[]),
    [
      'refused',
      {
        Delete: {
          TableName: tableName(),
          Key: keys.escalationPolicy(current.id),
          ConditionExpression: `${itemPresent} AND ${sameTeam} AND (attribute_not_exists(monitor_count) OR monitor_count = :zero)${asRead}`,
          ExpressionAttributeValues: {
            ':zero': 0,
            ...(current.team_id ? { ':team': current.team_id } : {}),
            ...(current.version === undefined ? {} : { ':was_version': current.version }),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ],
    ...(current.team_id
      ? [['refused', { Delete: { TableName: tableName(), Key: keys.teamSharedPolicy(current.team_id, current.id) } }] as const]
      : []),
  ]);
}

/** Gives a policy of a deleted team back to its owner (`team_id` null); one moved meanwhile is left alone. */
export const returnPolicyToOwner = (policyId: string, teamId: string) => returnToOwner(keys.escalationPolicy(policyId), teamId);

/** Where a monitor is: its owner, and the team it is shared with (if any). */
export interface MonitorScope {
  ownerId: string;
  teamId: string | null;
}

/**
 * The condition that a monitor in `scope` may use the policy: a policy of the monitor's owner
 * alone, or one shared with the monitor's team.
 */
export const fitsScope = (scope: MonitorScope) => ({
  expression: scope.teamId
    ? `${itemPresent} AND ((attribute_not_exists(team_id) AND owner_id = :owner) OR team_id = :team)`
    : `${itemPresent} AND attribute_not_exists(team_id) AND owner_id = :owner`,
  values: { ':owner': scope.ownerId, ...(scope.teamId ? { ':team': scope.teamId } : {}) },
});

/**
 * The transaction item that counts one more (or one fewer) use of a shared item (`counter` on the item
 * at `key`); adding requires that a user in `scope` may use it (its owner's alone, or `scope`'s team).
 */
function use(key: Record<string, string>, counter: string, scope: MonitorScope, delta: 1 | -1): TransactItem {
  const fits = fitsScope(scope);
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: `ADD ${counter} :delta`,
      ConditionExpression: delta > 0 ? fits.expression : itemPresent,
      ExpressionAttributeValues: { ':delta': delta, ...(delta > 0 ? fits.values : {}) },
    },
  };
}

/** ConditionCheck: a user moving to `scope` may keep using the shared item at `key`. */
function fitsCheck(key: Record<string, string>, scope: MonitorScope): TransactItem {
  const fits = fitsScope(scope);
  return { ConditionCheck: { TableName: tableName(), Key: key, ConditionExpression: fits.expression, ExpressionAttributeValues: fits.values } };
}

/** One more (or one fewer) monitor using the policy; adding requires that a monitor in `scope` may use it. */
export const policyUse = (policyId: string, scope: MonitorScope, delta: 1 | -1) => use(keys.escalationPolicy(policyId), 'monitor_count', scope, delta);

/** One more (or one fewer) policy targeting the schedule; adding requires that a policy in `scope` may target it. */
const scheduleUse = (scheduleId: string, scope: MonitorScope, delta: 1 | -1) => use(keys.schedule(scheduleId), 'policy_count', scope, delta);

/** ConditionCheck: a policy moving to `scope` may keep targeting the schedule. */
const scheduleFits = (scheduleId: string, scope: MonitorScope) => fitsCheck(keys.schedule(scheduleId), scope);

/** ConditionCheck: a monitor moving to `scope` may keep using the policy. */
export const policyFits = (policyId: string, scope: MonitorScope) => fitsCheck(keys.escalationPolicy(policyId), scope);
