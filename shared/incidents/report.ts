/**
 * Incident reports (issue 45 §4): figures over the incidents the caller may read that opened in `[from, to)`,
 * as JSON, and one CSV row per incident.
 *
 * Cost grows with the incidents in the range, never with the history around it: each scope the caller
 * reads (their own, each team's, or one monitor's) is one Query of its index partition over the range of
 * sort keys `INCIDENT#<from>` … `INCIDENT#<to>` (the owner, team and monitor indexes are ordered by start
 * time), paged by DynamoDB at 1 MB and projected to the attributes a report uses. Every per-incident
 * figure is on the incident item itself, written when it happened (the first acknowledgement by
 * `acknowledgeIncident`, the pages by the step's own transaction), so no incident costs a read of its own.
 */
import * as z from '../platform/zod.js';
import { described, Id, Timestamp } from '../platform/api/common.js';
import type { Caller } from '../platform/caller.js';
import { queryAll, type Item } from '../platform/db/ops.js';
import type { IndexShape } from '../platform/db/ops.js';
import { monitorIndex, ownerIndex, teamIndex } from '../platform/db/keys.js';
import { getMonitor } from '../monitors/repository.js';
import { accessTo, allows, READERS, readScopes, requireTeamMember, type VerifiedTeam } from '../teams/access.js';
import { localHour } from '../schedules/zone.js';
import { SEVERITIES, Severity, Urgency, urgencyOf } from './model.js';

/** A report's range: at most 366 days. */
export const MAX_REPORT_DAYS = 366;

/** An ISO 8601 date-time (any offset), normalized to UTC with milliseconds, as `started_at` is stored. */
const Instant = described(
  z.pipe(
    z.iso.datetime({ offset: true }),
    z.transform((value) => new Date(value).toISOString()),
  ),
  { example: '2026-10-01T00:00:00Z' },
);

export const reportQuery = z
  .object({
    from: described(Instant, { description: 'Incidents that opened at or after this time' }),
    to: described(Instant, { description: `Incidents that opened before this time (after \`from\`, at most ${MAX_REPORT_DAYS} days later)` }),
    team_id: described(z.optional(z.uuid()), { description: "Only the incidents shared with this team (the caller's team)" }),
    monitor_id: described(z.optional(z.uuid()), { description: 'Only the incidents of this monitor' }),
  })
  .check(
    z.superRefine((query, context) => {
      const span = Date.parse(query.to) - Date.parse(query.from);
      if (span <= 0) context.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from' });
      else if (span > MAX_REPORT_DAYS * 86_400_000) context.addIssue({ code: 'custom', path: ['to'], message: `The range must not exceed ${MAX_REPORT_DAYS} days` });
    }),
  );
export type ReportQuery = z.output<typeof reportQuery>;


export const IncidentReport = described(
  z.strictObject({
    from: Timestamp,
    to: Timestamp,
    incidents: z.int(),
    acknowledged: described(z.int(), { description: 'Incidents acknowledged at least once' }),
    resolved: described(z.int(), { description: 'Incidents resolved (and not reopened)' }),
    by_severity: described(z.record(Severity, z.int()), { description: 'Incidents per severity (every severity, 0 included)' }),
    mean_seconds_to_acknowledge: described(z.nullable(z.number()), { description: 'From opening to the first acknowledgement, the mean, in seconds (null: no incident to measure)' }),
    median_seconds_to_acknowledge: described(z.nullable(z.number()), { description: 'The same, the median, in seconds (null: no incident to measure)' }),
    mean_seconds_to_resolve: described(z.nullable(z.number()), { description: 'From opening to resolution, the mean, in seconds (null: no incident to measure)' }),
    median_seconds_to_resolve: described(z.nullable(z.number()), { description: 'The same, the median, in seconds (null: no incident to measure)' }),
    pages: described(z.int(), { description: 'Pages sent: one per recipient of each paged escalation step (a person once, whatever their channels)' }),
    pages_outside_09_18: described(z.int(), {
      description: "Pages sent before 09:00 or from 18:00 on, in the time zone of the schedule the person was on call in (else UTC)",
    }),
    by_monitor: described(
      z.array(
        z.strictObject({
          monitor_id: Id,
          monitor_name: z.string(),
          incidents: z.int(),
          mean_seconds_to_acknowledge: z.nullable(z.number()),
          mean_seconds_to_resolve: z.nullable(z.number()),
        }),
      ),
      { description: 'Per monitor: most incidents first, then by name, then id' },
    ),
    by_responder: described(
      z.array(
        z.strictObject({
          user_id: Id,
          user_name: z.string(),
          acknowledged: described(z.int(), { description: 'Incidents they acknowledged first' }),
          paged: z.int(),
          paged_outside_09_18: z.int(),
        }),
      ),
      { description: 'Per person paged or acknowledging: most pages first, then most acknowledgements, then by name, then id' },
    ),
  }),
  { id: 'IncidentReport' },
);
export type IncidentReport = z.output<typeof IncidentReport>;

