import { randomUUID } from 'node:crypto';
import * as z from '../platform/zod.js';
import { described, Id, Timestamp, Text } from '../platform/api/common.js';
import { pageParams } from '../platform/api/pagination.js';
import { AcknowledgementMethod, Severity, Status, STATUSES, Urgency, urgencyOfSeverity } from '../platform/vocabulary.js';

export { ACKNOWLEDGEMENT_METHODS, AcknowledgementMethod, SEVERITIES, Severity, STATUSES, Status, URGENCIES, Urgency, urgencyOfSeverity } from '../platform/vocabulary.js';

/** Titles are trimmed; 1-200 characters remain. */
export const IncidentTitle = Text({ min: 1, max: 200 });
/** Additional context of a manual incident (kept with it, sent in the "New incident" notification). */
export const IncidentMessage = Text({ max: 10_000, multiline: true });

export const createIncidentInput = described(
  z.strictObject({
    monitorId: z.uuid(),
    title: IncidentTitle,
    message: z.nullish(IncidentMessage),
    severity: z._default(Severity, 'MEDIUM'),
  }),
  {
    id: 'CreateIncident',
    example: { monitorId: '3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c', title: 'Checkout errors', message: 'Elevated 5xx since 10:05', severity: 'HIGH' },
  },
);
export type CreateIncidentInput = z.output<typeof createIncidentInput>;

/** Every field optional; an absent body is an empty update ("No updates provided"). */
export const updateIncidentInput = z.prefault(
  described(z.partial(z.strictObject({ status: Status, severity: Severity, title: IncidentTitle })), {
    minProperties: 1,
    id: 'UpdateIncident',
    example: { status: 'IDENTIFIED', severity: 'CRITICAL' },
  }),
  {},
);
export type UpdateIncidentInput = z.output<typeof updateIncidentInput>;

/** The acknowledge body is optional; `method` defaults to `web`. */
export const acknowledgeIncidentInput = z.prefault(z.strictObject({ method: z._default(AcknowledgementMethod, 'web') }), {});
export type AcknowledgeIncidentInput = z.output<typeof acknowledgeIncidentInput>;

/** An ISO 8601 date-time (any offset), normalized to UTC with milliseconds, as `started_at` is stored. */
const InstantParam = described(
  z.pipe(
    z.iso.datetime({ offset: true }),
    z.transform((value) => new Date(value).toISOString()),
  ),
  { example: '2026-11-01T00:00:00Z' },
);

/** Filters (combinable) and paging of `GET /api/incidents`. */
export const listIncidentsQuery = z
  .object({
    severity: z.optional(Severity),
    status: described(z.optional(z.enum([...STATUSES, 'open'])), { description: 'One of the four statuses, or `open` (not RESOLVED)' }),
    monitor_id: z.optional(z.uuid()),
    team_id: described(z.optional(z.uuid()), { description: "Only the incidents shared with this team (the caller's team; 403 Not a team member, 404 Team not found)" }),
    urgency: described(z.optional(Urgency), { description: 'Only incidents of this urgency (as they opened with; before urgencies, their severity\'s)' }),
    mine: described(
      z.optional(
        z.pipe(
          z.enum(['true', 'false']),
          z.transform((value) => value === 'true'),
        ),
      ),
      { description: '`true`: only the incidents assigned to the caller, as PagerDuty\'s "Assigned to me": those an escalation step paged them for, or that they acknowledged' },
    ),
    acknowledged: z.optional(
      z.pipe(
        z.enum(['true', 'false']),
        z.transform((value) => value === 'true'),
      ),
    ),
    since: described(z.optional(InstantParam), { description: 'Incidents that started at or after this time' }),
    until: described(z.optional(InstantParam), { description: 'Incidents that started at or before this time' }),
    ...pageParams,
  })
  .check(
    z.refine((query) => !query.since || !query.until || query.since <= query.until, {
      path: ['until'],
      message: 'until must not be before since',
    }),
  );
export type ListIncidentsQuery = z.output<typeof listIncidentsQuery>;

/**
 * What an Events API v2 trigger carried beyond the incident's own fields (issue 42 §6), as PagerDuty
 * shows an alert's: kept with the incident it opened (its message item, which no index or list page
 * carries) and in its `created` entry. Bounded: see `ALERT_DETAILS_MAX_BYTES` in shared/alerts/events-v2.ts.
 */
