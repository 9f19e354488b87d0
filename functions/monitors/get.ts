import * as z from '../../shared/platform/zod.js';
import { MonitorBody } from '../../shared/monitors/model.js';
import { getMonitor } from '../../shared/monitors/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Get a monitor (its owner, or any member of its team)',
    params: idParams,
    response: z.strictObject({ monitor: MonitorBody }),
    errors: { 404: ['Monitor not found'] },
    failure: 'Failed to fetch monitor',
  },
  async ({ params, caller }) => ({ monitor: await getMonitor(caller, params.id) }),
);
