/**
 * An incident's timeline: the notes people post and an entry the service writes for every event
 * in the incident's life. Every entry is written in the same transaction as the change it records,
 * so the timeline is never missing what happened, and never shows what did not.
 */
import * as z from '../platform/zod.js';
import { described, Id, Text, Timestamp } from '../platform/api/common.js';
import { pageParams } from '../platform/api/pagination.js';
import { tableName } from '../platform/db/client.js';
import { itemAbsent, keys } from '../platform/db/keys.js';
import type { PagedRecipient, UnstaffedSchedule } from '../escalation/model.js';
import type { TransactItem } from '../platform/db/ops.js';
import { outboxPut } from '../platform/events/outbox.js';
import { incidentSnapshot } from './snapshots.js';
import { timeOrderedUuid } from '../platform/ids.js';
import { AcknowledgementMethod, AlertDetails, Severity, Status, type Acknowledgement, type Incident } from './model.js';

export const TIMELINE_KINDS = ['created', 'note', 'updated', 'status_changed', 'acknowledged', 'escalation_paged', 'page_withheld', 'notification', 'resolved', 'acknowledgement_timed_out', 'escalation_restarted', 'paging_held'] as const;
export const TimelineKind = z.enum(TIMELINE_KINDS);
export type TimelineKind = z.output<typeof TimelineKind>;

/** `POST /api/incidents/:id/updates`: a note, optionally changing the status as `PUT` does. */
export const postUpdateInput = described(z.strictObject({ message: Text({ min: 1, max: 5_000, multiline: true }), status: z.optional(Status) }), {
  id: 'PostIncidentUpdate',
  example: { message: 'A fix is rolling out; error rates are falling.', status: 'MONITORING' },
});
export type PostUpdateInput = z.output<typeof postUpdateInput>;

export const listUpdatesQuery = z.object(pageParams);
export type ListUpdatesQuery = z.output<typeof listUpdatesQuery>;

const documented = <T extends z.ZodMiniType>(schema: T, description: string) => described(schema, { description });

/** Facts of an entry beyond its kind; which ones depends on the kind (documented per field). */
export const TimelineDetails = described(
  z.strictObject({
    automatic: documented(z.optional(z.boolean()), '`created`: opened by a monitor check or an alert (true), or by a person'),
    title: documented(z.optional(z.string()), '`created`: the title the incident was opened with'),
    severity: documented(z.optional(Severity), '`created`: the severity it was opened with'),
    previous_status: documented(z.optional(Status), '`status_changed` and `resolved`: the status before'),
    changes: documented(
      z.optional(z.record(z.string(), z.strictObject({ from: z.string(), to: z.string() }))),
      '`updated`: each changed field (`title`, `severity`) with its old and new value',
    ),
    method: documented(z.optional(AcknowledgementMethod), '`acknowledged`: how (web, api, slack, email, sms)'),
    user_email: documented(z.optional(z.string()), '`acknowledged`: the e-mail address of who acknowledged'),
    step_order: documented(z.optional(z.int()), '`escalation_paged`, `page_withheld`: the escalation step; `acknowledged` by link: the step whose e-mail it was'),
    recipients: documented(z.optional(z.array(z.string())), '`escalation_paged`: who was paged; `page_withheld`: the address not paged'),
    paged: documented(
      z.optional(
        z.array(
          z.strictObject({ email: z.string(), user_id: z.optional(z.string()), user_name: z.optional(z.string()), schedule_id: z.optional(z.string()) }),
        ),
      ),
      '`escalation_paged` of a step with targets: each person paged, and the schedule they were on call in (for a schedule target)',
    ),
    reason: documented(
      z.optional(z.enum(['stopped', 'daily_limit', 'acknowledgement_timed_out', 'maintenance_ended'])),
      '`page_withheld`: why the address in `recipients` was not paged: it asked the sending account to stop paging it (`stopped`), or that account reached its daily limit of outside addresses or pages to them (`daily_limit`); `escalation_restarted`: why paging starts again from step 1 (`acknowledgement_timed_out`, `maintenance_ended`)',
    ),
    nobody_on_call: documented(
      z.optional(z.array(z.strictObject({ schedule_id: z.string(), schedule_name: z.nullable(z.string()) }))),
      '`escalation_paged`: the schedules the step targets in which nobody was on call at the page (null name: the schedule is gone)',
    ),
    channel: documented(z.optional(z.enum(['email', 'sms', 'voice'])), '`notification`: its channel'),
    address: documented(z.optional(z.string()), '`notification`: its address, masked'),
    user_id: documented(z.optional(z.string()), '`notification`: its person'),
    user_name: z.optional(z.string()),
    status: documented(z.optional(z.enum(['sent', 'delivered', 'failed'])), '`notification`: sent, then delivered or failed by its receipt'),
    message_id: z.optional(z.string()),
    by: documented(
      z.optional(z.enum(['user', 'recovery', 'integration'])),
      '`resolved`: by a person, by the monitor recovering, or by an alert\'s resolve event (`integration_id`, `integration_name` say which)',
    ),
    integration_id: documented(z.optional(z.uuid()), '`created`, `acknowledged`, `resolved` by an alert: the integration whose key sent it'),
    integration_name: documented(z.optional(z.string()), 'likewise: its name'),
    dedup_key: documented(z.optional(z.string()), '`created` by an alert: the alert\'s dedup key'),
    summary: documented(z.optional(z.string()), '`created` by an alert: its full summary, of which the title may be cut'),
    acknowledgement_id: documented(z.optional(z.string()), '`acknowledgement_timed_out`: the acknowledgement that timed out'),
    acknowledged_at: documented(z.optional(z.string()), '`acknowledgement_timed_out`: when it was made'),
    ack_timeout_minutes: documented(z.optional(z.int()), '`acknowledgement_timed_out`: the timeout it had'),
    maintenance_window_id: documented(z.optional(z.string()), '`paging_held`: the maintenance window that holds the pages'),
    until: documented(z.optional(z.string()), '`paging_held`: when maintenance ends (paging starts then if it is still open and unacknowledged)'),
    run: documented(z.optional(z.int()), '`escalation_restarted`: the escalation run that starts (the first is 0)'),
    alert_details: documented(z.optional(AlertDetails), '`created` by an Events API v2 trigger: what it carried beyond summary and severity, as on the incident'),
  }),
  { id: 'TimelineDetails' },
);
export type TimelineDetails = z.output<typeof TimelineDetails>;