/** What a report reads of an incident item (its projection). */
const reportedIncident = z.object({
  id: z.string(),
  monitor_id: z.string(),
  monitor_name: z.string(),
  team_id: z.optional(z.string()),
  title: z.string(),
  status: z.string(),
  severity: Severity,
  urgency: z.optional(Urgency),
  started_at: z.string(),
  created_at: z.string(),
  resolved_at: z.optional(z.nullable(z.string())),
  first_acknowledged_at: z.optional(z.string()),
  first_acknowledged_by: z.optional(z.string()),
  first_acknowledged_by_name: z.optional(z.string()),
  pages: z.optional(z.array(z.object({ at: z.string(), user_id: z.optional(z.string()), user_name: z.optional(z.string()), time_zone: z.optional(z.string()) }))),
});
type ReportedIncident = z.output<typeof reportedIncident>;

const PROJECTION = Object.keys(reportedIncident.shape);

/** One scope's incidents that opened in `[from, to)`: one Query over the range of its sort keys (1 MB a call). */
async function incidentsIn(index: IndexShape, partition: string, query: ReportQuery): Promise<Item[]> {
  const names = Object.fromEntries(PROJECTION.map((name, position) => [`#p${position}`, name]));
  return queryAll({
    IndexName: index.name,
    // `INCIDENT#<to>` sorts before every key of an incident that opened at `to` (`INCIDENT#<to>#<id>`): `to` is exclusive.
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: { '#pk': index.pk, '#sk': index.sk, ...names },
    ExpressionAttributeValues: { ':pk': partition, ':from': `INCIDENT#${query.from}`, ':to': `INCIDENT#${query.to}` },
    ProjectionExpression: Object.keys(names).join(', '),
  });
}

/**
 * The incidents the caller may read that opened in the range, as the incidents list finds them: their
 * own monitors' (owner index) and each team's (team index; `team_id`: that team alone, 404 Team not found /
 * 403 Not a team member as on every list), a team's entries of a monitor moving between teams ignored and
 * the monitor's incidents read from the monitor index by the team it moves into; `monitor_id`: the
 * monitor index, if the caller may read the monitor (else nothing). De-duplicated, oldest first.
 */
async function readableIncidents(caller: Caller, query: ReportQuery): Promise<ReportedIncident[]> {
  const read = query.monitor_id ? await monitorScope(caller, query, query.monitor_id) : await scopes(caller, query);
  const byId = new Map<string, ReportedIncident>();
  for (const item of read) byId.set(String(item.id), reportedIncident.parse(item));
  return [...byId.values()].sort((a, b) => (a.started_at === b.started_at ? (a.id < b.id ? -1 : 1) : a.started_at < b.started_at ? -1 : 1));
}

