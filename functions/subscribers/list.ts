import * as z from '../../shared/platform/zod.js';
import { SubscriberBody } from '../../shared/subscribers/model.js';
import { listSubscribers } from '../../shared/subscribers/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { pageQuery } from '../../shared/platform/api/pagination.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "List a monitor's subscribers, oldest first",
    params: idParams,
    query: pageQuery,
    response: z.strictObject({ subscribers: z.array(SubscriberBody), next_cursor: NextCursor }),
    errors: { 404: ['Monitor not found'] },
    failure: 'Failed to fetch subscribers',
    paged: true,
  },
  async ({ params, query, caller }) => {
    const page = await listSubscribers(caller, params.id, query);
    return { subscribers: page.items, next_cursor: page.next_cursor };
  },
);
