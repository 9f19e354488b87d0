/**
 * `sms-receipts`: the configuration set's SMS and voice events (its SNS event destination): each
 * final one marks its notification `delivered` or `failed` on the incident's timeline.
 */
import { messageEvent, snsEvent, snsMessages } from '../../shared/phones/payloads.js';
import { applyReceipt, type ReceiptOutcome } from '../../shared/phones/receipts.js';
import * as z from '../../shared/platform/zod.js';
import { logger, workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'sms-receipts',
  async (event: unknown) => {
    const outcomes: ReceiptOutcome[] = [];
    for (const record of snsMessages(z.parse(snsEvent, event), messageEvent)) {
      const result = await applyReceipt(record);
      if (result.outcome === 'unknown_message') logger.info('receipt of a message the service does not know: ignored', { ...result, event_type: record.eventType });
      if (result.status === 'failed') logger.warn('an SMS or call failed', { ...result, event_type: record.eventType });
      outcomes.push(result.outcome);
    }
    // A page's receipt that came before its timeline entry: failing has the invocation retried.
    const early = outcomes.filter((outcome) => outcome === 'not_yet_recorded').length;
    if (early > 0) throw new Error(`${early} receipt(s) of page messages came before their timeline entries were written: to be retried`);
    return outcomes;
  },
  (outcomes) => outcomes.join(',') || 'none',
);
