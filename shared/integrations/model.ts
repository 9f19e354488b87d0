/**
 * Integrations of a monitor: named keys monitoring tools send alerts with (`routing_key` of the
 * Events API v2, the `Authorization` of an Alertmanager or Grafana webhook). The key is shown once,
 * when created; the table keeps its SHA-256 (the lookup item's key) and its last 4 characters.
 */
import * as z from '../platform/zod.js';
import { described, Id, Text, Timestamp } from '../platform/api/common.js';

export const createIntegrationInput = described(z.strictObject({ name: Text({ min: 1, max: 100, name: true }) }), {
  id: 'CreateIntegration',
  example: { name: 'Prometheus Alertmanager' },
});
export type CreateIntegrationInput = z.output<typeof createIntegrationInput>;

export const integrationParams = z.strictObject({ id: z.uuid(), integrationId: z.uuid() });

/** An integration as stored in its monitor's item collection. */
export const integrationItem = z.object({
  id: z.string(),
  monitor_id: z.string(),
  name: z.string(),
  key_hash: z.string(),
  key_hint: z.string(),
  created_at: z.string(),
  created_by: z.string(),
  /** Whom an acknowledgement by this integration names as accountable (its creator's e-mail). */
  created_by_email: z._default(z.string(), ''),
});
export type Integration = z.output<typeof integrationItem>;

/** The lookup item of a key (`INTEGRATIONKEY#<sha256>`): the integration it belongs to, its rate window, its last event. */
export const integrationKeyItem = z.object({
  monitor_id: z.string(),
  integration_id: z.string(),
  integration_name: z.string(),
  created_by_email: z._default(z.string(), ''),
  last_event_at: z.optional(z.string()),
});
export type IntegrationKey = z.output<typeof integrationKeyItem>;

const fields = {
  id: Id,
  monitor_id: Id,
  name: described(z.string(), { example: 'Prometheus Alertmanager' }),
  key_hint: described(z.string(), { description: 'The last 4 characters of the key, to tell keys apart', example: 'k2m9' }),
  created_at: Timestamp,
  created_by: described(Id, { description: 'The user who created it' }),
  last_event_at: described(z.nullable(Timestamp), { description: 'When its key last sent an event that was taken; null if never' }),
  created_by_left: described(z.boolean(), {
    description:
      "True once its creator may no longer read the monitor (removed from its team, or the monitor moved where they are not). The key keeps working: it serves the team's tools; delete it to revoke it",
    example: false,
  }),
};

/** An integration as lists show it: never its key. */
export const IntegrationBody = described(z.strictObject(fields), { id: 'Integration' });

/** The creating response: the key, once. */
export const CreatedIntegrationBody = described(
  z.strictObject({
    ...fields,
    key: described(z.string().check(z.regex(/^[a-z0-9]{32}$/)), {
      description:
        'The key: 32 characters of `[a-z0-9]`, shown in this response only (the service keeps its SHA-256). Use it as `routing_key` of `POST /v2/enqueue`, or as the bearer token (or Basic password) of `POST /integrations/alertmanager`.',
    }),
  }),
  { id: 'CreatedIntegration' },
);

export const integrationView = (integration: Integration, lookup: IntegrationKey | undefined, creatorLeft = false): z.output<typeof IntegrationBody> => ({
  id: integration.id,
  monitor_id: integration.monitor_id,
  name: integration.name,
  key_hint: integration.key_hint,
  created_at: integration.created_at,
  created_by: integration.created_by,
  last_event_at: lookup?.last_event_at ?? null,
  created_by_left: creatorLeft,
});
export type IntegrationView = ReturnType<typeof integrationView>;