async function scopes(caller: Caller, query: ReportQuery, monitorId?: string): Promise<Item[]> {
  const { own, teams } = await readScopes(
    caller.userId,
    () => incidentsIn(ownerIndex, ownerIndex.partition(caller.userId), query),
    (teamId) => incidentsIn(teamIndex, teamIndex.partition(teamId), query),
    query.team_id,
  );
  const arriving = teams.flatMap(({ teamId, team }) => arrivingMonitors(teamId, team));
  const moved = await Promise.all(arriving.map((arrivingId) => incidentsIn(monitorIndex, monitorIndex.partition(arrivingId), query)));
  const items = [...(own ?? []), ...teams.flatMap(({ team, items }) => items.filter((item) => !team.transits.has(String(item.monitor_id)))), ...moved.flat()];
  return monitorId === undefined ? items : items.filter((item) => item.monitor_id === monitorId);
}

const arrivingMonitors = (teamId: string, team: VerifiedTeam) =>
  [...team.transits.values()].filter((transit) => transit.to_team_id === teamId).map((transit) => transit.monitor_id);

/** `monitor_id`: the monitor index, read beside the monitor; a deleted monitor's incidents stay where they were seen. */
async function monitorScope(caller: Caller, query: ReportQuery, monitorId: string): Promise<Item[]> {
  const [monitor, items, team] = await Promise.all([
    getMonitor(monitorId),
    incidentsIn(monitorIndex, monitorIndex.partition(monitorId), query),
    query.team_id ? requireTeamMember(query.team_id, caller.userId) : undefined,
  ]);
  if (!monitor) return scopes(caller, query, monitorId);
  if (!allows(await accessTo(caller.userId, monitor), READERS)) return [];
  // With `team_id` too: the monitor's incidents while that team's.
  return team ? items.filter((item) => (monitor.team_id ?? null) === query.team_id && item.team_id === query.team_id) : items;
}

/** Seconds between two instants (millisecond precision). */
const secondsBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000;
/** To the millisecond, so a mean reads as the durations it summarizes. */
const rounded = (value: number) => Math.round(value * 1000) / 1000;
const mean = (values: number[]) => (values.length === 0 ? null : rounded(values.reduce((sum, value) => sum + value, 0) / values.length));
function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return rounded(sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2);
}

const toAcknowledge = (incident: ReportedIncident) =>
  incident.first_acknowledged_at === undefined ? undefined : secondsBetween(incident.started_at, incident.first_acknowledged_at);
const toResolve = (incident: ReportedIncident) =>
  incident.status === 'RESOLVED' && incident.resolved_at ? secondsBetween(incident.started_at, incident.resolved_at) : undefined;
const defined = (values: (number | undefined)[]) => values.filter((value): value is number => value !== undefined);