/** An entry as the API shows it. */
export const TimelineEntryBody = described(
  z.strictObject({
    id: Id,
    incident_id: Id,
    kind: TimelineKind,
    status: documented(Status, "The incident's status after this entry"),
    message: documented(z.nullable(z.string()), "A note's text; a `created` entry's creation message; otherwise null"),
    user_id: documented(z.nullable(z.string()), 'Who did it; null for what the service did by itself'),
    user_name: z.nullable(z.string()),
    created_at: Timestamp,
    details: z.nullable(TimelineDetails),
  }),
  { id: 'IncidentUpdate' },
);
export type TimelineEntry = z.output<typeof TimelineEntryBody>;

/** An entry as stored (the view's fields). */
export const timelineEntryItem = z.object({
  id: z.string(),
  incident_id: z.string(),
  kind: TimelineKind,
  status: Status,
  message: z.nullable(z.string()),
  user_id: z.nullable(z.string()),
  user_name: z.nullable(z.string()),
  created_at: z.string(),
  details: z._default(z.nullable(z.record(z.string(), z.unknown())), null),
});

export const timelineEntryView = (item: z.output<typeof timelineEntryItem>): TimelineEntry => ({
  id: item.id,
  incident_id: item.incident_id,
  kind: item.kind,
  status: item.status,
  message: item.message,
  user_id: item.user_id,
  user_name: item.user_name,
  created_at: item.created_at,
  // An alert's details are stored as JSON text (`entryRecord`).
  details:
    typeof item.details?.alert_details === 'string'
      ? ({ ...item.details, alert_details: JSON.parse(item.details.alert_details) } as TimelineDetails)
      : (item.details as TimelineDetails | null),
});

/** Who did something: a person (id and name), or nobody for what the service did itself. */
export type Actor = { id: string; name: string } | null;

export interface EntrySpec {
  kind: TimelineKind;
  /** The incident after the change (its status is the entry's). */
  incident: Pick<Incident, 'id' | 'status'>;
  at: string;
  actor: Actor;
  message?: string | null;
  details?: TimelineDetails | null;
  /** The entry's place among the entries one write makes at once. */
  ordinal?: number;
}

/** The entry `spec` describes, with a fresh time-ordered id. */
export function timelineEntry(spec: EntrySpec): TimelineEntry {
  return {
    id: timeOrderedUuid(Date.parse(spec.at)),
    incident_id: spec.incident.id,
    kind: spec.kind,
    status: spec.incident.status,
    message: spec.message ?? null,
    user_id: spec.actor?.id ?? null,
    user_name: spec.actor?.name ?? null,
    created_at: spec.at,
    details: spec.details ?? null,
  };
}

/** An entry's item as the table holds it (`entryPut` writes it; test fixtures seed it the same way). */
export const entryRecord = (entry: TimelineEntry, ordinal = 0) => ({
  ...keys.incidentUpdate(entry.incident_id, entry.created_at, ordinal, entry.id),
  type: 'incident_update',
  ...entry,
  // An alert's details as JSON text: any JSON, which a DynamoDB map cannot always hold (its numbers, its depth).
  ...(entry.details?.alert_details ? { details: { ...entry.details, alert_details: JSON.stringify(entry.details.alert_details) } } : {}),
});

