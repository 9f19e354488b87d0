/**
 * `person-notification`: reaches people through their contact methods (issue 43). Three inputs: the
 * `incident.escalation_step` event from the bus (each person's rules due at once, or the fallback
 * e-mail), a delayed rule's one-time schedule (that rule, unless the incident was acknowledged or
 * resolved meanwhile), `contact_method.verification_requested` (the code, through the method), and a
 * phone method's held pages' flush schedule (one combined message, issue 43 §4's throttles).
 */
import type { Context } from 'aws-lambda';
import { eventDetails } from '../../shared/platform/events/model.js';
import { pagePeople, personNotificationInput, sendPersonRule } from '../../shared/notifications/pages.js';
import { sendVerificationCode } from '../../shared/notifications/verification.js';
import { flushHeld, heldFlushInput } from '../../shared/notifications/throttle.js';
import type { BusEvent } from '../lib/events.js';
import { workerHandler } from '../lib/observability.js';
import { PERSON_NOTIFICATION_TIMEOUT_SECONDS } from '../../shared/system.js';

const isBusEvent = (event: unknown): event is BusEvent => typeof event === 'object' && event !== null && 'detail-type' in event;

export const handler = workerHandler(
  'person-notification',
  async (event: BusEvent | unknown, context: Context) => {
    // A pending delivery (or flush) is this invocation's until its timeout, past which Lambda has ended it.
    const options = { remainingMs: () => context.getRemainingTimeInMillis(), leaseMs: PERSON_NOTIFICATION_TIMEOUT_SECONDS * 1000 };
    if (isBusEvent(event) && event['detail-type'] === 'contact_method.verification_requested') {
      return { outcome: await sendVerificationCode(eventDetails['contact_method.verification_requested'].parse(event.detail)) };
    }
    if (isBusEvent(event)) return pagePeople(eventDetails['incident.escalation_step'].parse(event.detail), options);
    if (typeof event === 'object' && event !== null && 'held_for' in event) return { outcome: await flushHeld(heldFlushInput.parse(event), options.leaseMs) };
    return { outcome: await sendPersonRule(personNotificationInput.parse(event), options) };
  },
  (result) => ('outcome' in result ? result.outcome : `sent ${result.sent}, duplicates ${result.duplicates}${result.possible_duplicates ? `, possible duplicates ${result.possible_duplicates}` : ''}`),
);