/** 09:00–18:00 is working time; a page before 09:00 or from 18:00 on is outside it, on the wall clock of its zone. */
export const outsideWorkingHours = (at: string, zone: string | undefined): boolean => {
  const hour = localHour(Date.parse(at), zone ?? 'UTC');
  return hour < 9 || hour >= 18;
};

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function summarize(query: Pick<ReportQuery, 'from' | 'to'>, incidents: readonly ReportedIncident[]): IncidentReport {
  const bySeverity = Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as Record<Severity, number>;
  const monitors = new Map<string, { monitor_id: string; monitor_name: string; incidents: ReportedIncident[] }>();
  const people = new Map<string, { user_id: string; user_name: string; acknowledged: number; paged: number; paged_outside_09_18: number }>();
  const person = (userId: string, name: string | undefined) => {
    const found = people.get(userId) ?? { user_id: userId, user_name: name ?? userId, acknowledged: 0, paged: 0, paged_outside_09_18: 0 };
    // The name as last recorded (incidents are read oldest first).
    if (name) found.user_name = name;
    people.set(userId, found);
    return found;
  };
  let pages = 0;
  let outside = 0;
  for (const incident of incidents) {
    bySeverity[incident.severity] += 1;
    const monitor = monitors.get(incident.monitor_id) ?? { monitor_id: incident.monitor_id, monitor_name: incident.monitor_name, incidents: [] };
    monitor.monitor_name = incident.monitor_name;
    monitor.incidents.push(incident);
    monitors.set(incident.monitor_id, monitor);
    if (incident.first_acknowledged_by) person(incident.first_acknowledged_by, incident.first_acknowledged_by_name).acknowledged += 1;
    for (const page of incident.pages ?? []) {
      const late = outsideWorkingHours(page.at, page.time_zone);
      pages += 1;
      if (late) outside += 1;
      if (page.user_id) {
        const paged = person(page.user_id, page.user_name);
        paged.paged += 1;
        if (late) paged.paged_outside_09_18 += 1;
      }
    }
  }
  const acknowledge = defined(incidents.map(toAcknowledge));
  const resolve = defined(incidents.map(toResolve));
  return {
    from: query.from,
    to: query.to,
    incidents: incidents.length,
    acknowledged: incidents.filter((incident) => incident.first_acknowledged_at !== undefined).length,
    resolved: incidents.filter((incident) => incident.status === 'RESOLVED').length,
    by_severity: bySeverity,
    mean_seconds_to_acknowledge: mean(acknowledge),
    median_seconds_to_acknowledge: median(acknowledge),
    mean_seconds_to_resolve: mean(resolve),
    median_seconds_to_resolve: median(resolve),
    pages,
    pages_outside_09_18: outside,
    by_monitor: [...monitors.values()]
      .map((monitor) => ({
        monitor_id: monitor.monitor_id,
        monitor_name: monitor.monitor_name,
        incidents: monitor.incidents.length,
        mean_seconds_to_acknowledge: mean(defined(monitor.incidents.map(toAcknowledge))),
        mean_seconds_to_resolve: mean(defined(monitor.incidents.map(toResolve))),
      }))
      .sort((a, b) => b.incidents - a.incidents || byText(a.monitor_name, b.monitor_name) || byText(a.monitor_id, b.monitor_id)),
    by_responder: [...people.values()].sort(
      (a, b) => b.paged - a.paged || b.acknowledged - a.acknowledged || byText(a.user_name, b.user_name) || byText(a.user_id, b.user_id),
    ),
  };
}

/** `GET /api/reports/incidents`: the figures. */
export async function incidentReport(caller: Caller, query: ReportQuery): Promise<IncidentReport> {
  return summarize(query, await readableIncidents(caller, query));
}

/** The CSV's columns, in order. */
export const REPORT_CSV_COLUMNS = [
  'id',
  'monitor_id',
  'monitor_name',
  'title',
  'severity',
  'urgency',
  'created_at',
  'acknowledged_at',
  'acknowledged_by',
  'resolved_at',
  'seconds_to_acknowledge',
  'seconds_to_resolve',
  'pages',
] as const;

/**
 * One CSV field (RFC 4180): a cell a spreadsheet would take for a formula (starting with `=`, `+`, `-`, `@`)
 * is prefixed with `'` (OWASP's CSV injection advice); a field with a comma, a quote, CR or LF is quoted,
 * its quotes doubled. Empty for null.
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (/^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV form: a header, then one row per incident, oldest first, CRLF line ends (RFC 4180). */
export async function incidentReportCsv(caller: Caller, query: ReportQuery): Promise<string> {
  const incidents = await readableIncidents(caller, query);
  const rows = incidents.map((incident) => [
    incident.id,
    incident.monitor_id,
    incident.monitor_name,
    incident.title,
    incident.severity,
    urgencyOf(incident),
    incident.created_at,
    incident.first_acknowledged_at,
    incident.first_acknowledged_by_name,
    incident.status === 'RESOLVED' ? incident.resolved_at : null,
    toAcknowledge(incident),
    toResolve(incident),
    incident.pages?.length ?? 0,
  ]);
  return [REPORT_CSV_COLUMNS as readonly (string | number | null | undefined)[], ...rows].map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}
