/**
 * `sms-inbound`: SMS sent to the service's number, as AWS End User Messaging publishes them to the
 * number's two-way SNS topic (locally: `POST /local/phones/reply`). Each acts or answers (shared/phones/replies.ts).
 */
import { snsEvent, snsMessages, twoWayMessage } from '../../shared/phones/payloads.js';
import { handleReply, type ReplyOutcome } from '../../shared/phones/replies.js';
import * as z from '../../shared/platform/zod.js';
import { logger, workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'sms-inbound',
  async (event: unknown) => {
    const outcomes: ReplyOutcome[] = [];
    for (const message of snsMessages(z.parse(snsEvent, event), twoWayMessage)) {
      const { outcome } = await handleReply(message);
      logger.info('sms reply', { outcome, inbound_message_id: message.inboundMessageId });
      outcomes.push(outcome);
    }
    return outcomes;
  },
  (outcomes) => outcomes.join(',') || 'none',
);
