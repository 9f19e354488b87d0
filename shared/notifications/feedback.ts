/**
 * What SES reports back about an e-mail the service sent (through its configuration set, tagged
 * with what the e-mail was about): a subscriber whose address hard-bounces or who complains is
 * suppressed from then on; a bounced page to an escalation target is counted (and alarmed) and
 * reported to the caller for logging, never skipped silently; an invitee's bounce is counted.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../platform/zod.js';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { itemPresent, keys } from '../platform/db/keys.js';
import { conditionFailure } from '../platform/db/ops.js';
import { countMetric } from '../platform/observability/metrics.js';

const recipients = z.array(z.object({ emailAddress: z.string() }));

/** The `detail` of SES's "Email Bounced" and "Email Complaint Received" events (fields the service reads). */
export const sesFeedbackDetail = z.object({
  eventType: z.enum(['Bounce', 'Complaint']),
  mail: z.object({
    messageId: z.string(),
    /** Message tags: each name with its values. */
    tags: z._default(z.record(z.string(), z.array(z.string())), {}),
  }),
  bounce: z.optional(z.object({ bounceType: z.string(), bounceSubType: z.optional(z.string()), bouncedRecipients: recipients })),
  complaint: z.optional(z.object({ complainedRecipients: recipients, complaintFeedbackType: z.optional(z.string()) })),
});
export type SesFeedbackDetail = z.output<typeof sesFeedbackDetail>;

export type FeedbackOutcome =
  /** The subscriber is now suppressed (or already was). */
  | { outcome: 'suppressed'; monitor_id: string; subscriber_id: string; reason: 'bounce' | 'complaint' }
  /** The subscription was deleted in the meantime: nothing to mark. */
  | { outcome: 'subscription_gone'; monitor_id: string; subscriber_id: string }
  /** A soft bounce (SES gave up for now, the address may work later) or another kind's complaint: counted only. */
  | { outcome: 'noted'; kind: string; type: string }
  /** A page to an escalation target did not arrive: the caller logs it as an error; the metric alarms. */
  | { outcome: 'escalation_target_bounced'; incident_id: string; step: string; recipients: string[]; type: string }
  /** Not one of the service's tagged e-mails. */
  | { outcome: 'ignored' };

const tag = (detail: SesFeedbackDetail, name: string) => detail.mail.tags[name]?.[0];

export async function handleEmailFeedback(rawDetail: unknown): Promise<FeedbackOutcome> {
  const detail = sesFeedbackDetail.parse(rawDetail);
  const kind = tag(detail, 'kind');
  const hard = detail.eventType === 'Complaint' || detail.bounce?.bounceType === 'Permanent';
  const type = detail.eventType === 'Complaint' ? 'complaint' : `${(detail.bounce?.bounceType ?? 'undetermined').toLowerCase()} bounce`;

  if (kind === 'escalation' && detail.eventType === 'Bounce') {
    countMetric('EscalationTargetBounced');
    return {
      outcome: 'escalation_target_bounced',
      incident_id: tag(detail, 'incident') ?? 'unknown',
      step: tag(detail, 'step') ?? 'unknown',
      recipients: (detail.bounce?.bouncedRecipients ?? []).map((recipient) => recipient.emailAddress),
      type,
    };
  }
  const monitorId = tag(detail, 'monitor');
  const subscriberId = tag(detail, 'subscriber');
  if ((kind === 'subscriber' || kind === 'confirmation') && hard && monitorId && subscriberId) {
    const reason = detail.eventType === 'Complaint' ? 'complaint' : 'bounce';
    try {
      // The first report wins: a later bounce does not rewrite a complaint's date or reason.
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.subscriber(monitorId, subscriberId),
          UpdateExpression: 'SET suppressed_at = if_not_exists(suppressed_at, :at), suppression_reason = if_not_exists(suppression_reason, :reason)',
          ConditionExpression: itemPresent,
          ExpressionAttributeValues: { ':at': clock.now().toISOString(), ':reason': reason },
        }),
      );
    } catch (error) {
      if (conditionFailure(error)) return { outcome: 'subscription_gone', monitor_id: monitorId, subscriber_id: subscriberId };
      throw error;
    }
    countMetric('EmailSuppressed', { reason });
    return { outcome: 'suppressed', monitor_id: monitorId, subscriber_id: subscriberId, reason };
  }
  if (!kind) return { outcome: 'ignored' };
  countMetric('EmailBounced', { kind, type });
  return { outcome: 'noted', kind, type };
}
