import { AuditPage, listAuditQuery } from '../../shared/audit/model.js';
import { listTeamAudit } from '../../shared/teams/audit-log.js';
import { teamParams } from '../../shared/teams/model.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "The team's audit log (its OWNER and ADMINs): every accepted change to the team and what it shares, newest first",
    params: teamParams,
    query: listAuditQuery,
    response: AuditPage,
    errors: { 403: ['Not authorized'], 404: ['Team not found'] },
    failure: 'Failed to fetch audit log',
    paged: true,
  },
  async ({ params, query, caller }) => listTeamAudit(caller, params.id, query),
);
