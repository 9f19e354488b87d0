import { MessageBody } from '../../shared/platform/api/common.js';
import { deleteSchedule, SCHEDULE_IN_USE } from '../../shared/schedules/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Delete a schedule no escalation policy targets (its owner, or an OWNER or ADMIN of its team), with its overrides',
    params: idParams,
    response: MessageBody,
    errors: { 403: ['Not authorized'], 404: ['Schedule not found'], 409: [SCHEDULE_IN_USE] },
    failure: 'Failed to delete schedule',
  },
  async ({ params, caller }) => {
    await deleteSchedule(caller, params.id);
    return { message: 'Schedule deleted' };
  },
);
