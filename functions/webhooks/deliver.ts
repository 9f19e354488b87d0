/**
 * `webhook-delivery`: incident events from the bus become messages to the webhooks they reach; a
 * retry or continuation (`{webhook_id, incident_id}`) sends the pair's queue on: from the retry queue
 * (an SQS event, one message an invocation: due within 15 minutes, to the second) or from a one-time
 * schedule (later ones). Apart from the notifier, so a slow or dead receiver never delays an e-mail page.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { drain, enqueueEvent, retryInput, WEBHOOK_SOURCE_EVENTS, type WebhookSourceEvent } from '../../shared/webhooks/delivery.js';
import type { BusEvent } from '../lib/events.js';
import { workerHandler } from '../lib/observability.js';

const isBusEvent = (event: unknown): event is BusEvent => typeof event === 'object' && event !== null && 'detail-type' in event;
const isQueueEvent = (event: unknown): event is SQSEvent =>
  typeof event === 'object' && event !== null && Array.isArray((event as SQSEvent).Records) && (event as SQSEvent).Records.every((record) => record.eventSource === 'aws:sqs');

export const handler = workerHandler(
  'webhook-delivery',
  async (event: BusEvent | SQSEvent | unknown, context: Context) => {
    const send = { selfArn: context.invokedFunctionArn, remainingMs: () => context.getRemainingTimeInMillis() };
    if (isBusEvent(event)) {
      const type = event['detail-type'];
      if (!(WEBHOOK_SOURCE_EVENTS as string[]).includes(type)) throw new Error(`Unknown event type: ${type}`);
      return enqueueEvent(type as WebhookSourceEvent, event.detail, send);
    }
    // A failure throws: the message comes back after its visibility timeout, then goes to the queue's dead letters.
    const inputs = isQueueEvent(event) ? event.Records.map((record) => retryInput.parse(JSON.parse(record.body))) : [retryInput.parse(event)];
    let sent = 0;
    for (const input of inputs) sent += await drain(input.webhook_id, input.incident_id, send);
    return { sent };
  },
  (result) => `sent ${result.sent}`,
);
