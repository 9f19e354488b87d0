/**
 * `shift-notices`: run every minute (a periodic rule of the system description); tells each person
 * whose shift has started, through their low-urgency notification rules (issue 45 §3). Failures throw,
 * after every other schedule was handled; those schedules stay due, so the next run tries again.
 */
import type { Context } from 'aws-lambda';
import { sweepShiftNotices } from '../../shared/notifications/shift-notices.js';
import { SHIFT_NOTICES_TIMEOUT_SECONDS } from '../../shared/system.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'shift-notices',
  async (_event: unknown, context: Context) => sweepShiftNotices({ remainingMs: () => context.getRemainingTimeInMillis(), leaseMs: SHIFT_NOTICES_TIMEOUT_SECONDS * 1000 }),
  (result) => `schedules ${result.schedules}, notices ${result.notices}`,
);
