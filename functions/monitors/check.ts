/**
 * `monitor-check`: invoked directly by the monitoring system with one check result.
 * Answers `{ok: true, outcome, incident_id?}`, or `{ok: false, error, details?}` for a payload it
 * cannot take (nothing is written). Unexpected failures throw, so the invoker's retry applies.
 */
import { fieldErrors } from '../../shared/platform/validation.js';
import { isServiceError } from '../../shared/platform/errors.js';
import { monitorCheckInput, processMonitorCheck } from '../../shared/paging/check.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler('monitor-check', async (event: unknown) => {
  const input = monitorCheckInput.safeParse(event);
  if (!input.success) return { ok: false, error: 'Validation errors', details: fieldErrors(input.error, 'payload') };
  try {
    return await processMonitorCheck(input.data);
  } catch (error) {
    if (isServiceError(error)) return { ok: false, error: error.message };
    throw error;
  }
}, (result) => ('outcome' in result ? result.outcome : result.error));
