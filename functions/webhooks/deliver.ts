/**
 * `webhook-delivery`: incident events from the bus become messages to the webhooks they reach; a
 * retry's schedule (`{webhook_id, incident_id}`) sends the pair's queue on. Apart from the notifier,
 * so a slow or dead receiver never delays an e-mail page.
 */
import type { Context } from 'aws-lambda';
import { drain, enqueueEvent, retryInput, WEBHOOK_SOURCE_EVENTS, type WebhookSourceEvent } from '../../shared/webhooks/delivery.js';
import type { BusEvent } from '../lib/events.js';
import { workerHandler } from '../lib/observability.js';

const isBusEvent = (event: unknown): event is BusEvent => typeof event === 'object' && event !== null && 'detail-type' in event;

export const handler = workerHandler(
  'webhook-delivery',
  async (event: BusEvent | unknown, context: Context) => {
    const send = { selfArn: context.invokedFunctionArn, remainingMs: () => context.getRemainingTimeInMillis() };
    if (isBusEvent(event)) {
      const type = event['detail-type'];
      if (!(WEBHOOK_SOURCE_EVENTS as string[]).includes(type)) throw new Error(`Unknown event type: ${type}`);
      return enqueueEvent(type as WebhookSourceEvent, event.detail, send);
    }
    const input = retryInput.parse(event);
    return { sent: await drain(input.webhook_id, input.incident_id, send) };
  },
  (result) => `sent ${result.sent}`,
);
