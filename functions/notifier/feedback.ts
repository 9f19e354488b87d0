/**
 * `email-feedback`: SES's bounce and complaint events (from the default bus) for the e-mails the
 * service sent. A bounced escalation page is logged as an error (and alarmed through its metric).
 */
import { handleEmailFeedback } from '../../shared/notifications/feedback.js';
import type { BusEvent } from '../lib/events.js';
import { logger, workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'email-feedback',
  async (event: BusEvent) => {
    const result = await handleEmailFeedback(event.detail);
    if (result.outcome === 'escalation_target_bounced') {
      logger.error('escalation e-mail bounced: the target was not paged', { ...result, ses_event_id: event.id });
    }
    return result;
  },
  (result) => result.outcome,
);
