import { MessageBody } from '../../shared/platform/api/common.js';
import { overrideParams } from '../../shared/schedules/model.js';
import { deleteOverride } from '../../shared/schedules/service.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Remove an override',
    params: overrideParams,
    response: MessageBody,
    errors: { 403: ['Not authorized'], 404: ['Schedule not found', 'Override not found'] },
    failure: 'Failed to delete override',
  },
  async ({ params, caller }) => {
    await deleteOverride(caller, params.id, params.overrideId);
    return { message: 'Override removed' };
  },
);