export const AlertDetails = described(
  z.strictObject({
    source: z.string(),
    severity: described(z.enum(['critical', 'error', 'warning', 'info']), { description: "The event's own severity (the incident's is mapped from it)" }),
    component: z.nullable(z.string()),
    group: z.nullable(z.string()),
    class: z.nullable(z.string()),
    custom_details: described(z.unknown(), {
      description: "`payload.custom_details` as sent (any JSON; null when absent); when the whole would pass 16 KiB, its JSON text cut to fit (`truncated`)",
    }),
    links: z.array(z.strictObject({ href: z.string(), text: z.optional(z.string()) })),
    images: described(z.array(z.strictObject({ src: z.string(), href: z.optional(z.string()), alt: z.optional(z.string()) })), {
      description: 'HTTPS images only (others are dropped, as PagerDuty does)',
    }),
    client: z.nullable(z.string()),
    client_url: z.nullable(z.string()),
    truncated: described(z.boolean(), { description: 'True when something was cut to keep the details within 16 KiB of JSON' }),
  }),
  {
    id: 'AlertDetails',
    description: 'Incidents opened by an Events API v2 trigger only: the fields of the trigger that opened it beyond summary and severity',
    example: {
      source: 'checkout-api-7f9c',
      severity: 'critical',
      component: 'postgres',
      group: 'prod-eu',
      class: 'disk',
      custom_details: { free_space: '1%', mount: '/var/lib/postgresql' },
      links: [{ href: 'https://grafana.example.com/d/checkout', text: 'Dashboard' }],
      images: [],
      client: 'Grafana',
      client_url: 'https://grafana.example.com',
      truncated: false,
    },
  },
);
export type AlertDetails = z.output<typeof AlertDetails>;

const nullable = z.pipe(
  z.nullish(z.string()),
  z.transform((value) => value ?? null),
);

/** An incident as stored (item attributes beyond the keys). */
export const incidentItem = z.object({
  id: z.string(),
  monitor_id: z.string(),
  monitor_name: z.string(),
  owner_id: z.string(),
  title: z.string(),
  message: nullable,
  status: Status,
  severity: Severity,
  /**
   * Which of its people's notification rules a page follows (issue 43 §3): its monitor's fixed urgency, else
   * its severity's, taken when it opened. Absent (opened before urgencies): its severity's, as read.
   */
  urgency: z.optional(Urgency),
  acknowledged: z.boolean(),
  /** True for incidents opened by a monitor check; manual incidents never escalate. */
  automatic: z.boolean(),
  started_at: z.string(),
  resolved_at: nullable,
  /** When it was last resolved; a reopening clears `resolved_at` but never this. */
  last_resolved_at: z.optional(z.string()),
  escalation_policy_id: nullable,
  /**
   * The team whose members see the incident: its monitor's team, copied at creation and moved
   * by the rescoper when the monitor moves (`team_seq` says which move it reflects).
   */
  team_id: nullable,
  team_seq: z._default(z.number(), 0),
  created_at: z.string(),
  updated_at: z.string(),
  /**
   * Its first acknowledgement (issue 45 §4's reports): when, by whom (id and name as shown then); set once,
   * in the acknowledging transaction, and never cleared (an acknowledgement that times out or a reopening keeps it).
   */
  first_acknowledged_at: z.optional(z.string()),
  first_acknowledged_by: z.optional(z.string()),
  first_acknowledged_by_name: z.optional(z.string()),
  /**
   * Every page sent for it (issue 45 §4): one per recipient of each paged escalation step, appended in the
   * step's own transaction. `user_id`/`user_name`: a person (absent: a bare address); `time_zone`: the
   * schedule the person was on call in, when a schedule target found them.
   */
  pages: z.optional(z.array(z.object({ at: z.string(), user_id: z.optional(z.string()), user_name: z.optional(z.string()), time_zone: z.optional(z.string()) }))),
  /** Issue 45 §2: its monitor's acknowledgement timeout when it opened (automatic incidents only); absent: none. */
  ack_timeout_minutes: z.optional(z.number()),
  /** Issue 45: how many times its escalation restarted from step 1 (absent: never); its steps carry the run they belong to. */
  escalation_run: z.optional(z.number()),
  /**
   * Issue 45 §1: opened inside a maintenance window, its paging held until `held_until` (the window
   * `maintenance_window_id`, and those overlapping it); cleared when paging starts (or would have).
   */
  in_maintenance: z.optional(z.boolean()),
  maintenance_window_id: z.optional(z.string()),
  held_until: z.optional(z.string()),
  /** The team its held marker was written under (the monitor's team when it opened). */
  held_team_id: z.optional(z.string()),
  /** Opened by an alert: the triggers received for it (the first included), the last one's time, its dedup key. */
  alert_count: z.optional(z.number()),
  last_alert_at: z.optional(z.string()),
  dedup_key: z.optional(z.string()),
  /**
   * Opened by an Events API v2 trigger: what it carried beyond the incident's fields. Stored as JSON text
   * on the message item (any JSON: DynamoDB takes neither its every number nor its every depth).
   */
  alert_details: z.optional(
    z.pipe(
      z.union([z.string(), z.custom<AlertDetails>((value) => typeof value === 'object' && value !== null)]),
      z.transform((value): AlertDetails => (typeof value === 'string' ? (JSON.parse(value) as AlertDetails) : value)),
    ),
  ),
});
export type Incident = z.output<typeof incidentItem>;
/** One page an incident sent (`pages`). */
export type PageRecord = NonNullable<Incident['pages']>[number];

