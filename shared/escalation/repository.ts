import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { itemAbsent, itemPresent, keys, ownerIndex, teamIndex } from '../platform/db/keys.js';
import { conditionFailure, transactOutcome, updateExpression, type TransactItem } from '../platform/db/ops.js';
import type { Source } from '../platform/db/paging.js';
import { teamGuard, type GuardOutcome } from '../teams/access.js';
import type { Role } from '../teams/model.js';
import { policyItem, type Policy } from './model.js';

const policyAttributes = (policy: Policy) => ({
  ...keys.escalationPolicy(policy.id),
  ...ownerIndex.policy(policy.owner_id, policy.created_at, policy.id),
  ...(policy.team_id ? teamIndex.policy(policy.team_id, policy.created_at, policy.id) : {}),
  type: 'escalation_policy',
  ...policy,
  team_id: policy.team_id ?? undefined,
});

/**
 * Writes the policy. Shared with a team, in one transaction with the team guard (the caller is
 * a member with one of `roles`) and the team's link to it (what deleting the team gives back).
 */
export async function insertPolicy(policy: Policy, roles: readonly Role[]) {
  if (!policy.team_id) {
    await db().send(new PutCommand({ TableName: tableName(), Item: policyAttributes(policy), ConditionExpression: itemAbsent }));
    return { outcome: 'ok' as const };
  }
  const result = await transactOutcome<GuardOutcome | 'conflict'>([
    ...teamGuard(policy.team_id, policy.owner_id, roles),
    ['conflict', { Put: { TableName: tableName(), Item: policyAttributes(policy), ConditionExpression: itemAbsent } }],
    ['conflict', { Put: { TableName: tableName(), Item: { ...keys.teamSharedPolicy(policy.team_id, policy.id), type: 'team_shared_policy', policy_id: policy.id } } }],
  ]);
  if (result.outcome === 'conflict') throw new Error(`Unexpected conflict writing policy ${policy.id}`);
  return result as { outcome: 'ok' | GuardOutcome; item?: Record<string, unknown> };
}

export async function getPolicy(policyId: string): Promise<Policy | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.escalationPolicy(policyId), ConsistentRead: true }),
  );
  return Item ? policyItem.parse(Item) : undefined;
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
) {
  const moving = next.team_id !== current.team_id;
  const sameTeam = current.team_id ? 'team_id = :was_team' : 'attribute_not_exists(team_id)';
  const unused = moving ? ' AND (attribute_not_exists(monitor_count) OR monitor_count = :zero)' : '';
  const teamKeys = next.team_id ? teamIndex.policy(next.team_id, next.created_at, next.id) : undefined;
  return transactOutcome<GuardOutcome | 'from_gone' | 'from_role' | 'refused'>([
    ...guards.from.map(([name, item]) => [name === 'team_gone' ? 'from_gone' : 'from_role', item] as const),
    ...guards.to,
    [
      'refused',
      {
        Update: {
          TableName: tableName(),
          Key: keys.escalationPolicy(current.id),
          ...updateExpression({
            set: { name: next.name, steps: next.steps, ...(moving && teamKeys ? { team_id: next.team_id, ...teamKeys } : {}) },
            remove: moving && !teamKeys ? ['team_id', teamIndex.pk, teamIndex.sk] : undefined,
            condition: {
              expression: `${itemPresent} AND ${sameTeam}${unused}`,
              values: { ...(current.team_id ? { ':was_team': current.team_id } : {}), ...(moving ? { ':zero': 0 } : {}) },
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
}

/** Deletes the owner's unshared policy unless a monitor uses it; when refused, answers the policy as it was. */
export async function deleteOwnPolicy(ownerId: string, policyId: string): Promise<{ deleted: boolean; was?: Policy }> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.escalationPolicy(policyId),
        ConditionExpression: `${itemPresent} AND owner_id = :owner AND attribute_not_exists(team_id) AND (attribute_not_exists(monitor_count) OR monitor_count = :zero)`,
        ExpressionAttributeValues: { ':owner': ownerId, ':zero': 0 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { deleted: true };
  } catch (error) {
    const failure = conditionFailure(error);
    if (!failure) throw error;
    return { deleted: false, was: failure.item ? policyItem.parse(failure.item) : undefined };
  }
}

/**
 * Deletes the policy unless a monitor uses it, on the condition that it is still shared as read;
 * through a team, with the guard. A failed delete answers the policy as it was (gone, moved, or
 * in use: the caller tells which).
 */
export async function deletePolicy(current: Policy, guard: readonly (readonly [GuardOutcome, TransactItem])[]) {
  const sameTeam = current.team_id ? 'team_id = :team' : 'attribute_not_exists(team_id)';
  return transactOutcome<GuardOutcome | 'refused'>([
    ...guard,
    [
      'refused',
      {
        Delete: {
          TableName: tableName(),
          Key: keys.escalationPolicy(current.id),
          ConditionExpression: `${itemPresent} AND ${sameTeam} AND (attribute_not_exists(monitor_count) OR monitor_count = :zero)`,
          ExpressionAttributeValues: { ':zero': 0, ...(current.team_id ? { ':team': current.team_id } : {}) },
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
export async function returnPolicyToOwner(policyId: string, teamId: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.escalationPolicy(policyId),
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

/** Where a monitor is: its owner, and the team it is shared with (if any). */
export interface MonitorScope {
  ownerId: string;
  teamId: string | null;
}

/**
 * The condition that a monitor in `scope` may use the policy: a policy of the monitor's owner
 * alone, or one shared with the monitor's team.
 */
const fitsScope = (scope: MonitorScope) => ({
  expression: scope.teamId
    ? `${itemPresent} AND ((attribute_not_exists(team_id) AND owner_id = :owner) OR team_id = :team)`
    : `${itemPresent} AND attribute_not_exists(team_id) AND owner_id = :owner`,
  values: { ':owner': scope.ownerId, ...(scope.teamId ? { ':team': scope.teamId } : {}) },
});

/**
 * The transaction item that counts one more (or one fewer) monitor using the policy; adding
 * requires that a monitor in `scope` may use it.
 */
export function policyUse(policyId: string, scope: MonitorScope, delta: 1 | -1): TransactItem {
  const fits = fitsScope(scope);
  return {
    Update: {
      TableName: tableName(),
      Key: keys.escalationPolicy(policyId),
      UpdateExpression: 'ADD monitor_count :delta',
      ConditionExpression: delta > 0 ? fits.expression : itemPresent,
      ExpressionAttributeValues: { ':delta': delta, ...(delta > 0 ? fits.values : {}) },
    },
  };
}

/** ConditionCheck: a monitor moving to `scope` may keep using the policy. */
export function policyFits(policyId: string, scope: MonitorScope): TransactItem {
  const fits = fitsScope(scope);
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.escalationPolicy(policyId),
      ConditionExpression: fits.expression,
      ExpressionAttributeValues: fits.values,
    },
  };
}
