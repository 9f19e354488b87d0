/**
 * The events the service publishes on its EventBridge bus (source `incident-service`). The
 * `detail-type` names the event; `detail` is versioned (`version: 1`) and validated with these
 * schemas by producers and consumers alike. Documented in docs/events.md.
 */
import * as z from '../zod.js';
import { AcknowledgementMethod, AssignableRole, Severity, Status, Urgency } from '../vocabulary.js';

export const incidentSnapshot = z.object({
  id: z.string(),
  monitor_id: z.string(),
  monitor_name: z.string(),
  owner_id: z.string(),
  title: z.string(),
  message: z.nullable(z.string()),
  status: Status,
  severity: Severity,
  /** Which notification rules a page follows (issue 43 §3). Absent in events written before it: the severity's. */
  urgency: z.optional(Urgency),
  automatic: z.boolean(),
  acknowledged: z.boolean(),
  started_at: z.string(),
  resolved_at: z.nullable(z.string()),
  escalation_policy_id: z.nullable(z.string()),
});
export type IncidentSnapshot = z.output<typeof incidentSnapshot>;

const base = { version: z.literal(1), event_id: z.string(), occurred_at: z.string() };

export const escalationStepPlan = z.object({
  step_order: z.int(),
  delay_minutes: z.int(),
  due_at: z.string(),
});

/** Whom a page is for (issue 43): a person (paged by their notification rules) or a bare e-mail address. */
export const pageRecipient = z.union([
  z.object({ kind: z.literal('person'), user_id: z.string(), name: z.string(), email: z.string(), schedule_id: z.optional(z.string()) }),
  z.object({ kind: z.literal('address'), channel: z.literal('email'), address: z.string() }),
]);
export type PageRecipient = z.output<typeof pageRecipient>;

/** The version of each event's detail written today (1 unless said here). */
export const eventVersions: Partial<Record<string, number>> = { 'incident.escalation_step': 2 };

/** A note posted on the incident's timeline (what status pages send with an update). */
export const timelineNote = z.object({ id: z.string(), message: z.string(), user_id: z.string(), user_name: z.string(), created_at: z.string() });

/** One rule of one person for one paged step: what a delayed rule's schedule invokes person-notification with (at `at`). */
export const personNotification = z.object({
  event_id: z.string(),
  incident_id: z.string(),
  step_order: z.int(),
  /** When the step was paged. */
  paged_at: z.string(),
  user_id: z.string(),
  user_name: z.string(),
  email: z.string(),
  rule_id: z.string(),
});

