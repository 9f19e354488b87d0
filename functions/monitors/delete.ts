import { deleteMonitor } from '../../shared/monitors/service.js';
import { idParams } from '../../shared/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  { params: idParams, failure: 'Failed to delete monitor' },
  async ({ params, caller }) => {
    await deleteMonitor(caller, params.id);
    return { message: 'Monitor deleted' };
  },
);
