/**
 * Delivery receipts of SMS and calls (the configuration set's events, through SNS): the notification's
 * timeline entry (each entry, for a combined message: issue 43 §4's throttles), found through its
 * `MESSAGE#<provider message id>` lookup items, says `delivered` or
 * `failed`. Only a final answer is kept: an entry that already says delivered or failed stays so
 * (receipts arrive in any order, up to 72 hours late); intermediate events change nothing.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { attributes, keys } from '../platform/db/keys.js';
import { conditionFailure, queryCollection } from '../platform/db/ops.js';
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
  // Every entry the message stands for (several for a combined message): one Query of its partition
  // (one lookup item per entry; a message sent before has the single `MESSAGE` item).
  const entries = (await queryCollection(keys.notificationMessagePartition(event.messageId))).flatMap((item) =>
    typeof item.incident_id === 'string' && typeof item.entry_sk === 'string' ? [{ incidentId: item.incident_id, entrySk: item.entry_sk }] : [],
  );
  // A page's receipt ahead of its entries: the invocation fails and is retried (twice on AWS, minutes
  // apart; locally too), so the entries still learn their status. Nothing is counted until then.
  if (entries.length === 0 && event.context?.kind === PAGE_KIND) return { outcome: 'not_yet_recorded', message_id: event.messageId, status };
  measureSpend(event);
  if (entries.length === 0) {
    if (status === 'failed') countMetric('PhoneMessageFailed');
    return { outcome: 'unknown_message', message_id: event.messageId, status };
  }
  const updated = await Promise.all(
    entries.map(async ({ incidentId, entrySk }) => {
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
        return true;
      } catch (error) {
        if (conditionFailure(error)) return false;
        throw error;
      }
    }),
  );
  if (!updated.some(Boolean)) return { outcome: 'already_final', message_id: event.messageId, status };
  countMetric(status === 'delivered' ? 'PhoneMessageDelivered' : 'PhoneMessageFailed');
  return { outcome: 'updated', message_id: event.messageId, status };
}
