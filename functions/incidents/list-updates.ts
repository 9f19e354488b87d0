import * as z from '../../shared/platform/zod.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { listUpdates } from '../../shared/incidents/service.js';
import { listUpdatesQuery, TimelineEntryBody } from '../../shared/incidents/timeline.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "An incident's timeline, oldest first: notes, and an entry for everything that happened to it",
    params: idParams,
    query: listUpdatesQuery,
    response: z.strictObject({ updates: z.array(TimelineEntryBody), next_cursor: NextCursor }),
    errors: { 404: ['Incident not found'] },
    failure: 'Failed to fetch updates',
    paged: true,
  },
  async ({ params, query, caller }) => {
    const page = await listUpdates(caller, params.id, query);
    return { updates: page.items, next_cursor: page.next_cursor };
  },
);
