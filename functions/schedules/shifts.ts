import * as z from '../../shared/platform/zod.js';
import { ShiftBody, shiftsQuery } from '../../shared/schedules/model.js';
import { shifts } from '../../shared/schedules/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "A schedule's final shifts over [from, to) (at most 90 days): layers, restrictions and overrides combined, one person's back-to-back time merged whatever its sources (shown with its first piece's source and layer); with `layer`, that layer's own rotation alone",
    params: idParams,
    query: shiftsQuery,
    response: z.strictObject({ shifts: z.array(ShiftBody) }),
    errors: { 404: ['Schedule not found'] },
    failure: 'Failed to fetch shifts',
  },
  async ({ params, query, caller }) => ({ shifts: await shifts(caller, params.id, query) }),
);