/** The urgency an incident opens with: its monitor's, when the monitor fixes one, else its severity's. */
export const urgencyAtOpen = (monitor: { urgency?: Urgency | null }, severity: Severity): Urgency => monitor.urgency ?? urgencyOfSeverity(severity);

/**
 * An incident's urgency: as it opened with, or (opened before urgencies) its severity's. Of the item, or
 * of the snapshot events carry (`IncidentSnapshot`, whose urgency is absent in events from before).
 */
export const urgencyOf = (incident: { severity: Severity; urgency?: Urgency | null | undefined }): Urgency => incident.urgency ?? urgencyOfSeverity(incident.severity);

/**
 * An incident a person opens on a monitor (POST /api/incidents) at `at`: INVESTIGATING, unacknowledged,
 * in the monitor's scope, with no escalation of its own.
 */
export const manualIncident = (
  monitor: { id: string; name: string; owner_id: string; team_id: string | null; team_seq: number; urgency?: Urgency | null },
  input: { title: string; message: string | null; severity: Incident['severity'] },
  at: string,
): Incident => ({
  id: randomUUID(),
  monitor_id: monitor.id,
  monitor_name: monitor.name,
  owner_id: monitor.owner_id,
  title: input.title,
  message: input.message,
  status: 'INVESTIGATING',
  severity: input.severity,
  urgency: urgencyAtOpen(monitor, input.severity),
  acknowledged: false,
  automatic: false,
  started_at: at,
  resolved_at: null,
  escalation_policy_id: null,
  team_id: monitor.team_id,
  team_seq: monitor.team_seq,
  created_at: at,
  updated_at: at,
});

export const acknowledgementItem = z.object({
  id: z.string(),
  incident_id: z.string(),
  user_id: z.string(),
  user_name: z.string(),
  user_email: z.string(),
  method: AcknowledgementMethod,
  acknowledged_at: z.string(),
});
export type Acknowledgement = z.output<typeof acknowledgementItem>;

/** An escalation step of an incident: its plan, when it is due, and what became of it. */
export const escalationStepItem = z.object({
  step_order: z.number(),
  delay_minutes: z.number(),
  emails: z._default(z.array(z.string()), []),
  /** Present when the policy's step had targets: resolved at the page. */
  targets: z.optional(z.array(z.any())),
  /** The policy's team (with `targets`): only its members are paged as people. */
  team_id: z.optional(z.nullable(z.string())),
  due_at: z.optional(z.string()),
  sent_at: z.optional(z.string()),
  cancelled_at: z.optional(z.string()),
  /** The escalation run the step belongs to (issue 45: a restart writes the steps again); absent: the first, 0. */
  run: z.optional(z.number()),
});
export type EscalationStep = z.output<typeof escalationStepItem>;

