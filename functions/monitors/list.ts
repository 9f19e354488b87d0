import * as z from 'zod';
import { MonitorBody } from '../../shared/monitors/model.js';
import { listMonitors } from '../../shared/monitors/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List the caller's monitors, newest first",
    response: z.strictObject({ monitors: z.array(MonitorBody) }),
    failure: 'Failed to fetch monitors',
  },
  async ({ caller }) => ({ monitors: await listMonitors(caller) }),
);
