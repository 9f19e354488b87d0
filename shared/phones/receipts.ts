/**
 * Delivery receipts of SMS and calls (the configuration set's events, through SNS): the notification's
 * timeline entry, found through its `MESSAGE#<provider message id>` item, says `delivered` or
 * `failed`. Only a final answer is kept: an entry that already says delivered or failed stays so
 * (receipts arrive in any order, up to 72 hours late); intermediate events change nothing.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { attributes, keys } from '../platform/db/keys.js';
import { conditionFailure } from '../platform/db/ops.js';
import { countMetric, measureMetric } from '../platform/observability/metrics.js';
import type { MessageEvent } from './payloads.js';

const DELIVERED = new Set(['TEXT_DELIVERED', 'TEXT_SUCCESSFUL', 'VOICE_COMPLETED']);
const FAILED = new Set([
  'TEXT_BLOCKED',
  'TEXT_CARRIER_BLOCKED',
  'TEXT_CARRIER_UNREACHABLE',
  'TEXT_INVALID',
  'TEXT_INVALID_MESSAGE',
  'TEXT_PROTECT_BLOCKED',
  'TEXT_SPAM',
  'TEXT_TTL_EXPIRED',
  'TEXT_UNREACHABLE',
  'VOICE_BUSY',
  'VOICE_FAILED',
  'VOICE_NO_ANSWER',
  'VOICE_TTL_EXPIRED',
]);

/**
 * The event types the configuration set sends the receipts worker (its SNS event destination on AWS):
 * exactly the final ones it maps, so intermediate events (queued, pending, ringing…) cost no delivery.
 */
export const receiptEventTypes: readonly string[] = [...DELIVERED, ...FAILED];

/**
 * What a message cost (USD), from its final event (one per message: `isFinal`): the price and the
 * carriers' fee; undefined for intermediate events and events that name no price.
 */
export function phoneSpendOf(event: Pick<MessageEvent, 'isFinal' | 'totalMessagePrice' | 'totalCarrierFee'>): number | undefined {
  if (event.isFinal !== true || (event.totalMessagePrice === undefined && event.totalCarrierFee === undefined)) return undefined;
  return (event.totalMessagePrice ?? 0) + (event.totalCarrierFee ?? 0);
}

/** The spend of a message with a final receipt (`PhoneSpendUSD`), measured once per receipt taken. */
function measureSpend(event: MessageEvent) {
  const spend = phoneSpendOf(event);
  if (spend !== undefined) measureMetric('PhoneSpendUSD', spend);
}

export type DeliveryStatus = 'delivered' | 'failed';

/** What an event says of its message in the end; undefined: nothing final (queued, pending, ringing, unknown…). */
export function deliveryStatusOf(eventType: string): DeliveryStatus | undefined {
  if (DELIVERED.has(eventType)) return 'delivered';
  if (FAILED.has(eventType)) return 'failed';
  return undefined;
}

export type ReceiptOutcome = 'updated' | 'intermediate' | 'unknown_message' | 'already_final' | 'not_yet_recorded';

/**
 * The tag (`Context.kind`) a page's message is sent with (`notifications/pages.ts`): its timeline entry
 * and `MESSAGE#` lookup are written once the send has answered, so its receipt may come first.
 */
const PAGE_KIND = 'escalation';

/**
 * Metrics (alarmed on AWS): the spend of every message with a final receipt (`PhoneSpendUSD`), and
 * every failed one (`PhoneMessageFailed`) — a page's, or a verification code's or an SMS reply's, which
 * name no timeline entry — counted once per message where the timeline settles it.
 */
export async function applyReceipt(event: MessageEvent): Promise<{ outcome: ReceiptOutcome; message_id: string; status?: DeliveryStatus }> {
  const status = deliveryStatusOf(event.eventType);
  if (!status) {
    measureSpend(event);
    return { outcome: 'intermediate', message_id: event.messageId };
  }
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.notificationMessage(event.messageId), ConsistentRead: true }));
  const incidentId = typeof Item?.incident_id === 'string' ? Item.incident_id : undefined;
  const entrySk = typeof Item?.entry_sk === 'string' ? Item.entry_sk : undefined;
  // A page's receipt ahead of its entry: the invocation fails and is retried (twice on AWS, minutes
  // apart; locally too), so the entry still learns its status. Nothing is counted until then.
  if ((!incidentId || !entrySk) && event.context?.kind === PAGE_KIND) return { outcome: 'not_yet_recorded', message_id: event.messageId, status };
  measureSpend(event);
  if (!incidentId || !entrySk) {
    if (status === 'failed') countMetric('PhoneMessageFailed');
    return { outcome: 'unknown_message', message_id: event.messageId, status };
  }
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { [attributes.pk]: keys.incidentPartition(incidentId), [attributes.sk]: entrySk },
        UpdateExpression: 'SET details.#status = :status',
        // The entry exists and is still waiting for its answer: never back from a final one.
        ConditionExpression: `attribute_exists(${attributes.pk}) AND details.#status = :sent`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status, ':sent': 'sent' },
      }),
    );
  } catch (error) {
    if (conditionFailure(error)) return { outcome: 'already_final', message_id: event.messageId, status };
    throw error;
  }
  countMetric(status === 'delivered' ? 'PhoneMessageDelivered' : 'PhoneMessageFailed');
  return { outcome: 'updated', message_id: event.messageId, status };
}
