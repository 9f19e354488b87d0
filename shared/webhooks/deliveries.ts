/**
 * A webhook's deliveries: the list (newest first, 30 days), sending one again, and a `ping` now.
 * Reading needs the webhook's read rights; sending, its management rights, checked by a transaction
 * of the scope's guards right before the request goes out (the record written after it carries the
 * webhook's existence as its condition).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { itemPresent, keys, monitorIndex } from '../platform/db/keys.js';
import { conditionFailure, transactOutcome } from '../platform/db/ops.js';
import { mergePage, readSource, type PageWindow } from '../platform/db/pagination.js';
import { decodeCursor, pageView, type PageView } from '../platform/api/pagination.js';
import { db, tableName } from '../platform/db/client.js';
import { ConflictError, NotFoundError } from '../platform/errors.js';
import { attempt, attemptOf, getMessage, messageItem, MESSAGE_RETENTION_SECONDS, recordOnWebhook, sendNow, type Message } from './delivery.js';
import { classify } from './retry.js';
import { refusal, reviewCreatorAccess, visibleWebhook, webhookNotFound, writeGuards } from './service.js';
import { getWebhook } from './repository.js';
import type { DeliveryView, ListDeliveriesQuery, Webhook } from './model.js';

export const deliveryNotFound = () => new NotFoundError('Delivery not found');

/** Refused: a webhook sends only while its creator may read what it sends; a PUT enables it again as the caller's. */
export const LOST_ACCESS_TEXT = "Webhook disabled: its creator may no longer read what it sends. Enable it (PUT) to make it yours";

export const deliveryView = (message: Message): DeliveryView => ({
  id: message.message_id,
  event_type: message.event_type,
  incident_id: message.incident_id,
  state: message.state,
  next_attempt_at: message.state === 'pending' ? (message.next_attempt_at ?? null) : null,
  created_at: message.created_at,
  attempts: message.attempts,
});

/** A page of the webhook's deliveries, newest first, of the last 30 days. */
export async function listDeliveries(caller: Caller, webhookId: string, query: ListDeliveriesQuery): Promise<PageView<DeliveryView>> {
  const binding = { list: `webhooks/${webhookId}/deliveries`, callerId: caller.userId };
  const from = new Date(clock.now().getTime() - MESSAGE_RETENTION_SECONDS * 1000).toISOString();
  const window: PageWindow = { limit: query.limit, order: 'desc', after: decodeCursor(query.cursor, binding), from };
  const source = { index: monitorIndex, partition: monitorIndex.deliveriesPartition(webhookId), prefix: monitorIndex.deliveryPrefix };
  const [read] = await Promise.all([readSource(source, window), visibleWebhook(caller, webhookId)]);
  const page = mergePage([read], window);
  return pageView({ items: page.items.map((item) => messageItem.parse(item)), next: page.next }, binding, deliveryView);
}

/** The webhook, if the caller may manage it: its scope's guards, checked by a transaction now (404/403 as for a write). */
async function managedWebhook(caller: Caller, webhookId: string): Promise<Webhook> {
  const webhook = await getWebhook(webhookId);
  if (!webhook) throw webhookNotFound();
  const { guards, owner } = await writeGuards(caller, webhook, 'change');
  const { outcome, item } = await transactOutcome([
    ...guards,
    ['changed', { ConditionCheck: { TableName: tableName(), Key: keys.webhook(webhookId), ConditionExpression: itemPresent } }],
  ]);
  if (outcome === 'changed') throw webhookNotFound();
  if (outcome !== 'ok') throw refusal(outcome, item, owner);
  return webhook;
}

/** Sends a `ping` now and answers its delivery (whatever the outcome: it is the answer). */
export async function testWebhook(caller: Caller, webhookId: string): Promise<DeliveryView> {
  const webhook = await managedWebhook(caller, webhookId);
  const message = await sendNow(webhook, 'ping', {
    type: 'ping',
    timestamp: clock.nowIso(),
    data: { webhook_id: webhook.id, message: 'A test message from the incident service' },
  });
  return deliveryView(message);
}

/**
 * Sends a finished delivery again now, with its `webhook-id` and body, signed with today's
 * secrets; the attempt joins the record, whose state it sets. A pending one is refused: the queue
 * sends it (or its next retry does).
 */
export async function redeliver(caller: Caller, webhookId: string, deliveryId: string): Promise<DeliveryView> {
  const webhook = await managedWebhook(caller, webhookId);
  const message = await getMessage(webhookId, deliveryId);
  if (!message) throw deliveryNotFound();
  if (message.state === 'pending') throw new ConflictError('Delivery is still pending');
  // As the delivery worker: a message goes out only while the webhook's creator may still read it.
  if (webhook.disabled_reason === 'creator_lost_access' || (await reviewCreatorAccess(webhook)) !== 'may_read') throw new ConflictError(LOST_ACCESS_TEXT);
  const now = clock.now();
  const result = await attempt(webhook, message);
  const verdict = classify(result);
  const record = attemptOf(result, now);
  const state = verdict === 'success' ? 'succeeded' : 'failed';
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookMessage(webhookId, deliveryId),
        UpdateExpression: 'SET attempts = list_append(attempts, :attempt), #state = :state',
        ConditionExpression: `${itemPresent} AND #state <> :pending`,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':attempt': [record], ':state': state, ':pending': 'pending' },
      }),
    );
  } catch (error) {
    if (!conditionFailure(error)) throw error;
  }
  await recordOnWebhook(webhook, verdict, now);
  return deliveryView({ ...message, state, attempts: [...message.attempts, record] });
}
