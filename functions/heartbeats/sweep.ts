/**
 * `heartbeat-sweep`: run every minute (a periodic rule of the system description); opens the
 * "missed its heartbeat" incidents whose deadlines have passed. Failures throw, so the next run retries.
 */
import { sweepHeartbeats } from '../../shared/heartbeats/service.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler('heartbeat-sweep', async () => ({ handled: await sweepHeartbeats() }), (result) => String(result.handled));
