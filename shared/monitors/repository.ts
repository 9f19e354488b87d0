import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { policyUse } from '../escalation/repository.js';
import { db, tableName } from '../db/client.js';
import { itemAbsent, itemPresent, keys, ownedBy, ownerIndex } from '../db/keys.js';
import {
  conditionFailure,
  purgeCollection,
  queryOwnerIndex,
  TransactionCancelled,
  transactNamed,
  transactWrite,
  updateExpression,
  type TransactItem,
} from '../db/ops.js';
import { monitorItem, type Monitor, type UpdateMonitorInput } from './model.js';

const monitorPut = (monitor: Monitor): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...keys.monitor(monitor.id),
      ...ownerIndex.monitor(monitor.owner_id, monitor.created_at, monitor.id),
      type: 'monitor',
      ...monitor,
    },
    ConditionExpression: itemAbsent,
  },
});

/** Writes the monitor; with a policy, counts the use in the same transaction (the policy must be the owner's). */
export async function insertMonitor(monitor: Monitor): Promise<'ok' | 'policy_not_found'> {
  if (!monitor.escalation_policy_id) {
    await db().send(new PutCommand(monitorPut(monitor).Put!));
    return 'ok';
  }
  try {
    await transactWrite([monitorPut(monitor), policyUse(monitor.escalation_policy_id, monitor.owner_id, 1)]);
    return 'ok';
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons[1]?.code === 'ConditionalCheckFailed') return 'policy_not_found';
    throw error;
  }
}

export async function getMonitor(monitorId: string): Promise<Monitor | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.monitor(monitorId), ConsistentRead: true }),
  );
  return Item ? monitorItem.parse(Item) : undefined;
}

/** The owner's monitors, newest first: one Query on the owner index. */
export async function listMonitors(ownerId: string): Promise<Monitor[]> {
  const items = await queryOwnerIndex(ownerId, ownerIndex.monitorPrefix);
  return items.map((item) => monitorItem.parse(item));
}

/** Applies changes that leave the policy alone, if the monitor exists and is the owner's. */
export async function updateMonitor(
  ownerId: string,
  monitorId: string,
  changes: Omit<UpdateMonitorInput, 'escalation_policy_id'>,
  now: string,
): Promise<Monitor | undefined> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.monitor(monitorId),
        ...updateExpression({ set: { ...changes, updated_at: now }, condition: ownedBy(ownerId) }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return monitorItem.parse(Attributes);
  } catch (error) {
    if (conditionFailure(error)) return undefined;
    throw error;
  }
}

const stillUses = (monitor: Monitor) => ({
  expression: `${itemPresent} AND #owner_id = :caller AND #policy = :old_policy`,
  names: { '#owner_id': 'owner_id', '#policy': 'escalation_policy_id' },
  values: { ':caller': monitor.owner_id, ':old_policy': monitor.escalation_policy_id },
});

/**
 * Moves the monitor from its current policy to `next.escalation_policy_id`, counting the uses
 * in the same transaction. `changed` when the monitor changed meanwhile (read again and retry).
 */
export async function replaceMonitor(current: Monitor, next: Monitor): Promise<'ok' | 'changed' | 'policy_not_found'> {
  const { escalation_policy_id: before } = current;
  const { escalation_policy_id: after } = next;
  const { id, owner_id, ...fields } = next;
  void id;
  void owner_id;
  const actions: (readonly ['changed' | 'policy_not_found', TransactItem])[] = [
    [
      'changed',
      {
        Update: {
          TableName: tableName(),
          Key: keys.monitor(current.id),
          ...updateExpression({ set: fields, condition: stillUses(current) }),
        },
      },
    ],
  ];
  if (after) actions.push(['policy_not_found', policyUse(after, current.owner_id, 1)]);
  if (before) actions.push(['changed', policyUse(before, current.owner_id, -1)]);
  return transactNamed(actions);
}

/** Deletes the monitor (releasing its policy) if it is still `current`; false if it changed. */
export async function deleteMonitor(current: Monitor): Promise<boolean> {
  const condition = stillUses(current);
  const remove: TransactItem = {
    Delete: {
      TableName: tableName(),
      Key: keys.monitor(current.id),
      ConditionExpression: condition.expression,
      ExpressionAttributeNames: condition.names,
      ExpressionAttributeValues: condition.values,
    },
  };
  try {
    if (current.escalation_policy_id) {
      await transactWrite([remove, policyUse(current.escalation_policy_id, current.owner_id, -1)]);
    } else {
      await db().send(new DeleteCommand(remove.Delete!));
    }
    return true;
  } catch (error) {
    if (conditionFailure(error)) return false;
    if (error instanceof TransactionCancelled && error.reasons[0]?.code === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** Removes what a deleted monitor leaves: subscribers, their claims and unsubscribe tokens, its open-incident marker. */
export const purgeMonitorItems = (monitorId: string) =>
  purgeCollection(keys.monitorPartition(monitorId), 'unsubscribe_token', keys.unsubscribeToken);
