import * as z from '../../shared/platform/zod.js';
import { listOverridesQuery, OverrideBody } from '../../shared/schedules/model.js';
import { listOverrides } from '../../shared/schedules/service.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List a schedule's overrides that overlap [from, to) (from: now unless given; to: no bound unless given), by start",
    params: idParams,
    query: listOverridesQuery,
    response: z.strictObject({ overrides: z.array(OverrideBody), next_cursor: NextCursor }),
    errors: { 404: ['Schedule not found'] },
    failure: 'Failed to fetch overrides',
    paged: true,
  },
  async ({ params, query, caller }) => {
    const page = await listOverrides(caller, params.id, query);
    return { overrides: page.items, next_cursor: page.next_cursor };
  },
);
