import { listMonitors } from '../../shared/monitors/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute({ failure: 'Failed to fetch monitors' }, async ({ caller }) => ({
  monitors: await listMonitors(caller),
}));
