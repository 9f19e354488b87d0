import { updateMonitorInput } from '../../shared/monitors/model.js';
import { updateMonitor } from '../../shared/monitors/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, body: updateMonitorInput, failure: 'Failed to update monitor' },
  async ({ params, body, caller }) => ({ monitor: await updateMonitor(caller, params.id, body) }),
);
