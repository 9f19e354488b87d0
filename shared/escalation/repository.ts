import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { itemAbsent, itemPresent, keys, ownerIndex } from '../db/keys.js';
import { conditionFailure, queryOwnerIndex, type TransactItem } from '../db/ops.js';
import { policyItem, type Policy } from './model.js';

export async function insertPolicy(policy: Policy): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.escalationPolicy(policy.id),
        ...ownerIndex.policy(policy.owner_id, policy.created_at, policy.id),
        type: 'escalation_policy',
        ...policy,
      },
      ConditionExpression: itemAbsent,
    }),
  );
}

export async function getPolicy(policyId: string): Promise<Policy | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.escalationPolicy(policyId), ConsistentRead: true }),
  );
  return Item ? policyItem.parse(Item) : undefined;
}

export async function listPolicies(ownerId: string): Promise<Policy[]> {
  return (await queryOwnerIndex(ownerId, ownerIndex.policyPrefix)).map((item) => policyItem.parse(item));
}

/** Deletes the owner's policy unless a monitor uses it. */
export async function deletePolicy(ownerId: string, policyId: string): Promise<'deleted' | 'not_found' | 'in_use'> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.escalationPolicy(policyId),
        ConditionExpression: `${itemPresent} AND owner_id = :owner AND (attribute_not_exists(monitor_count) OR monitor_count = :zero)`,
        ExpressionAttributeValues: { ':owner': ownerId, ':zero': 0 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'deleted';
  } catch (error) {
    const failure = conditionFailure(error);
    if (!failure) throw error;
    return failure.item && failure.item.owner_id === ownerId ? 'in_use' : 'not_found';
  }
}

/**
 * The transaction item that counts one more (or one fewer) monitor using the policy; adding
 * requires the policy to exist and belong to `ownerId`.
 */
export function policyUse(policyId: string, ownerId: string, delta: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.escalationPolicy(policyId),
      UpdateExpression: 'ADD monitor_count :delta',
      ConditionExpression: delta > 0 ? `${itemPresent} AND owner_id = :owner` : itemPresent,
      ExpressionAttributeValues: { ':delta': delta, ...(delta > 0 ? { ':owner': ownerId } : {}) },
    },
  };
}
