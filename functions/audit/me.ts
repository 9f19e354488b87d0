import { AuditPage, listAuditQuery } from '../../shared/audit/model.js';
import { listMyAudit } from '../../shared/teams/audit-log.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "The audit log of the caller's own resources (the monitors, policies, schedules and webhooks they own, in a team or not), newest first",
    query: listAuditQuery,
    response: AuditPage,
    failure: 'Failed to fetch audit log',
    paged: true,
  },
  async ({ query, caller }) => listMyAudit(caller, query),
);
