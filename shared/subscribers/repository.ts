import { tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys, monitorItemSk } from '../platform/db/keys.js';
import { batchGet, queryCollection, transactOutcome, type TransactItem } from '../platform/db/ops.js';
import { linkTokenHash } from '../platform/emailed-link.js';
import { monitorItem, type Monitor } from '../monitors/model.js';
import { getMonitorAnd, monitorAsRead } from '../monitors/repository.js';
import type { Source } from '../platform/db/pagination.js';
import { subscriberItem, unsubscribeTokenItem, type Subscriber, type UnsubscribeLink } from './model.js';

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

/**
 * A subscription's items: the e-mail claim and the subscriber (its unsubscribe links are written with
 * each e-mail; `monitor` named the monitor in the lookup of the token subscriptions had before).
 */
export function subscriptionItems(_monitor: Pick<Monitor, 'name'>, subscriber: Subscriber) {
  return {
    claim: { ...keys.subscriberEmail(subscriber.monitor_id, subscriber.email), subscriber_id: subscriber.id },
    subscriber: { ...keys.subscriber(subscriber.monitor_id, subscriber.id), type: 'subscriber', ...subscriber },
  };
}

/** The lookups that go with a subscription: its token from before hashing, in clear or rehashed. */
const tokenLookups = (subscriber: Pick<Subscriber, 'unsubscribe_token' | 'unsubscribe_token_hash'>) =>
  [subscriber.unsubscribe_token, subscriber.unsubscribe_token_hash].flatMap((key) => (key ? [keys.unsubscribeToken(key)] : []));

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
    ...tokenLookups(subscriber).map((Key) => ['gone', { Delete: { TableName: tableName(), Key } }] as const),
  ]);
}

/**
 * What an unsubscribe link's token leads to, from one BatchGetItem: the link kept by the token's SHA-256
 * (an e-mail's, unexpired, or a subscription's rehashed token), or a token a subscription stored in clear
 * before hashing (found by the token itself, never a hash passed as a token).
 */
export async function getUnsubscribeLink(token: string, now: string): Promise<UnsubscribeLink | undefined> {
  const byHash = keys.unsubscribeToken(linkTokenHash(token));
  const found = await batchGet([byHash, keys.unsubscribeToken(token)]);
  const hashed = found.find((item) => item[attributes.pk] === byHash[attributes.pk]);
  const link = hashed ? unsubscribeTokenItem.parse(hashed) : undefined;
  if (link) return link.hashed && (!link.expires_at || link.expires_at > now) ? link : undefined;
  const clear = found.length ? unsubscribeTokenItem.parse(found[0]!) : undefined;
  return clear && !clear.hashed ? clear : undefined;
}

/**
 * Rehashes the token a subscription stored in clear before hashing: its lookup moves to the token's
 * SHA-256 (the links e-mailed with it keep working) and the subscription keeps the hash alone. Nothing
 * when the subscription is gone or was rehashed meanwhile.
 */
export async function rehashUnsubscribeToken(subscriber: Subscriber, monitorName: string): Promise<void> {
  const token = subscriber.unsubscribe_token;
  if (!token) return;
  const hash = linkTokenHash(token);
  await transactOutcome<'changed'>([
    [
      'changed',
      {
        Update: {
          TableName: tableName(),
          Key: keys.subscriber(subscriber.monitor_id, subscriber.id),
          UpdateExpression: 'SET unsubscribe_token_hash = :hash REMOVE unsubscribe_token',
          ConditionExpression: `${itemPresent} AND unsubscribe_token = :token`,
          ExpressionAttributeValues: { ':hash': hash, ':token': token },
        },
      },
    ],
    ['changed', { Delete: { TableName: tableName(), Key: keys.unsubscribeToken(token) } }],
    [
      'changed',
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.unsubscribeToken(hash),
            type: 'unsubscribe_token',
            monitor_id: subscriber.monitor_id,
            monitor_name: monitorName,
            subscriber_id: subscriber.id,
            email: subscriber.email,
            hashed: true,
          },
        },
      },
    ],
  ]);
}
