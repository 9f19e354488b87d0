/** `notifier`: turns bus events into e-mails through SES (subscribers, invitees, escalation targets). */
import { notify } from '../../shared/notifications/notifier.js';
import { eventTypeOf, type BusEvent } from '../lib/events.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'notifier',
  async (event: BusEvent) => notify(eventTypeOf(event), event.detail),
  (result) => `sent ${result.sent}, duplicates ${result.duplicates}`,
);
