import * as z from '../../shared/platform/zod.js';
import { createOverrideInput, OverrideBody } from '../../shared/schedules/model.js';
import { createOverride } from '../../shared/schedules/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Put a person on call over every layer of a schedule from start to end (UTC, at most 90 days); a later override wins where two overlap',
    params: idParams,
    body: createOverrideInput,
    status: 201,
    response: z.strictObject({ override: OverrideBody }),
    errors: { 403: ['Not authorized'], 404: ['Schedule not found'] },
    failure: 'Failed to create override',
  },
  async ({ params, body, caller }) => ({ override: await createOverride(caller, params.id, body) }),
);
