/**
 * Outgoing webhooks: what the API takes and answers, and the stored item.
 *
 * A webhook's scope is one monitor (`monitor_id`), every monitor of one team (`team_id`), or every
 * monitor its creator owns (neither). The scope is fixed at creation; a PUT changes the rest.
 */
import * as z from '../platform/zod.js';
import { described, Id, Text, Timestamp } from '../platform/api/common.js';
import { pageParams } from '../platform/api/pagination.js';
import { MAX_URL_LENGTH } from './target.js';
import { AcknowledgementMethod, IncidentDetail, Severity, Status } from '../incidents/model.js';
import { INCIDENT_EVENT_TYPES } from './payloads.js';

export const WEBHOOK_FORMATS = ['standard', 'slack'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
/**
 * `disabled_reason` of a webhook whose creator may no longer read what it sends (removed from the
 * monitor's team, or the monitor moved where they are not): a PUT by someone who may manage it
 * enables it again and makes them its creator (`owner_id`).
 */
export const CREATOR_LOST_ACCESS = 'creator_lost_access';

/**
 * What read forms show of a URL (it often carries a secret: a Slack or Mattermost incoming-webhook
 * URL is one): its scheme and host, and the last 4 characters of the rest, as a key's hint.
 */
export function urlHint(url: string): string {
  let origin: string;
  let rest: string;
  try {
    const parsed = new URL(url);
    origin = parsed.origin === 'null' ? `${parsed.protocol}//` : parsed.origin;
    rest = url.slice(url.indexOf(parsed.host) + parsed.host.length);
  } catch {
    return '…';
  }
  return rest.length > 8 ? `${origin}/…${rest.slice(-4)}` : `${origin}/…`;
}

const WebhookUrl = described(Text({ min: 1, max: MAX_URL_LENGTH }), {
  description: 'https URL of a public address (the local runtime also allows http to a loopback address with a port)',
  example: 'https://hooks.example.com/incidents',
});
const EventType = z.enum(INCIDENT_EVENT_TYPES);
const Events = described(
  z.array(EventType).check(
    z.minLength(1, 'At least one event type is required'),
    z.refine((events) => new Set(events).size === events.length, 'Event types must not repeat'),
  ),
  { example: ['incident.created', 'incident.resolved'] },
);
const Format = z.enum(WEBHOOK_FORMATS);
const Description = Text({ max: 500 });

export const listWebhooksQuery = z.object({ team_id: z.optional(z.uuid()), ...pageParams });
export type ListWebhooksQuery = z.output<typeof listWebhooksQuery>;

export const createWebhookInput = described(
  z.strictObject({
    url: WebhookUrl,
    events: Events,
    monitor_id: z.optional(z.uuid()),
    team_id: z.optional(z.uuid()),
    format: z._default(Format, 'standard'),
    description: z._default(z.nullable(Description), null),
  }),
  { id: 'CreateWebhook', example: { url: 'https://hooks.example.com/incidents', events: ['incident.created', 'incident.resolved'], format: 'standard' } },
);
export type CreateWebhookInput = z.output<typeof createWebhookInput>;

export const updateWebhookInput = z.prefault(
  described(
    z.partial(z.strictObject({ url: WebhookUrl, events: Events, format: Format, description: z.nullable(Description) })),
    { id: 'UpdateWebhook', example: { events: ['incident.created'] } },
  ),
  {},
);
export type UpdateWebhookInput = z.output<typeof updateWebhookInput>;

const previousSecret = z.object({ secret: z.string(), rotated_at: z.string() });

export const webhookItem = z.object({
  id: z.string(),
  owner_id: z.string(),
  monitor_id: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  team_id: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  url: z.string(),
  events: z.array(EventType),
  format: Format,
  description: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  status: z.enum(WEBHOOK_STATUSES),
  disabled_reason: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  secret: z.string(),
  previous_secret: z.pipe(z.nullish(previousSecret), z.transform((value) => value ?? null)),
  /** A monitor's webhook: its monitor's owner (which never changes), who may always read what it sends. */
  monitor_owner_id: z.optional(z.string()),
  /** A monitor's webhook while its monitor is in a team: that team (kept with the monitor's moves by the rescoper). */
  monitor_team_id: z.optional(z.string()),
  /** When the current streak of failed attempts began (null: the last attempt succeeded, or none was made). */
  failing_since: z.pipe(z.nullish(z.string()), z.transform((value) => value ?? null)),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Webhook = z.output<typeof webhookItem>;

const webhookExample = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  url: 'https://hooks.example.com/…ents',
  events: ['incident.created', 'incident.resolved'],
  format: 'standard',
  description: 'Status page',
  monitor_id: null,
  team_id: null,
  owner_id: '3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c',
  status: 'enabled',
  disabled_reason: null,
  created_at: '2026-11-21T10:15:30.000Z',
  updated_at: '2026-11-21T10:15:30.000Z',
};

const webhookFields = {
  id: Id,
  url: described(z.string(), {
    description: 'The URL as given, in the creating response only; elsewhere a hint of it: scheme and host, and the last 4 characters of the rest (`https://hooks.slack.com/…Xq9z`), since a URL often carries a secret',
  }),
  events: z.array(EventType),
  format: Format,
  description: z.nullable(z.string()),
  monitor_id: described(z.nullable(Id), { description: "The monitor whose incidents it receives; null for a team's or the owner's webhook" }),
  team_id: described(z.nullable(Id), { description: 'The team whose monitors it covers; null for a monitor or owner webhook' }),
  owner_id: described(Id, { description: 'Who created it, or last enabled it again after its creator lost access (e-mailed when it is disabled)' }),
  status: z.enum(WEBHOOK_STATUSES),
  disabled_reason: described(z.nullable(z.string()), {
    description:
      'Why it was disabled: `creator_lost_access` (its creator may no longer read the incidents it sends), or the delivery failure; a PUT by someone who may manage it enables it again (after `creator_lost_access`, making them its creator)',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const WebhookBody = described(z.strictObject(webhookFields), { id: 'Webhook', example: webhookExample });

export const CreatedWebhookBody = described(
  z.strictObject({
    ...webhookFields,
    secret: described(z.string(), { description: 'The signing secret (`whsec_` + base64 of 32 bytes); shown only here', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
  }),
  { id: 'CreatedWebhook', example: { ...webhookExample, url: 'https://hooks.example.com/incidents', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } },
);

export const SecretBody = described(z.strictObject({ secret: z.string() }), {
  id: 'WebhookSecret',
  description: 'The new signing secret; the previous one still signs for 24 hours',
});

/** A webhook as read forms show it (its URL as a hint); the creating response shows the URL itself. */
export const webhookView = (webhook: Webhook): z.output<typeof WebhookBody> => ({
  id: webhook.id,
  url: urlHint(webhook.url),
  events: webhook.events,
  format: webhook.format,
  description: webhook.description,
  monitor_id: webhook.monitor_id,
  team_id: webhook.team_id,
  owner_id: webhook.owner_id,
  status: webhook.status,
  disabled_reason: webhook.disabled_reason,
  created_at: webhook.created_at,
  updated_at: webhook.updated_at,
});
export type WebhookView = ReturnType<typeof webhookView>;

// ---------------------------------------------------------------------------------------------
// Deliveries: one message to the webhook and its attempts

export const listDeliveriesQuery = z.object(pageParams);
export type ListDeliveriesQuery = z.output<typeof listDeliveriesQuery>;

/** `/api/webhooks/:id/deliveries/:deliveryId/...`: the delivery id is the message's `webhook-id`. */
export const deliveryParams = z.strictObject({ id: z.uuid(), deliveryId: z.string().check(z.regex(/^msg_[0-9a-f-]{36}$/, 'Must be a delivery id (msg_…)')) });

const AttemptBody = described(
  z.strictObject({
    at: Timestamp,
    status: described(z.nullable(z.int()), { description: "The receiver's status code; null when none arrived (timeout, network error, refused target)" }),
    duration_ms: z.number(),
    error: z.nullable(z.string()),
    response: described(z.string(), { description: 'The first 1 KB of the response body' }),
  }),
  { id: 'WebhookAttempt' },
);

export const DeliveryBody = described(
  z.strictObject({
    id: described(z.string(), { description: 'The message id, sent as `webhook-id` on every attempt', example: 'msg_5f0c2b1d-4c7e-5a6f-9d2e-3f4a5b6c7d8e' }),
    event_type: z.string(),
    incident_id: z.nullable(Id),
    state: described(z.enum(['pending', 'succeeded', 'failed']), { description: '`pending` while it waits for its turn or its next retry' }),
    next_attempt_at: described(z.nullable(Timestamp), { description: 'When the next retry is due, while one is scheduled' }),
    created_at: Timestamp,
    attempts: z.array(AttemptBody),
  }),
  {
    id: 'WebhookDelivery',
    example: {
      id: 'msg_5f0c2b1d-4c7e-5a6f-9d2e-3f4a5b6c7d8e',
      event_type: 'incident.created',
      incident_id: '9b2d7c1e-3f4a-4b5c-8d6e-7f8091a2b3c4',
      state: 'pending',
      next_attempt_at: '2026-11-21T10:20:35.000Z',
      created_at: '2026-11-21T10:15:30.000Z',
      attempts: [{ at: '2026-11-21T10:15:32.000Z', status: 503, duration_ms: 84, error: null, response: 'Service Unavailable' }],
    },
  },
);
export type DeliveryView = z.output<typeof DeliveryBody>;

// ---------------------------------------------------------------------------------------------
// What a webhook receives (`standard` format): documented in OpenAPI's `webhooks` and docs/events.md

const noteExample = { id: '0f1e2d3c-4b5a-4969-8778-a6b5c4d3e2f1', message: 'Rolled back the deploy', user_id: '3f0e5a8c-2b1d-4c7e-9a6f-1d2e3f4a5b6c', user_name: 'Alice', created_at: '2026-11-21T10:20:00.000Z' };
const Note = described(z.strictObject({ id: Id, message: z.string(), user_id: Id, user_name: z.string(), created_at: Timestamp }), {
  id: 'WebhookNote',
  example: noteExample,
});
const change = <T extends z.ZodMiniType>(schema: T) => z.optional(z.strictObject({ from: schema, to: schema }));

function message<T extends string>(type: T, data: Record<string, z.ZodMiniType>, description: string, example: Record<string, unknown>) {
  const id = `Webhook${type.replace(/(^|[._])(\w)/g, (_, __: string, letter: string) => letter.toUpperCase())}`;
  return described(z.strictObject({ type: z.literal(type), timestamp: Timestamp, data: z.strictObject(data) }), {
    id,
    description,
    example: { type, timestamp: '2026-11-21T10:20:00.000Z', data: example },
  });
}

/**
 * The bodies of the `standard` format, by event type; the `slack` format posts `{text, blocks}`
 * instead. (A function: only the OpenAPI generator needs them, and no bundle should build them. It
 * passes the incident the examples carry, from infra/openapi/examples.ts, which no bundle imports.)
 */
export const webhookMessages = (incidentDetailExample: Record<string, unknown>) => [
  message('incident.created', { incident: IncidentDetail }, 'An incident was opened (by hand, by an alert, or by a monitor check)', { incident: incidentDetailExample }),
  message(
    'incident.updated',
    { incident: IncidentDetail, changes: z.strictObject({ status: change(Status), severity: change(Severity), title: change(z.string()) }), note: z.optional(Note) },
    'Status (other than to RESOLVED), severity or title changed: each change before and after; `note` when a timeline note made it',
    { incident: incidentDetailExample, changes: { severity: { from: 'HIGH', to: 'CRITICAL' } } },
  ),
  message(
    'incident.acknowledged',
    {
      incident: IncidentDetail,
      acknowledgement: z.strictObject({ user_id: Id, user_name: z.string(), method: AcknowledgementMethod, acknowledged_at: Timestamp }),
    },
    'Someone acknowledged the incident',
    { incident: incidentDetailExample, acknowledgement: { user_id: noteExample.user_id, user_name: 'Alice', method: 'api', acknowledged_at: '2026-11-21T10:18:00.000Z' } },
  ),
  message('incident.resolved', { incident: IncidentDetail, previous_status: Status, note: z.optional(Note) }, 'The incident was resolved', {
    incident: incidentDetailExample,
    previous_status: 'MONITORING',
  }),
  message('incident.note_added', { incident: IncidentDetail, note: Note }, 'A note was posted on the incident\'s timeline without changing its status', {
    incident: incidentDetailExample,
    note: noteExample,
  }),
  message(
    'incident.escalated',
    { incident: IncidentDetail, step: z.strictObject({ step_order: z.int(), delay_minutes: z.int(), emails: z.array(z.string()) }) },
    'An escalation step paged: which, and whom',
    { incident: incidentDetailExample, step: { step_order: 1, delay_minutes: 0, emails: ['oncall@example.com'] } },
  ),
  message('ping', { webhook_id: Id, message: z.string() }, 'Sent by `POST /api/webhooks/:id/test`', {
    webhook_id: webhookExample.id,
    message: 'A test message from the incident service',
  }),
] as const;
