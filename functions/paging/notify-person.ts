/** `person-notification`: a person's delayed notification rule at its time (one-time schedule); sent unless acknowledged or resolved. */
import type { Context } from 'aws-lambda';
import { personNotificationInput } from '../../shared/paging/notify-person.js';
import { sendPersonRule } from '../../shared/notifications/pages.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'person-notification',
  async (event: unknown, context: Context) => ({ outcome: await sendPersonRule(personNotificationInput.parse(event), { remainingMs: () => context.getRemainingTimeInMillis() }) }),
  (result) => result.outcome,
);
