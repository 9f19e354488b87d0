/** `notifier`: turns bus events into e-mails through SES (subscribers, invitees, escalation targets). */
import type { Context } from 'aws-lambda';
import { notify } from '../../shared/notifications/notifier.js';
import { NOTIFIER_TIMEOUT_SECONDS } from '../../shared/system.js';
import { eventTypeOf, type BusEvent } from '../lib/events.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'notifier',
  // The invocation's remaining time bounds how long a retry waits for a page another invocation holds.
  async (event: BusEvent, context: Context) => notify(eventTypeOf(event), event.detail, { remainingMs: () => context.getRemainingTimeInMillis(), leaseMs: NOTIFIER_TIMEOUT_SECONDS * 1000 }),
  (result) => `sent ${result.sent}, duplicates ${result.duplicates}${result.possible_duplicates ? `, possible duplicates ${result.possible_duplicates}` : ''}${result.withheld ? `, withheld ${result.withheld}` : ''}`,
);
