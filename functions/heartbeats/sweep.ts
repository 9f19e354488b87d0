/**
 * `heartbeat-sweep`: run every minute (a periodic rule of the system description); opens the
 * "missed its heartbeat" incidents whose deadlines have passed, within its time (issue 46 §4: what
 * it could not reach is the next run's). Failures throw, so the next run retries.
 */
import type { Context } from 'aws-lambda';
import { sweepHeartbeats } from '../../shared/heartbeats/service.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'heartbeat-sweep',
  async (_event: unknown, context: Context) => sweepHeartbeats({ remainingMs: () => context.getRemainingTimeInMillis() }),
  (result) => `${result.handled}${result.more ? ' (more due: the next run goes on)' : ''}`,
);
