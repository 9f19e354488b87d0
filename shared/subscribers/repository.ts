import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys, monitorItemSk } from '../platform/db/keys.js';
import { queryCollection, transactOutcome, type TransactItem } from '../platform/db/ops.js';
import { monitorItem, type Monitor } from '../monitors/model.js';
import { getMonitorAnd, monitorAsRead } from '../monitors/repository.js';
import type { Source } from '../platform/db/paging.js';
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

/** Where a page of a monitor's subscribers is read: its item collection, strongly consistent. */
export const subscriberSource = (monitorId: string): Source => ({
  partition: keys.monitorPartition(monitorId),
  prefix: monitorItemSk.subscriberPrefix,
  consistent: true,
});

/** A subscription's items: the e-mail claim, the subscriber, the unsubscribe token. */
export function subscriptionItems(monitor: Pick<Monitor, 'name'>, subscriber: Subscriber) {
  return {
    claim: { ...keys.subscriberEmail(subscriber.monitor_id, subscriber.email), subscriber_id: subscriber.id },
    subscriber: { ...keys.subscriber(subscriber.monitor_id, subscriber.id), type: 'subscriber', ...subscriber },
    token: {
      ...keys.unsubscribeToken(subscriber.unsubscribe_token),
      type: 'unsubscribe_token',
      monitor_id: subscriber.monitor_id,
      monitor_name: monitor.name,
      subscriber_id: subscriber.id,
      email: subscriber.email,
    },
  };
}

/**
 * Subscribes on the conditions that the monitor is still as read (with the caller's `guard`
 * when acting through its team), the e-mail not yet subscribed and the caller's daily quota not
 * reached (`extra.quota`), nor the address's (`extra.recipientQuota`: confirmation e-mails it got today
 * from any account), with the event that e-mails the confirmation link (`extra.outbox`).
 */
export async function insertSubscriber<G extends string>(
  monitor: Monitor,
  subscriber: Subscriber,
  guard: readonly (readonly [G, TransactItem])[],
  extra: { quota: TransactItem; recipientQuota: TransactItem; outbox: TransactItem },
) {
  const items = subscriptionItems(monitor, subscriber);
  const put = (Item: Record<string, unknown>): TransactItem => ({ Put: { TableName: tableName(), Item, ConditionExpression: itemAbsent } });
  return transactOutcome<G | 'moved' | 'already_subscribed' | 'quota' | 'recipient_quota' | 'conflict'>([
    ...guard,
    ['moved', monitorAsRead(monitor)],
    ['already_subscribed', put(items.claim)],
    ['quota', extra.quota],
    ['recipient_quota', extra.recipientQuota],
    ['conflict', put(items.subscriber)],
    ['conflict', put(items.token)],
    ['conflict', extra.outbox],
  ]);
}

/** The monitor and one subscriber, in one BatchGetItem. */
export async function getMonitorAndSubscriber(monitorId: string, subscriberId: string) {
  const { monitor, item } = await getMonitorAnd(monitorId, keys.subscriber(monitorId, subscriberId), (found) => subscriberItem.parse(found));
  return { monitor, subscriber: item };
}

/**
 * Removes the subscription, its e-mail claim and its unsubscribe token together (with the
 * caller's `guard` and the monitor still as read, when acting through its team). `gone` if
 * already removed.
 */
export async function deleteSubscriber<G extends string = never>(
  subscriber: Subscriber,
  guard: readonly (readonly [G, TransactItem])[] = [],
  monitor?: Monitor,
) {
  return transactOutcome<G | 'moved' | 'gone'>([
    ...guard,
    ...(monitor ? [['moved', monitorAsRead(monitor)] as const] : []),
    ['gone', { Delete: { TableName: tableName(), Key: keys.subscriber(subscriber.monitor_id, subscriber.id), ConditionExpression: itemPresent } }],
    ['gone', { Delete: { TableName: tableName(), Key: keys.subscriberEmail(subscriber.monitor_id, subscriber.email) } }],
    ['gone', { Delete: { TableName: tableName(), Key: keys.unsubscribeToken(subscriber.unsubscribe_token) } }],
  ]);
}

export async function getUnsubscribeToken(token: string) {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.unsubscribeToken(token), ConsistentRead: true }),
  );
  return Item ? unsubscribeTokenItem.parse(Item) : undefined;
}
