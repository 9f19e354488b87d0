import { createMonitorInput } from '../../shared/monitors/model.js';
import { createMonitor } from '../../shared/monitors/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { body: createMonitorInput, status: 201, failure: 'Failed to create monitor' },
  async ({ body, caller }) => ({ monitor: await createMonitor(caller, body) }),
);