/** The transaction item that writes an entry (never over another). */
export const entryPut = (entry: TimelineEntry, ordinal = 0): TransactItem => ({
  Put: { TableName: tableName(), Item: entryRecord(entry, ordinal), ConditionExpression: itemAbsent },
});

/** The transaction item that writes the entry `spec` describes. */
export const timelinePut = (spec: EntrySpec): TransactItem => entryPut(timelineEntry(spec), spec.ordinal);

/** The entry an incident's creation writes: by its creator, or by a monitor check (with the check's message). */
export const createdEntry = (incident: Incident, actor: Actor): EntrySpec => ({
  kind: 'created',
  incident,
  at: incident.created_at,
  actor,
  message: incident.message,
  details: { automatic: incident.automatic, title: incident.title, severity: incident.severity },
});

/** The entries a change from `current` to `next` writes: what it changed besides the status, then the status. */
export function changeEntries(current: Incident, next: Incident, actor: Actor, at: string, first = 0): EntrySpec[] {
  const specs: EntrySpec[] = [];
  const changes: Record<string, { from: string; to: string }> = {};
  if (next.title !== current.title) changes.title = { from: current.title, to: next.title };
  if (next.severity !== current.severity) changes.severity = { from: current.severity, to: next.severity };
  if (Object.keys(changes).length > 0) specs.push({ kind: 'updated', incident: next, at, actor, details: { changes } });
  if (next.status !== current.status) {
    const resolved = next.status === 'RESOLVED';
    specs.push({
      kind: resolved ? 'resolved' : 'status_changed',
      incident: next,
      at,
      actor,
      details: { previous_status: current.status, ...(resolved ? { by: actor ? 'user' : 'recovery' } : {}) },
    });
  }
  return specs.map((spec, index) => ({ ...spec, ordinal: first + index }));
}

/** The entry of one paged escalation step. */
export const pagedEntry = (
  incident: Incident,
  step: { step_order: number; emails: string[] },
  at: string,
  ordinal = 0,
  resolved?: { recipients: PagedRecipient[]; nobodyOnCall: UnstaffedSchedule[] },
): EntrySpec => ({
  kind: 'escalation_paged',
  incident,
  at,
  actor: null,
  details: {
    step_order: step.step_order,
    recipients: step.emails,
    ...(resolved
      ? {
          paged: resolved.recipients.map((recipient) =>
            recipient.kind === 'person'
              ? { email: recipient.email, user_id: recipient.user_id, user_name: recipient.name, ...(recipient.schedule_id ? { schedule_id: recipient.schedule_id } : {}) }
              : { email: recipient.address },
          ),
        }
      : {}),
    ...(resolved?.nobodyOnCall.length ? { nobody_on_call: resolved.nobodyOnCall } : {}),
  },
  ordinal,
});

/** What a `notification` entry says (issue 43 §4): one message a page sent to a person. */
export interface NotificationFacts {
  channel: 'email' | 'sms' | 'voice';
  /** Masked. */
  address: string;
  user_id: string;
  user_name: string;
  status: 'sent' | 'failed';
  step_order: number;
  message_id?: string;
}

/** The entry of one message a page sent (the service sent it: no actor). */
export const notificationEntry = (incident: Pick<Incident, 'id' | 'status'>, facts: NotificationFacts, at: string): EntrySpec => ({
  kind: 'notification',
  incident,
  at,
  actor: null,
  details: {
    channel: facts.channel,
    address: facts.address,
    user_id: facts.user_id,
    user_name: facts.user_name,
    status: facts.status,
    step_order: facts.step_order,
    ...(facts.message_id ? { message_id: facts.message_id } : {}),
  },
});

/** The entry of an acknowledgement: who, how. */
export const acknowledgedEntry = (incident: Incident, acknowledgement: Acknowledgement): EntrySpec => ({
  kind: 'acknowledged',
  incident,
  at: acknowledgement.acknowledged_at,
  actor: { id: acknowledgement.user_id, name: acknowledgement.user_name },
  details: { method: acknowledgement.method, user_email: acknowledgement.user_email },
});

/**
 * What an acknowledgement writes beside it: the `incident.acknowledged` event and the timeline
 * entry (`details` adds to the entry's, e.g. the step of an acknowledge link).
 */
export function acknowledgementRecords(incident: Incident, acknowledgement: Acknowledgement, details: TimelineDetails = {}): TransactItem[] {
  const acknowledged = { ...incident, acknowledged: true };
  const { user_id, user_name, method, acknowledged_at } = acknowledgement;
  const entry = acknowledgedEntry(acknowledged, acknowledgement);
  return [
    outboxPut('incident.acknowledged', { incident: incidentSnapshot(acknowledged), acknowledgement: { user_id, user_name, method, acknowledged_at } }, acknowledged_at),
    timelinePut({ ...entry, details: { ...entry.details, ...details } }),
  ];
}