export const eventDetails = {
  'incident.created': z.object({
    ...base,
    incident: incidentSnapshot,
    /** Present for automatic incidents with an escalation policy: when each step is due. */
    escalation: z.nullable(z.object({ policy_id: z.string(), steps: z.array(escalationStepPlan) })),
    /**
     * Issue 45 §1: opened inside a maintenance window: nothing pages, no subscriber is e-mailed; the
     * escalation scheduler schedules its release at `until` instead of the steps.
     */
    maintenance: z.optional(z.object({ window_id: z.string(), until: z.string() })),
  }),
  /**
   * Issue 45: an open automatic incident's escalation starts again from step 1 (its acknowledgement timed
   * out), run `run`: the escalation scheduler schedules (or pages at once) each step of the run.
   */
  'incident.escalation_restarted': z.object({
    ...base,
    incident: incidentSnapshot,
    reason: z.enum(['acknowledgement_timed_out', 'maintenance_ended']),
    run: z.int(),
    escalation: z.object({ policy_id: z.nullable(z.string()), steps: z.array(escalationStepPlan) }),
  }),
  /**
   * Issue 45 §1: a maintenance window was ended early (deleted): the escalation scheduler releases the
   * incidents it held (paging starts for those still open and unacknowledged, unless another window covers them).
   */
  'maintenance_window.ended': z.object({
    ...base,
    window: z.object({ id: z.string(), monitor_id: z.nullable(z.string()), team_id: z.nullable(z.string()) }),
    ended_at: z.string(),
  }),
  /** `note`: the timeline note that changed the status, when a note did. */
  'incident.status_changed': z.object({ ...base, incident: incidentSnapshot, previous_status: Status, note: z.optional(timelineNote) }),
  'incident.resolved': z.object({ ...base, incident: incidentSnapshot, previous_status: Status, note: z.optional(timelineNote) }),
  /**
   * Status (other than to RESOLVED), severity or title changed: each changed field before and after
   * (outgoing webhooks' `incident.updated`); `note`: the note that made the change, when one did.
   */
  'incident.updated': z.object({
    ...base,
    incident: incidentSnapshot,
    changes: z.object({
      status: z.optional(z.object({ from: Status, to: Status })),
      severity: z.optional(z.object({ from: Severity, to: Severity })),
      title: z.optional(z.object({ from: z.string(), to: z.string() })),
    }),
    note: z.optional(timelineNote),
  }),
  /** A note that did not change the status: subscribers get an "Incident update" with its message. */
  'incident.note_added': z.object({ ...base, incident: incidentSnapshot, note: timelineNote }),
  'incident.acknowledged': z.object({
    ...base,
    incident: incidentSnapshot,
    acknowledgement: z.object({ user_id: z.string(), user_name: z.string(), method: AcknowledgementMethod, acknowledged_at: z.string() }),
  }),
  'incident.escalation_step': z.object({
    ...base,
    /** 2 since issue 43 (`recipients`); a version-1 event (written before, redelivered) is read as its `step.emails` and `people` say. */
    version: z.union([z.literal(1), z.literal(2)]),
    incident: incidentSnapshot,
    step: z.object({ step_order: z.int(), delay_minutes: z.int(), emails: z.array(z.string()) }),
    /**
     * Of `step.emails`, those reached as people (a `user` target, or on call in a `schedule` target):
     * account holders, paged as they are. Every other address (an `email` target, whoever's it is) is
     * an outside address (issue 41). Absent (an event written before the field): none. Kept in
     * version 2 for version-1 consumers: the people's account addresses.
     */
    people: z.optional(z.array(z.string())),
    /**
     * Version 2 (issue 43): whom the step pages. A person is paged by their notification rules (their
     * `email` is their account's address, as in `people`); a bare address by e-mail, as an outside
     * address. Absent in version 1: `step.emails` and `people` say it.
     */
    recipients: z.optional(z.array(pageRecipient)),
  }),
  /** A monitor moved between scopes (a team, or its owner alone): its webhooks' listing and its incidents follow. */
  'monitor.team_changed': z.object({
    ...base,
    monitor_id: z.string(),
    from_team_id: z.nullable(z.string()),
    to_team_id: z.nullable(z.string()),
    /** The monitor's `team_seq` after the move. */
    team_seq: z.int(),
    /** How many incidents the monitor had: the rescoper waits for them all, even if the monitor is deleted meanwhile. */
    incident_count: z.optional(z.int()),
  }),
  /**
   * A page's people have notification rules due later (issue 43): written by person-notification when it
   * sends their rules due at once; the escalation scheduler makes one one-time schedule per rule,
   * invoking person-notification at `at` (named by the page's event and the rule: a repeat is one schedule).
   */
  'person.notifications_delayed': z.object({
    ...base,
    notifications: z.array(z.extend(personNotification, { at: z.string() })),
  }),
  /**
   * Pages to a phone contact method are held past its throttle (issue 43 §4): written by person-notification
   * with the first page held (and again when a flush finds more held than it may send); the escalation
   * scheduler makes one one-time schedule at `flush_at` (named by the method and the instant: a repeat is
   * one schedule), invoking person-notification, which sends what is held as one combined message.
   */
  'person.messages_held': z.object({
    ...base,
    contact_method_id: z.string(),
    user_id: z.string(),
    email: z.string(),
    flush_at: z.string(),
  }),
  /** A webhook was disabled (a 410, or 3 days of failed attempts): the notifier e-mails its owner's own account address. */
  'webhook.disabled': z.object({
    ...base,
    webhook: z.object({ id: z.string(), url: z.string(), description: z.nullable(z.string()), owner_id: z.string() }),
    reason: z.string(),
  }),
  /** An address was subscribed to a monitor: the notifier e-mails it the one confirmation link (double opt-in). */
  'subscriber.confirmation_requested': z.object({
    ...base,
    subscription: z.object({ id: z.string(), monitor_id: z.string(), monitor_name: z.string(), email: z.string() }),
  }),
  /**
   * A contact method was added, or asked for a new code (issue 43 §2): the notifier sends the code through
   * the method itself ("Your verification code is 123456"; a call reads it), once. The code is in the event
   * (it lives 15 minutes; the table keeps only its SHA-256).
   */
  'contact_method.verification_requested': z.object({
    ...base,
    user_id: z.string(),
    contact_method: z.object({ id: z.string(), type: z.enum(['email', 'sms', 'voice']), address: z.string() }),
    code: z.string(),
  }),
  'team.invite_created': z.object({
    ...base,
    invite: z.object({
      id: z.string(),
      team_id: z.string(),
      team_name: z.string(),
      email: z.string(),
      role: AssignableRole,
      token: z.string(),
      expires_at: z.string(),
    }),
    invited_by: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  }),
} as const;

export type EventType = keyof typeof eventDetails;
export type EventDetail<T extends EventType> = z.output<(typeof eventDetails)[T]>;
export const EVENT_TYPES = Object.keys(eventDetails) as EventType[];

/** What producers pass: the detail without the envelope fields the outbox adds. */
export type EventPayload<T extends EventType> = Omit<EventDetail<T>, 'version' | 'event_id' | 'occurred_at'>;

/** The item type of outbox records, and their shape as the stream delivers them. */
export const OUTBOX_ITEM_TYPE = 'outbox';

export const outboxItem = z.object({
  type: z.literal(OUTBOX_ITEM_TYPE),
  event_type: z.enum(EVENT_TYPES as [EventType, ...EventType[]]),
  detail: z.record(z.string(), z.unknown()),
});
export type OutboxItem = z.output<typeof outboxItem>;
