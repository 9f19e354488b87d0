import * as z from '../../shared/platform/zod.js';
import { OnCallBody, onCallQuery } from '../../shared/schedules/model.js';
import { onCall } from '../../shared/schedules/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Who is on call at an instant (at; default now) and from when until when; empty where nothing covers it',
    params: idParams,
    query: onCallQuery,
    response: z.strictObject({ on_call: z.array(OnCallBody) }),
    errors: { 404: ['Schedule not found'] },
    failure: 'Failed to fetch who is on call',
  },
  async ({ params, query, caller }) => ({ on_call: await onCall(caller, params.id, query.at) }),
);
