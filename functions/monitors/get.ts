import { getMonitor } from '../../shared/monitors/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, failure: 'Failed to fetch monitor' },
  async ({ params, caller }) => ({ monitor: await getMonitor(caller, params.id) }),
);