/** Create, update and acknowledge responses. */
export const IncidentBody = described(
  z.strictObject({
    id: Id,
    monitor_id: Id,
    title: described(z.string().check(z.minLength(1), z.maxLength(200)), { example: 'Checkout API is down' }),
    status: Status,
    severity: Severity,
    urgency: described(Urgency, {
      description:
        "Which notification rules of the people paged apply: the monitor's `urgency` when it fixes one, else `high` for CRITICAL and HIGH, `low` for MEDIUM and LOW; taken when the incident opened",
      example: 'high',
    }),
    acknowledged: z.boolean(),
    in_maintenance: described(z.boolean(), {
      description: 'Opened inside a maintenance window of its monitor (or its team) and still held by it: nothing pages and no subscriber is e-mailed until it ends',
      example: false,
    }),
    started_at: Timestamp,
    resolved_at: z.nullable(Timestamp),
    created_at: Timestamp,
  }),
  { id: 'Incident' },
);

export const IncidentListItem = described(
  z.extend(IncidentBody, {
    monitor_name: described(z.string(), { example: 'Checkout API' }),
    escalation_policy_id: z.nullable(Id),
    alert_count: described(z.optional(z.int().check(z.minimum(1))), {
      description: 'Incidents opened by an alert only: the triggers received for its dedup key while it was open, the first included',
    }),
    last_alert_at: described(z.optional(Timestamp), { description: 'Incidents opened by an alert only: when the last trigger arrived' }),
  }),
  { id: 'IncidentListItem' },
);

export const AcknowledgementBody = described(
  z.strictObject({
    id: Id,
    incident_id: Id,
    user_id: Id,
    user_name: z.string(),
    user_email: z.string(),
    method: AcknowledgementMethod,
    acknowledged_at: Timestamp,
  }),
  { id: 'Acknowledgement' },
);

export const IncidentDetail = described(
  z.extend(IncidentListItem, {
    acknowledgement: z.optional(AcknowledgementBody),
    alert_details: z.optional(AlertDetails),
    escalation_steps: z.optional(
      z.array(described(z.strictObject({ step_order: z.int().check(z.minimum(1)), delay_minutes: z.int().check(z.minimum(0)) }), { id: 'EscalationStep' })),
    ),
  }),
  { id: 'IncidentDetail' },
);

export const incidentView = (incident: Incident): z.output<typeof IncidentBody> => ({
  id: incident.id,
  monitor_id: incident.monitor_id,
  title: incident.title,
  status: incident.status,
  severity: incident.severity,
  urgency: urgencyOf(incident),
  acknowledged: incident.acknowledged,
  in_maintenance: incident.in_maintenance ?? false,
  started_at: incident.started_at,
  resolved_at: incident.resolved_at,
  created_at: incident.created_at,
});
export type IncidentView = ReturnType<typeof incidentView>;

/** List responses: adds `monitor_name` and `escalation_policy_id`. */
export const incidentListView = (incident: Incident): z.output<typeof IncidentListItem> => ({
  ...incidentView(incident),
  monitor_name: incident.monitor_name,
  escalation_policy_id: incident.escalation_policy_id,
  ...(incident.alert_count === undefined ? {} : { alert_count: incident.alert_count, last_alert_at: incident.last_alert_at }),
});
export type IncidentListView = ReturnType<typeof incidentListView>;

export const acknowledgementView = (acknowledgement: Acknowledgement): z.output<typeof AcknowledgementBody> => ({
  id: acknowledgement.id,
  incident_id: acknowledgement.incident_id,
  user_id: acknowledgement.user_id,
  user_name: acknowledgement.user_name,
  user_email: acknowledgement.user_email,
  method: acknowledgement.method,
  acknowledged_at: acknowledgement.acknowledged_at,
});

/** Get response: adds `acknowledgement` once acknowledged, `escalation_steps` when there is a policy. */
export const incidentDetailView = (
  incident: Incident,
  acknowledgement: Acknowledgement | undefined,
  steps: EscalationStep[],
): z.output<typeof IncidentDetail> => ({
  ...incidentListView(incident),
  ...(acknowledgement ? { acknowledgement: acknowledgementView(acknowledgement) } : {}),
  ...(incident.alert_details ? { alert_details: incident.alert_details } : {}),
  ...(incident.escalation_policy_id
    ? { escalation_steps: steps.map(({ step_order, delay_minutes }) => ({ step_order, delay_minutes })) }
    : {}),
});
export type IncidentDetailView = ReturnType<typeof incidentDetailView>;
