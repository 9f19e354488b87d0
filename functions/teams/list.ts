import * as z from '../../shared/platform/zod.js';
import { TeamListItem } from '../../shared/teams/model.js';
import { listTeams } from '../../shared/teams/service.js';
import { NextCursor } from '../../shared/platform/api/common.js';
import { pageQuery } from '../../shared/platform/api/pagination.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'List the teams the caller belongs to, newest membership first',
    query: pageQuery,
    response: z.strictObject({ teams: z.array(TeamListItem), next_cursor: NextCursor }),
    failure: 'Failed to fetch teams',
    paged: true,
  },
  async ({ query, caller }) => {
    const page = await listTeams(caller, query);
    return { teams: page.items, next_cursor: page.next_cursor };
  },
);
