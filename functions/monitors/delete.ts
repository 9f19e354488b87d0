import { MessageBody } from '../../shared/platform/api/common.js';
import { deleteMonitor } from '../../shared/monitors/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { missedIncidentResolution } from '../../shared/heartbeats/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Delete a monitor and its subscribers (its owner, or an OWNER or ADMIN of its team); its incidents stay',
    params: idParams,
    response: MessageBody,
    errors: { 403: ['Not authorized'], 404: ['Monitor not found'] },
    failure: 'Failed to delete monitor',
  },
  async ({ params, caller }) => {
    await deleteMonitor(caller, params.id, missedIncidentResolution);
    return { message: 'Monitor deleted' };
  },
);
