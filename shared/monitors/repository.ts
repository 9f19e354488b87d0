import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { itemAbsent, keys, ownedBy, ownerIndex } from '../db/keys.js';
import { conditionFailure, queryOwnerIndex, updateExpression } from '../db/ops.js';
import { monitorItem, type Monitor, type UpdateMonitorInput } from './model.js';

export async function insertMonitor(monitor: Monitor): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.monitor(monitor.id),
        ...ownerIndex.monitor(monitor.owner_id, monitor.created_at, monitor.id),
        type: 'monitor',
        ...monitor,
      },
      ConditionExpression: itemAbsent,
    }),
  );
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

/** Applies `changes` if the monitor exists and is the owner's; undefined otherwise. */
export async function updateMonitor(
  ownerId: string,
  monitorId: string,
  changes: UpdateMonitorInput,
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

/** Deletes the monitor if it exists and is the owner's; false otherwise. */
export async function deleteMonitor(ownerId: string, monitorId: string): Promise<boolean> {
  const condition = ownedBy(ownerId);
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.monitor(monitorId),
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: condition.names,
        ExpressionAttributeValues: condition.values,
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailure(error)) return false;
    throw error;
  }
}
