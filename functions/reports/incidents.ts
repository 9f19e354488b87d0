import * as z from '../../shared/platform/zod.js';
import { IncidentReport, incidentReport, incidentReportCsv, REPORT_CSV_COLUMNS, reportQuery } from '../../shared/incidents/report.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Figures over the incidents the caller may read that opened in a range of at most 366 days; as CSV with `Accept: text/csv`',
    query: reportQuery,
    response: z.strictObject({ report: IncidentReport }),
    errors: { 403: ['Not a team member'], 404: ['Team not found'] },
    failure: 'Failed to build report',
    csv: {
      description: `With \`Accept: text/csv\`: one row per incident, oldest first (RFC 4180, CRLF), under the header \`${REPORT_CSV_COLUMNS.join(',')}\`; a cell starting with \`=\`, \`+\`, \`-\` or \`@\` is prefixed with \`'\``,
    },
  },
  async ({ query, caller }) => ({ report: await incidentReport(caller, query) }),
  ({ query, caller }) => incidentReportCsv(caller, query),
);
