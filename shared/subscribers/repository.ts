import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { attributes, itemAbsent, itemPresent, keys, monitorItemSk } from '../db/keys.js';
import { batchGet, queryCollection, TransactionCancelled, transactNamed, transactWrite, type TransactItem } from '../db/ops.js';
import { monitorItem, type Monitor } from '../monitors/model.js';
import { subscriberItem, unsubscribeTokenItem, type Subscriber } from './model.js';

/** The monitor with its subscribers, oldest first: one Query of the monitor's item collection. */
export async function getMonitorWithSubscribers(monitorId: string): Promise<{ monitor?: Monitor; subscribers: Subscriber[] }> {
  const items = await queryCollection(keys.monitorPartition(monitorId));
  let monitor: Monitor | undefined;
  const subscribers: Subscriber[] = [];
  for (const item of items) {
    const sk = String(item[attributes.sk]);
    if (sk === monitorItemSk.monitor) monitor = monitorItem.parse(item);
    else if (sk.startsWith(monitorItemSk.subscriberPrefix)) subscribers.push(subscriberItem.parse(item));
  }
  subscribers.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  return { monitor, subscribers };
}

/** Subscribes on the conditions that the monitor is the owner's and the e-mail not yet subscribed. */
export async function insertSubscriber(ownerId: string, monitorName: string, subscriber: Subscriber) {
  const actions: (readonly ['monitor_not_found' | 'already_subscribed' | 'conflict', TransactItem])[] = [
    [
      'monitor_not_found',
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.monitor(subscriber.monitor_id),
          ConditionExpression: `${itemPresent} AND owner_id = :owner`,
          ExpressionAttributeValues: { ':owner': ownerId },
        },
      },
    ],
    [
      'already_subscribed',
      {
        Put: {
          TableName: tableName(),
          Item: { ...keys.subscriberEmail(subscriber.monitor_id, subscriber.email), subscriber_id: subscriber.id },
          ConditionExpression: itemAbsent,
        },
      },
    ],
    [
      'conflict',
      {
        Put: {
          TableName: tableName(),
          Item: { ...keys.subscriber(subscriber.monitor_id, subscriber.id), type: 'subscriber', ...subscriber },
          ConditionExpression: itemAbsent,
        },
      },
    ],
    [
      'conflict',
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.unsubscribeToken(subscriber.unsubscribe_token),
            type: 'unsubscribe_token',
            monitor_id: subscriber.monitor_id,
            monitor_name: monitorName,
            subscriber_id: subscriber.id,
            email: subscriber.email,
          },
          ConditionExpression: itemAbsent,
        },
      },
    ],
  ];
  return transactNamed(actions);
}

/** The monitor and one subscriber, in one BatchGetItem. */
export async function getMonitorAndSubscriber(monitorId: string, subscriberId: string) {
  const items = await batchGet([keys.monitor(monitorId), keys.subscriber(monitorId, subscriberId)]);
  const bySk = (sk: string) => items.find((item) => item[attributes.sk] === sk);
  const monitor = bySk(monitorItemSk.monitor);
  const subscriber = bySk(keys.subscriber(monitorId, subscriberId)[attributes.sk]!);
  return {
    monitor: monitor ? monitorItem.parse(monitor) : undefined,
    subscriber: subscriber ? subscriberItem.parse(subscriber) : undefined,
  };
}

/** Removes the subscription, its e-mail claim and its unsubscribe token together. False if already gone. */
export async function deleteSubscriber(subscriber: Subscriber): Promise<boolean> {
  try {
    await transactWrite([
      { Delete: { TableName: tableName(), Key: keys.subscriber(subscriber.monitor_id, subscriber.id), ConditionExpression: itemPresent } },
      { Delete: { TableName: tableName(), Key: keys.subscriberEmail(subscriber.monitor_id, subscriber.email) } },
      { Delete: { TableName: tableName(), Key: keys.unsubscribeToken(subscriber.unsubscribe_token) } },
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons[0]?.code === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

export async function getUnsubscribeToken(token: string) {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.unsubscribeToken(token), ConsistentRead: true }),
  );
  return Item ? unsubscribeTokenItem.parse(Item) : undefined;
}
